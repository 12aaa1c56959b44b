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
   queues, or any class does on its busy queues (and at least ``loss_min``; on idle
   queues at least ``idle_loss_min`` too), every raised class steps down one level.
4. **Fallback**: a gap of more than STALE_INTERVALS intervals between samples, or a counter
   reset, returns every queue to alpha_p and forgets the history. Unmanaged queues are
   never touched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from operator import sub
from typing import Any

import numpy as np

from alphad._kernels import MAX_CLASSES, TINY, class_loss, class_peaks
from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
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
    "idle_loss_min": 0.0,  # fraction of bytes: on idle queues, nor a loss below this
}
POSITIVE = ("idle_util", "margin", "alpha_cap", "hold", "safety")  # must be > 0
MIN_BYTES = 15_000.0  # bytes (10 MTU) offered below which a loss fraction is unknown
STALE_INTERVALS = 3.0  # a longer gap between samples is stale telemetry


def loss_fraction(drop: float, offered: float) -> float:
    """Dropped over offered bytes; 0 where too little was offered to tell."""
    return drop / max(offered, 1.0) if offered >= MIN_BYTES else 0.0


def _ewma(avg: list[list[float]], now: list[list[float]], w: float) -> list[list[float]]:
    """avg moved by w towards now, element by element (new lists)."""
    return [[x + w * (y - x) for x, y in zip(a, n, strict=True)]
            for a, n in zip(avg, now, strict=True)]


