"""A candidate for the default: `auto25` whose safety rule judges each raise on the loss
since it began, and only on the intervals in which it was used.

`auto25`'s rules (:mod:`alphad.schemes.auto25`: `auto18`'s raise, decay and fallback; harm
returns every class to alpha_p, and no class is raised for HOLD_S 2^(n-1) after the n-th
harm in a row) with two changes to the safety rule, and none to the raise:

1. **The loss since the raise.** The bytes each class drops over those offered to it, on
   idle and on busy queues, are counted from the interval a raise began, against the
   reference (the same loss averaged over the intervals run as DT, `auto`'s), with
   `auto`'s factor SAFETY. A loss on idle queues is harm only in a class not raised and at
   LOSS_MIN or more; any loss over the reference on busy queues is harm. Only the intervals
   in which a queue that took a raise held more than alpha_p times the free buffer (more
   than DT's admission rule lets it hold) are counted: in the others the raise admitted
   nothing DT would not have.
2. **Evidence first.** No class is raised until the reference stands for REF_S of DT
   (the intervals run with no class raised), so that no raise goes unjudged.

No parameter is added: `auto18`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, LOSS_MIN, POSITIVE, SAFETY
from alphad.schemes.auto25 import Auto25
from alphad.schemes.oracle18_fresh import Oracle18Fresh, split_loss

REF_S = 1.0  # s: the DT the reference must stand for before a class is raised


class Auto36(Auto25):
    """`auto25` that judges the loss since a raise began, over the intervals it was used in."""

    name = "auto36"

    def reset_state(self) -> None:
        super().reset_state()
        self.ref_s = 0.0  # s: the DT the reference stands for
        self.dropped = np.zeros(2 * self.P)  # bytes per class, idle then busy, since the raise
        self.offered = np.zeros(2 * self.P)  # ... offered
        self.written = self.alpha_q.copy()  # the alphas in force over the next interval

    def _backs_off(self, t: float) -> bool:
        return False  # the HOLD_S average is not judged; the loss since the raise is

    def _used(self, est: Estimates) -> bool:
        """Whether a queue that took a raise held more than DT's admission rule lets it
        (alpha_p times the interval's lowest free buffer; Choudhury-Hahne)."""
        i = self.idx
        dt_cap = self.alpha_q[i] * est.free
        return bool(((self.written[i] > self.alpha_q[i]) & (est.watermark[i] > dt_cap)).any())

    def _trips_since(self, raised: list[bool]) -> list[tuple[int, int]]:
        """The (idle 0 or busy 1, class) entries whose loss since the raise began is harm:
        `auto`'s test, with no floor on busy queues."""
        idle, busy = split_loss(self.dropped, self.offered, self.P)
        return ([(0, c) for c, lo in enumerate(idle) if not raised[c]
                 and lo > SAFETY * self.base[0][c] and lo >= LOSS_MIN]
                + [(1, c) for c, lo in enumerate(busy) if lo > SAFETY * self.base[1][c]])

    def _harmed_since(self, raised: list[bool]) -> bool:
        return bool(self._trips_since(raised))

    def __call__(self, est: Estimates) -> np.ndarray:
        raised = [k > 0 for k in self.level]
        out = super().__call__(est)  # `auto25`, with no harm judged on the average
        if self.t == 0.0:  # a fallback: reset_state cleared the count and the reference
            return out
        if not any(raised):  # the interval ran as DT: the reference grows, a raise starts
            self.ref_s += est.dt
            self.dropped[:] = 0.0
            self.offered[:] = 0.0
        elif self._used(est):
            d, o = Oracle18Fresh._class_bytes(self, est)  # `auto`'s idle and busy split
            self.dropped += d
            self.offered += o
            if any(self.level) and self._harmed_since(raised):
                Auto25._backs_off(self, self.t)  # DT for HOLD_S 2^(n-1), n harms in a row
                self.level = [0.0] * self.P
                self._set_out()
                out = self.out.copy()
        if any(self.level) and self.ref_s < REF_S - self.interval / 2:
            self.level = [0.0] * self.P  # no raise the reference cannot judge yet
            self._set_out()
            out = self.out.copy()
        self.written = out
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto36:
    return Auto36(ctx, numeric_params("auto36", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
