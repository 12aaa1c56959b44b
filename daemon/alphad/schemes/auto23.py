"""`auto23`: `auto22` that raises only once the safety rule's reference covers HOLD_S.

The safety rule (:mod:`alphad.schemes.auto18`, rule 4) judges a raise by each class's loss
under DT, averaged over the intervals in which no class was raised. `auto18` and `auto22`
raise at the first lost burst, so at 1 s that reference is the first interval alone, and
a class that lost nothing in it makes any later loss of at least LOSS_MIN harm: the test
that keeps `auto22` on its floor can then fire at every level. Here no class is raised (nor
its floor learned) until DT has run for HOLD_S since the start or the last fallback, the
time over which the rule averages the loss it judges. Otherwise it is `auto22`
(:mod:`alphad.schemes.auto22`), with `auto18`'s parameters and fixed values and no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE
from alphad.schemes.auto22 import Auto22


class Auto23(Auto22):
    """`auto22` that raises only once its reference covers HOLD_S of DT."""

    name = "auto23"

    def reset_state(self) -> None:
        super().reset_state()
        self.dt_run = 0.0  # s run as DT since the start or the last fallback

    def _lost_floor(self, c: int) -> float:
        if self.dt_run < self.hold:  # no reference yet: nothing learned
            return self.floor[c]
        return super()._lost_floor(c)

    def _raised(self, c: int, need: float) -> float:
        if self.dt_run < self.hold:  # no reference yet: no raise
            return self.level[c]
        return super()._raised(c, need)

    def __call__(self, est: Estimates) -> np.ndarray:
        if not any(self.level):  # this interval is run as DT (a fallback resets the sum)
            self.dt_run += est.dt
        return super().__call__(est)


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto23:
    return Auto23(ctx, numeric_params("auto23", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
