"""`auto20`: `auto18` that falls back to DT for HOLD_S when a raise harms.

`auto18` steps each raised class down one level when its safety rule sees a raise cost
another class (:mod:`alphad.schemes.auto18`, rule 4): a raise to 2^k alpha_p then needs k
intervals of harm to undo, and a burst in the next interval raises it again. In `auto20`
harm is evidence against raising at all: every class returns to alpha_p (the operator's
alphas, DT) at once, and no class is raised for HOLD_S after it, the time over which the
safety rule averages the loss it judges. It has `auto18`'s parameters and fixed values, and
no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18


class Auto20(Auto18):
    """`auto18` that falls back to DT on harm."""

    name = "auto20"

    def reset_state(self) -> None:
        super().reset_state()
        self.dt_until = -1.0  # s: no raise before this time (the last harm plus hold)

    def _backs_off(self, t: float) -> bool:
        self.dt_until = t + self.hold  # read once the interval's decision is made
        return True

    def __call__(self, est: Estimates) -> np.ndarray:
        out = super().__call__(est)
        if self.t < self.dt_until and any(self.level):  # harm: DT, every class at alpha_p
            self.level = [0.0] * self.P
            self._set_out()
            out = self.out.copy()
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto20:
    return Auto20(ctx, numeric_params("auto20", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