class Auto:
    name = "auto"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        self.p = {**DEFAULTS, **p}
        self.interval = ctx.interval
        self.B = float(ctx.topo.buffer_bytes)
        self.alpha_q = ctx.alpha_q.copy()
        cl = ctx.classes
        self.P = cl.n_prio
        if self.P > MAX_CLASSES:
            raise ValueError(f"scheme {self.name}: {self.P} priorities, at most {MAX_CLASSES}")
        self.managed = cl.prio >= 0
        # Managed queues ordered by class, and their classes (int64: the kernels' indices).
        idx = np.flatnonzero(self.managed)
        self.idx = idx[np.argsort(cl.prio[idx], kind="stable")].astype(np.int64)
        self.cls = cl.prio[self.idx].astype(np.int64)
        self.port = ctx.topo.queue_port.astype(np.int64)
        self.port_m = self.port[self.idx]
        self.n_ports = ctx.topo.n_ports
        m = len(self.idx)
        self._idle = np.zeros(m, dtype=bool)  # per-interval masks, class order
        self._burst = np.zeros(m, dtype=bool)
        self._port_util = np.zeros(self.n_ports)  # line rate in use per port
        cap = min(self.p["alpha_cap"], ctx.quantizer.alpha_max)
        low = np.full(self.P, np.inf)
        np.minimum.at(low, self.cls, self.alpha_q[self.idx])
        self.low = np.where(np.isfinite(low) & (low > 0), low, 1.0)  # a class's lowest alpha_p
        self.max_level = np.maximum(np.floor(np.log2(cap / self.low)), 0).tolist()
        self.low = self.low.tolist()
        # Each queue's class, unmanaged queues last: where its level's factor is read.
        self.cls_q = np.where(self.managed, cl.prio, self.P)
        self.hold = max(self.p["hold"], self.interval)
        self.reset_state()

    def reset_state(self) -> None:
        P = self.P
        self.t = 0.0
        self.level = [0.0] * P
        self.last_burst = [-math.inf] * P  # last interval with a burst's loss
        self.last_step = [-math.inf] * P  # last raise or decay step
        self.need = SlidingMax(P, self.hold)  # level the bursts' peaks needed
        self.loss = [[0.0] * P, [0.0] * P]  # loss fraction on idle, busy queues (EWMA, hold)
        self.base = [[0.0] * P, [0.0] * P]  # ... averaged over the intervals run as DT
        self.seen = self.base_seen = False
        self._set_out()

    def _set_out(self) -> None:
        """The alphas of the current levels: alpha_p 2^level, unmanaged queues untouched."""
        factor = np.array([2.0 ** k for k in self.level] + [1.0])
        self.out = self.alpha_q * factor[self.cls_q]

    def _level(self, c: int, S: float, W: float, free: float) -> float:
        """The level that admits a burst of S beside a pool with ``free`` bytes at its peak,
        of which the burst's queue held W: S_m / (F + W - S_m) with S_m = margin S (DT's
        admission rule, FB Eq. 6-8), rounded up to a power of two of the class's alpha;
        ``_unadmitted`` where no alpha admits it."""
        Sm = S * self.p["margin"]
        room = min(free + W, self.B) - Sm
        if not room > 0:
            return self._unadmitted(c)
        k = float(math.ceil(math.log2(max(Sm / max(room, TINY), TINY) / self.low[c])))
        return min(max(k, 0.0), self.max_level[c])

    def _unadmitted(self, c: int) -> float:
        """The level a burst that no alpha admits needed: `auto` takes the cap."""
        return self.max_level[c]

    def _raised(self, c: int, need: float) -> float:
        """The level of a class with a burst that needed ``need``: at least one more."""
        return min(max(self.level[c] + 1, need), self.max_level[c])

    def _backs_off(self, t: float) -> bool:
        """Whether the harm seen at t steps the raised classes down: `auto` always does."""
        return True

    def _not_starved(self, burst: np.ndarray, est: Estimates) -> np.ndarray:
        """The bursts that were not starvation by the scheduler: `auto` knows none."""
        return burst

    def __call__(self, est: Estimates) -> np.ndarray:
        p = self.p
        if est.dt > STALE_INTERVALS * self.interval or (
                np.count_nonzero(est.reset) and np.count_nonzero(est.reset[self.managed])):
            self.reset_state()  # stale or reset counters: no evidence, plain DT
            return self.out.copy()
        self.t += est.dt
        t = self.t
        w = min(est.dt / self.hold, 1.0)
        level = self.level
        busy_port = 1.0 - p["idle_util"]  # a port sending more of its line rate is saturated
        # Per class, drops and offered bytes on idle queues and on all; the idle queues and
        # the bursts (alphad._kernels.class_loss).
        any_burst, (d_i, o_i, d_all, o_all) = class_loss(
            est.drop_delta, est.tx_delta, est.rate, self.port, self.idx, self.cls, self.P,
            self.n_ports, p["idle_util"], busy_port, p["burst_frac"], self._idle, self._burst,
            self._port_util)
        if not (any(d_all) or any(level)):  # nothing lost, nothing raised: DT
            for row in self.loss:  # in place: also the DT reference while it is the same list
                row[:] = [x * (1 - w) for x in row]
            return self.out.copy()
        # A burst: an idle queue that lost burst_frac of what it was offered (and lost
        # something: byte counts are whole, so at least TINY), on a port with spare
        # capacity: it sent less than 1 - idle_util of line rate.
        burst = self._burst
        if any_burst:
            burst = self._not_starved(burst, est)
        # Peaks S = wm + drops, and wm alone, of the bursts and of the idle queues (whose
        # peaks keep a raise).
        S_c, W_c, S_idle, W_idle = class_peaks(
            np.ascontiguousarray(est.watermark, dtype=np.float64), est.drop_delta, self.idx,
            self.cls, self.P, burst, self._idle)
        P = self.P
        now = [list(map(loss_fraction, d_i, o_i)),
               list(map(loss_fraction, map(sub, d_all, d_i), map(sub, o_all, o_i)))]
        self.loss = _ewma(self.loss, now, w) if self.seen else now
        self.seen = True

        # What the peaks of each class's idle queues needed, lost or not (DT's admission,
        # FB Eq. 6-8), in levels: what keeps a raise.
        free = est.free
        need_hold = self.need.push_list(t, [self._level(c, S_idle[c], W_idle[c], free)
                                       if S_idle[c] >= MIN_BYTES else 0.0 for c in range(P)])
        bursty = [s > 0 for s in S_c]
        raised = [k > 0 for k in level]
        changed = False
        if not any(raised):  # what the traffic loses under DT: averaged while DT runs
            self.base = _ewma(self.base, now, w) if self.base_seen else now
            self.base_seen = True
        else:  # the others' loss on idle queues (short flows), anyone's on busy queues
            safety = p["safety"]
            floors = (max(p["loss_min"], p["idle_loss_min"]), p["loss_min"])  # idle, busy
            over = [[lo > safety * ba and lo >= floor for lo, ba in zip(lr, br, strict=True)]
                    for lr, br, floor in zip(self.loss, self.base, floors, strict=True)]
            if (any(o and not r for o, r in zip(over[0], raised, strict=True))
                    or any(over[1])) and self._backs_off(t):
                for c in range(P):  # the raise costs: back off
                    if raised[c]:
                        level[c] = max(level[c] - 1, 0.0)
                        self.last_step[c] = t
                bursty = [False] * P
                changed = True

        for c in range(P):
            if bursty[c]:
                self.last_burst[c] = t
                if level[c] < self.max_level[c]:  # to what its biggest burst needed
                    level[c] = self._raised(c, self._level(c, S_c[c], W_c[c], free))
                    self.last_step[c] = t
                    changed = True
            if (level[c] > 0 and need_hold[c] < level[c] and t - self.last_burst[c] >= self.hold
                    and t - self.last_step[c] >= self.hold):
                level[c] -= 1
                self.last_step[c] = t
                changed = True
        if changed:
            self._set_out()
        return self.out.copy()


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto:
    return Auto(ctx, numeric_params("auto", params, DEFAULTS, positive=POSITIVE))
