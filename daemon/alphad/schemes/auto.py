"""`auto`: raise a class's alpha when its bursts overflow, by what DT's admission rule says
they needed, and back off when the raise costs the other traffic.

Every interval each managed queue is *idle* (it sent less than ``idle_util`` of line rate)
or *busy*. An idle queue that dropped at least ``burst_frac`` of the bytes offered to it,
on a port with at least ``idle_util`` of line rate to spare, was hit by a burst: sustained
flows keep their queue busy, TCP loses a far smaller share of a window than a synchronised
burst that overflows a threshold does, and a queue starved by a saturated port loses to
bandwidth that no buffer gives it. Per class (level k: alpha = alpha_p 2^k):

1. **Raise** a class with a burst to the level its biggest burst needed, at least one
   more, never above ``alpha_cap``: a burst of S = peak + drops beside the rest of the
   pool (free buffer F at the pool's peak, plus the queue's own peak) is admitted while
   S < alpha (F - S), so it needed ``margin`` S / (F - S) (ABM Eq. 5; FB Eq. 6-8).
2. **Decay**: a class without a burst for ``hold`` seconds steps down one level per
   ``hold``, unless the peaks of its idle queues in the last ``hold`` (lost or not)
   still needed the level by the same rule.
3. **Safety**: each class's loss fraction on its idle queues (short flows, bursts) and on
   its busy queues (sustained flows) is averaged over ``hold``, and apart over the
   intervals in which no class was raised: what the traffic loses under DT. While any
   class is raised, if a class that is not raised loses ``safety`` times that on its idle
   queues, or any class does on its busy queues (and at least ``loss_min``), every raised
   class steps down one level.
4. **Fallback**: a gap of more than STALE_INTERVALS intervals between samples, or a counter
   reset, returns every queue to alpha_p and forgets the history. Unmanaged queues are
   never touched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes._window import SlidingMax

DEFAULTS: dict[str, float] = {
    "idle_util": 0.1,  # fraction of line rate: a queue sending less is idle, a port not
    # sparing that much is saturated
    "burst_frac": 0.02,  # fraction of its bytes an idle queue drops when a burst overflows it
    "margin": 1.25,  # factor over the alpha a burst needed (FB Eq. 8 transient)
    "alpha_cap": 16.0,  # highest alpha a raise reaches
    "hold": 2.0,  # s: without bursts this long a raised class steps down one level
    "safety": 2.0,  # factor: others' loss over their level before the raise means harm
    "loss_min": 0.001,  # fraction of bytes: a loss below it is never harm
}
MIN_BYTES = 15_000.0  # bytes (10 MTU) offered below which a loss fraction is unknown
STALE_INTERVALS = 3.0  # a longer gap between samples is stale telemetry
TINY = 1e-9  # keeps divisions and logarithms finite


def loss_fraction(drop: np.ndarray, offered: np.ndarray) -> np.ndarray:
    """Dropped over offered bytes; 0 where too little was offered to tell."""
    return np.where(offered >= MIN_BYTES, drop / np.maximum(offered, 1.0), 0.0)


class Auto:
    name = "auto"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        self.p = {**DEFAULTS, **p}
        self.interval = ctx.interval
        self.B = float(ctx.topo.buffer_bytes)
        self.alpha_q = ctx.alpha_q.copy()
        cl = ctx.classes
        self.P = cl.n_prio
        self.managed = cl.prio >= 0
        self.prio = np.maximum(cl.prio, 0)
        # Managed queues ordered by class: per-class sums and maxima are reduceat's.
        self.idx = np.flatnonzero(self.managed)
        self.idx = self.idx[np.argsort(cl.prio[self.idx], kind="stable")]
        self.port = ctx.topo.queue_port
        self.port_m = self.port[self.idx]
        self.n_ports = ctx.topo.n_ports
        self._sums = np.empty((4, len(self.idx)))  # per-interval scratch, class order
        self._maxs = np.empty((4, len(self.idx)))
        self.cls = cl.prio[self.idx]
        present = np.unique(self.cls)
        self.starts = np.searchsorted(self.cls, present)
        self.present = present
        cap = min(self.p["alpha_cap"], ctx.quantizer.alpha_max)
        low = self._per_class(np.minimum, self.alpha_q[self.idx], np.inf)
        self.low = np.where(np.isfinite(low) & (low > 0), low, 1.0)  # a class's lowest alpha_p
        self.max_level = np.maximum(np.floor(np.log2(cap / self.low)), 0)
        self.hold = max(self.p["hold"], self.interval)
        self.reset_state()

    def reset_state(self) -> None:
        self.t = 0.0
        self.level = np.zeros(self.P)
        self.last_burst = np.full(self.P, -np.inf)  # last interval with a burst's loss
        self.last_step = np.full(self.P, -np.inf)  # last raise or decay step
        self.need = SlidingMax(self.P, self.hold)  # level the bursts' peaks needed
        self.loss = np.zeros((2, self.P))  # loss fraction on idle, busy queues (EWMA, hold)
        self.base = np.zeros((2, self.P))  # ... averaged over the intervals run as DT
        self.seen = self.base_seen = False

    def _per_class(self, op: np.ufunc, x: np.ndarray, empty: float) -> np.ndarray:
        """op reduced over each class's managed queues (``x`` [..., m] in class order)."""
        if x.shape[-1] and len(self.present) == self.P:
            return op.reduceat(x, self.starts, axis=-1)
        out = np.full((*x.shape[:-1], self.P), empty)
        if x.shape[-1]:
            out[..., self.present] = op.reduceat(x, self.starts, axis=-1)
        return out

    def _levels(self, S: np.ndarray, W: np.ndarray, free: float) -> np.ndarray:
        """Levels that admit a burst of S beside a pool with ``free`` bytes at its peak, of
        which the burst's queue held W: S_m / (F + W - S_m) with S_m = margin S (DT's
        admission rule, FB Eq. 6-8), rounded up to a power of two of the class's alpha;
        the cap where no alpha admits it."""
        Sm = S * self.p["margin"]
        room = np.minimum(free + W, self.B) - Sm
        a = Sm / np.maximum(room, TINY)
        k = np.ceil(np.log2(np.maximum(a, TINY) / self.low))
        k = np.where(room > 0, k, self.max_level)
        return np.minimum(np.maximum(k, 0.0), self.max_level)

    def __call__(self, est: Estimates) -> np.ndarray:
        p = self.p
        if est.dt > STALE_INTERVALS * self.interval or est.reset[self.managed].any():
            self.reset_state()  # stale or reset counters: no evidence, plain DT
            return self.alpha_q.copy()
        self.t += est.dt
        t = self.t
        w = min(est.dt / self.hold, 1.0)
        idx = self.idx
        drop = est.drop_delta[idx]
        if not (drop.any() or self.level.any()):  # nothing lost, nothing raised: DT
            self.loss *= 1 - w
            return self.alpha_q.copy()
        idle = est.rate[idx] < p["idle_util"]
        # Per queue, in class order: drops and offered bytes on idle queues, and on all.
        A = self._sums
        np.add(est.tx_delta[idx], drop, out=A[3])
        np.copyto(A[2], drop)
        np.multiply(drop, idle, out=A[0])
        np.multiply(A[3], idle, out=A[1])
        wm = est.watermark[idx]
        # A port with spare capacity: it sent less than 1 - idle_util of line rate.
        port_util = np.bincount(self.port, weights=est.rate, minlength=self.n_ports)
        spare = port_util[self.port_m] < 1.0 - p["idle_util"]
        # A burst: an idle queue on such a port that lost burst_frac of what it was offered.
        burst = idle & spare & (drop > 0) & (drop >= p["burst_frac"] * A[3])
        # Peaks S = wm + drops, and wm alone, of the bursts and of the idle queues.
        M = self._maxs
        np.add(wm, drop, out=M[2])
        np.multiply(M[2], burst, out=M[0])
        np.multiply(wm, burst, out=M[1])
        np.multiply(M[2], idle, out=M[2])
        np.multiply(wm, idle, out=M[3])
        d_i, o_i, d_all, o_all = self._per_class(np.add, A, 0.0)
        S_c, W_c, S_idle, W_idle = self._per_class(np.maximum, M, 0.0)
        now = loss_fraction(np.array((d_i, d_all - d_i)), np.array((o_i, o_all - o_i)))
        self.loss = now if not self.seen else self.loss + w * (now - self.loss)
        self.seen = True

        # What each class's biggest burst needed (DT's admission, FB Eq. 6-8), in levels;
        # and what the peaks of its idle queues needed, lost or not (what keeps a raise).
        bursty = S_c > 0
        need, keep = self._levels(np.array((S_c, S_idle)), np.array((W_c, W_idle)), est.free)
        need_hold = self.need.push(t, np.where(S_idle >= MIN_BYTES, keep, 0.0))

        raised = self.level > 0
        if not raised.any():  # what the traffic loses under DT: averaged while DT runs
            self.base = now if not self.base_seen else self.base + w * (now - self.base)
            self.base_seen = True
        else:  # the others' loss on idle queues (short flows), anyone's on busy queues
            over = (self.loss > p["safety"] * self.base) & (self.loss >= p["loss_min"])
            if (over[0] & ~raised).any() or over[1].any():  # the raise costs: back off
                self.level = np.maximum(self.level - 1, 0)
                self.last_step[raised] = t
                bursty[:] = False

        self.last_burst[bursty] = t
        up = bursty & (self.level < self.max_level)
        self.level[up] = np.minimum(np.maximum(self.level[up] + 1, need[up]), self.max_level[up])
        self.last_step[up] = t
        quiet = (t - self.last_burst >= self.hold) & (t - self.last_step >= self.hold)
        down = quiet & (self.level > 0) & (need_hold < self.level)
        self.level[down] -= 1
        self.last_step[down] = t

        out = self.alpha_q * np.exp2(self.level[self.prio])
        out[~self.managed] = self.alpha_q[~self.managed]
        return out


@register("auto")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto:
    p = numeric_params("auto", params, DEFAULTS,
                       positive=("idle_util", "margin", "alpha_cap", "hold", "safety"))
    if math.isinf(p.get("alpha_cap", 1.0)):
        raise ValueError("scheme auto: alpha_cap must be finite")
    return Auto(ctx, p)
