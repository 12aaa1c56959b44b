"""`auto`: raise a class's alpha when its bursts lose, by what DT's admission rule says they
needed, and back off when the raise costs the other traffic.

Every interval each managed queue is *idle* (mean tx below ``idle_util`` of line rate) or
*busy*. Drops on idle queues are burst loss: a burst met its threshold. Drops on busy
queues are what sustained traffic loses anyway. Per class (level ``k``: alpha = alpha_p 2^k):

1. **Raise** a class whose idle queues lost at least ``loss_min`` of their bytes, and
   ``loss_ratio`` times the busy queues' loss fraction, to the level its biggest burst
   needed, at least one more: a burst of S = peak + drops beside what the rest of the pool
   held (free buffer F at the pool's peak, plus the queue's own peak) is admitted while
   S < alpha (F - S), so it needed ``margin`` S / (F - S) (DT, ABM Eq. 5; FB Eq. 6-8).
   Never above ``alpha_cap``.
2. **Decay**: a class without burst loss for ``hold`` seconds steps down one level per
   ``hold``, unless the peaks of its idle queues in the last ``hold`` still need it.
3. **Safety**: while any class is raised, each class's loss fraction on idle queues (its
   short flows and bursts) and on busy queues (its sustained flows) is compared with the
   level it had while nothing was raised (an average over ``hold``). When a class that is
   not raised, or the busy queues of any class, lose ``safety`` times that level (and at
   least ``loss_min``), every raised class steps down one level and no class is raised
   for ``hold``.
4. **Fallback**: an interval longer than ``stale`` intervals, or a counter reset, returns
   every queue to alpha_p and forgets the history. Unmanaged queues are never touched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._admission import burst_alpha
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes._window import SlidingMax

DEFAULTS: dict[str, float] = {
    "idle_util": 0.1,  # fraction of line rate: below it a queue is idle and its drops are bursts
    "loss_min": 0.001,  # fraction of bytes: loss below it is no evidence (raise or harm)
    "loss_ratio": 2.0,  # a raise needs this many times the busy queues' loss fraction
    "margin": 1.25,  # factor over the alpha a burst needed (FB Eq. 8 transient)
    "alpha_cap": 16.0,  # highest alpha a raise reaches
    "hold": 2.0,  # s: without burst loss this long a raised class steps down one level
    "safety": 2.0,  # factor: others' loss over their level before any raise means harm
    "stale": 3.0,  # intervals: a longer gap between samples returns alpha_p everywhere
}
MIN_BYTES = 15_000.0  # bytes (10 MTU) offered below which a loss fraction is unknown


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
        self.last_burst = np.full(self.P, -np.inf)  # last interval with burst loss
        self.last_step = np.full(self.P, -np.inf)  # last raise or decay step
        self.need = SlidingMax(self.P, self.hold)  # level the idle queues' peaks needed
        self.base_idle = np.zeros(self.P)  # loss fractions while nothing was raised
        self.base_busy = np.zeros(self.P)
        self.based = False
        self.last_harm = -np.inf

    def _per_class(self, op: np.ufunc, x: np.ndarray, empty: float) -> np.ndarray:
        """op reduced over each class's managed queues (``x`` [..., n] in class order)."""
        out = np.full((*x.shape[:-1], self.P), empty)
        if x.shape[-1]:
            out[..., self.present] = op.reduceat(x, self.starts, axis=-1)
        return out

    def __call__(self, est: Estimates) -> np.ndarray:
        p = self.p
        if est.dt > p["stale"] * self.interval or est.reset[self.managed].any():
            self.reset_state()  # stale or reset counters: no evidence, plain DT
            return self.alpha_q.copy()
        self.t += est.dt
        t = self.t
        drop = est.drop_delta[self.idx]
        if not (drop.any() or self.level.any()):  # nothing lost, nothing raised: DT
            self.base_idle *= 1 - min(est.dt / self.hold, 1.0)
            self.base_busy *= 1 - min(est.dt / self.hold, 1.0)
            return self.alpha_q.copy()
        idle = est.rate[self.idx] < p["idle_util"]
        offered = est.tx_delta[self.idx] + drop
        wm = est.watermark[self.idx]
        S = wm + drop
        d_i, o_i, d_all, o_all = self._per_class(
            np.add, np.stack((drop * idle, offered * idle, drop, offered)), 0.0)
        S_c, W_c = self._per_class(np.maximum, np.stack((S * idle, wm * idle)), 0.0)
        d_b, o_b = d_all - d_i, o_all - o_i
        L_idle, L_busy = loss_fraction(d_i, o_i), loss_fraction(d_b, o_b)
        busy_all = d_b.sum() / o_b.sum() if o_b.sum() >= MIN_BYTES else 0.0

        # What each class's biggest burst on an idle queue needed (FB Eq. 6-8), in levels.
        with np.errstate(divide="ignore", invalid="ignore"):
            a = burst_alpha(S_c, np.minimum(est.free + W_c, self.B), p["margin"])
            k = np.ceil(np.log2(a / self.low))
        need = np.where(S_c >= MIN_BYTES, np.clip(k, 0.0, self.max_level), 0.0)
        need_hold = self.need.push(t, need)

        raised = self.level > 0
        if not raised.any():  # the traffic's own loss under DT: what harm is measured against
            w = min(est.dt / self.hold, 1.0)
            if self.based:
                self.base_idle += w * (L_idle - self.base_idle)
                self.base_busy += w * (L_busy - self.base_busy)
            else:
                self.base_idle, self.base_busy, self.based = L_idle.copy(), L_busy.copy(), True
        else:
            floor = p["loss_min"]
            harm = (((L_idle > p["safety"] * self.base_idle) & (L_idle >= floor) & ~raised)
                    | ((L_busy > p["safety"] * self.base_busy) & (L_busy >= floor))).any()
            if harm:  # the raise costs the others: back off
                self.level = np.maximum(self.level - 1, 0)
                self.last_harm = t

        bursty = (L_idle >= p["loss_min"]) & (L_idle >= p["loss_ratio"] * busy_all)
        self.last_burst[bursty] = t
        if t - self.last_harm >= self.hold:
            up = bursty & (self.level < self.max_level)
            self.level[up] = np.minimum(np.maximum(self.level[up] + 1, need[up]),
                                        self.max_level[up])
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
                       positive=("idle_util", "margin", "alpha_cap", "hold", "safety", "stale"))
    if math.isinf(p.get("alpha_cap", 1.0)):
        raise ValueError("scheme auto: alpha_cap must be finite")
    return Auto(ctx, p)
