"""`auto29`: `auto28` whose bar lifts only on a burst that a level below the cap admits.

`auto28` (:mod:`alphad.schemes.auto28`) returns a class to alpha_p when a burst overflows
a queue at the cap without the class losing less than under DT, and lifts that bar once
the class has gone HOLD_S without a burst. At 1 s a switch that sees a class's incast only
now and then (a spine) goes HOLD_S without one and raises the class to the cap again.
Here the bar is evidence about the bursts, not about time: it lifts when the class, at
alpha_p, is hit by a burst that DT's admission rule says a level below the cap admits
(S < alpha (F + W - S) for some alpha below it; ABM Eq. 5, FB Eq. 6-8), that is a burst
unlike those no alpha absorbed; the next lost burst raises the class as in `auto18`.
Fallback forgets the bars with the rest of the history. It has `auto18`'s parameters and
fixed values, and no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad._kernels import class_peaks
from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE
from alphad.schemes.auto28 import Auto28


class Auto29(Auto28):
    """`auto28` whose bar lifts on a burst a level below the cap admits, not on quiet."""

    name = "auto29"

    def _lifts(self, c: int, hit: bool, est: Estimates) -> bool:
        """A burst unlike those the cap did not absorb: one that DT's admission rule says a
        level below the cap admits. Never on quiet."""
        if not hit:
            return False
        S_c, W_c, _, _ = class_peaks(
            np.ascontiguousarray(est.watermark, dtype=np.float64), est.drop_delta, self.idx,
            self.cls, self.P, self._burst, self._idle)
        return self._level(c, S_c[c], W_c[c], est.free) < self.max_level[c]


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto29:
    return Auto29(ctx, numeric_params("auto29", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
