"""A candidate for the default, under design: `auto` with bounded raises, bursts judged
against the other classes' loss and the scheduler, and a pooled safety rule.

Every interval each managed queue is *idle* (it sent less than ``idle_util`` of line rate)
or *busy*. An idle queue that dropped at least ``burst_frac`` of the bytes offered to it,
on a port with at least ``idle_util`` of line rate to spare and behind strict-priority
queues (``priorities[].strict``) that sent less than that together, was hit by a burst:
sustained flows keep their queue busy, TCP loses a far smaller share of a window than a
burst that overflows a threshold does, and a starved queue loses to bandwidth that no
buffer gives it. A class's bursts count only when they lose ``contrast`` times the share
the other classes' idle queues lose together. Per class (level k: alpha = alpha_p 2^k):

1. **Raise** a class with a burst to the level its biggest burst needed, at least one
   more and at most ``raise_step`` more, never above ``alpha_cap``: a burst of S = peak +
   drops beside the rest of the pool (free buffer F at the pool's peak, plus the queue's
   own peak) is admitted while S < alpha (F - S), so it needed ``margin`` S / (F - S)
   (ABM Eq. 5; FB Eq. 6-8).
2. **Decay**: a class without a burst for ``hold`` seconds steps down one level per
   ``hold``, unless the peaks of its idle queues in the last ``hold`` (lost or not)
   still needed the level by the same rule.
3. **Safety**: the bytes each class drops and is offered on its idle queues (short flows,
   bursts) and on its busy queues (sustained flows) are averaged over ``hold``, and apart
   over the intervals in which no class was raised: what the traffic loses under DT.
   While any class is raised, if the classes that are not raised, pooled, lose
   ``safety`` times that on their idle queues (and at least ``idle_loss_min``) or on
   their busy queues (and at least ``loss_min``), every raised class steps down one level
   and is not raised again for ``hold``.
4. **Fallback**: a gap of more than STALE_INTERVALS intervals between samples, or a counter
   reset, returns every queue to alpha_p and forgets the history. Unmanaged queues are
   never touched.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from operator import sub
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import MIN_BYTES, STALE_INTERVALS, TINY, Auto, _ewma, loss_fraction

DEFAULTS: dict[str, float] = {
    "idle_util": 0.1,  # fraction of line rate: a queue sending less is idle, a port not
    # sparing that much is saturated
    "burst_frac": 0.02,  # fraction of its bytes an idle queue drops when a burst overflows it
    "margin": 1.25,  # factor over the alpha a burst needed (FB Eq. 8 transient)
    "alpha_cap": 16.0,  # highest alpha a raise reaches
    "hold": 2.0,  # s: without bursts this long a raised class steps down one level
    "safety": 2.0,  # factor: others' loss over their level before the raise means harm
    "loss_min": 0.001,  # fraction of bytes: a loss below it is never harm
    "idle_loss_min": 0.02,  # fraction of bytes: on idle queues, nor a loss below this
    "raise_step": 2.0,  # levels (factors of 2) one raise adds at most
    "contrast": 2.0,  # factor: a class's bursts over the others' idle loss that counts
}


def _pooled(x: list[list[float]], row: int, classes: Iterable[int]) -> float:
    """The loss fraction of ``classes`` together: their drops (row) over their offered bytes
    (row + 2)."""
    cs = list(classes)
    return loss_fraction(sum(x[row][c] for c in cs), sum(x[row + 2][c] for c in cs))


class Auto2(Auto):
    """`auto`'s state and helpers; its own per-interval decision (``__call__``)."""

    name = "auto2"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, {**DEFAULTS, **p})
        self._sums = np.empty((6, len(self.idx)))  # + drops, offered bytes on the bursts
        ahead = ctx.classes.ahead()  # [a, c]: class a is served before class c
        # per managed queue, the classes its scheduler serves first (None: no strict priority)
        self.ahead_m = ahead[:, self.cls].T.astype(np.float64) if ahead.any() else None

    def reset_state(self) -> None:
        super().reset_state()
        P = self.P
        # Bytes dropped on idle, on busy queues, offered on idle, on busy (EWMA over hold).
        self.loss = [[0.0] * P for _ in range(4)]
        self.base = [[0.0] * P for _ in range(4)]  # ... averaged over the intervals run as DT
        self.last_backoff = [-math.inf] * P  # last step down by the safety rule

    def __call__(self, est: Estimates) -> np.ndarray:
        p = self.p
        if est.dt > STALE_INTERVALS * self.interval or (
                np.count_nonzero(est.reset) and np.count_nonzero(est.reset[self.managed])):
            self.reset_state()  # stale or reset counters: no evidence, plain DT
            return self.out.copy()
        self.t += est.dt
        t = self.t
        w = min(est.dt / self.hold, 1.0)
        idx = self.idx
        drop = est.drop_delta[idx]
        level = self.level
        if not (np.count_nonzero(drop) or any(level)):  # nothing lost, nothing raised: DT
            k = 1 - w
            self.loss = [[x * k for x in row] for row in self.loss]
            if self.base_seen:
                self.base = [[x * k for x in row] for row in self.base]
            return self.out.copy()
        idle = est.rate[idx] < p["idle_util"]
        # Per queue, in class order: drops and offered bytes on idle queues, and on all.
        A = self._sums
        A[2] = drop
        np.add(est.tx_delta[idx], drop, out=A[3])
        np.multiply(A[2:4], idle[None, :], out=A[:2])  # [None]: numpy's fast broadcast
        # A burst: an idle queue that lost burst_frac of what it was offered (and lost
        # something: byte counts are whole, so at least TINY), on a port with spare
        # capacity: it sent less than 1 - idle_util of line rate.
        lost = np.multiply(A[3], p["burst_frac"])
        burst = idle & (drop >= np.maximum(lost, TINY, out=lost))
        if np.count_nonzero(burst):
            port_util = np.bincount(self.port, weights=est.rate, minlength=self.n_ports)
            burst &= port_util[self.port_m] < 1.0 - p["idle_util"]
            if self.ahead_m is not None:  # behind busy strict-priority queues: starved
                per = np.bincount(self.port_m * self.P + self.cls, weights=est.rate[idx],
                                  minlength=self.n_ports * self.P).reshape(self.n_ports, self.P)
                burst &= (per[self.port_m] * self.ahead_m).sum(axis=1) < p["idle_util"]
        np.multiply(A[2:4], burst[None, :], out=A[4:])  # drops, offered on the bursts
        # Peaks S = wm + drops, and wm alone, of the idle queues and of the bursts.
        M = self._maxs
        M[3] = est.watermark[idx]
        np.add(M[3], drop, out=M[2])
        np.multiply(M[2:], idle[None, :], out=M[2:])
        np.multiply(M[2:], burst[None, :], out=M[:2])
        d_i, o_i, d_all, o_all, d_b, o_b = self._per_class(np.add, A, 0.0).tolist()
        S_c, W_c, S_idle, W_idle = self._per_class(np.maximum, M, 0.0).tolist()
        P = self.P
        now = [d_i, list(map(sub, d_all, d_i)), o_i, list(map(sub, o_all, o_i))]
        self.loss = _ewma(self.loss, now, w) if self.seen else now
        self.seen = True

        # What the peaks of each class's idle queues needed, lost or not (DT's admission,
        # FB Eq. 6-8), in levels: what keeps a raise.
        free = est.free
        need_hold = self.need.push_list(t, [self._level(c, S_idle[c], W_idle[c], free)
                                       if S_idle[c] >= MIN_BYTES else 0.0 for c in range(P)])
        # Bursts that lose disproportionately: contrast times the others' idle queues.
        sd, so, contrast = sum(d_i), sum(o_i), p["contrast"]
        bursty = [s > 0 and loss_fraction(db, ob) >= contrast * loss_fraction(sd - d, so - o)
                  for s, db, ob, d, o in zip(S_c, d_b, o_b, d_i, o_i, strict=True)]
        raised = [k > 0 for k in level]
        changed = False
        if not any(raised):  # what the traffic loses under DT: averaged while DT runs
            self.base = _ewma(self.base, now, w) if self.base_seen else now
            self.base_seen = True
        else:  # the others' loss on idle queues (short flows) and on busy queues
            others = [c for c in range(P) if not raised[c]]
            idle_lo, idle_ba = (_pooled(x, 0, others) for x in (self.loss, self.base))
            busy_lo, busy_ba = (_pooled(x, 1, others) for x in (self.loss, self.base))
            safety = p["safety"]
            if ((idle_lo > safety * idle_ba and idle_lo >= max(p["loss_min"], p["idle_loss_min"]))
                    or (busy_lo > safety * busy_ba and busy_lo >= p["loss_min"])):
                for c in range(P):  # the raise costs: back off, and do not retry at once
                    if raised[c]:
                        level[c] = max(level[c] - 1, 0.0)
                        self.last_step[c] = self.last_backoff[c] = t
                bursty = [False] * P
                changed = True

        for c in range(P):
            if bursty[c]:
                self.last_burst[c] = t
                top = self.max_level[c]
                if level[c] < top and t - self.last_backoff[c] >= self.hold:
                    # raise to what its biggest burst needed
                    need = self._level(c, S_c[c], W_c[c], free)
                    level[c] = min(max(level[c] + 1, min(need, level[c] + p["raise_step"])), top)
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


@register("auto2")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto2:
    p = numeric_params("auto2", params, DEFAULTS, positive=(
        "idle_util", "margin", "alpha_cap", "hold", "safety", "raise_step"))
    if math.isinf(p.get("alpha_cap", 1.0)):
        raise ValueError("scheme auto2: alpha_cap must be finite")
    return Auto2(ctx, p)
