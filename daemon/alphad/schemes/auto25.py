"""`auto25`: `auto18` that falls back to DT on harm and waits twice as long after each
harm in a row before it raises again.

`auto20` (:mod:`alphad.schemes.auto20`) returns every class to alpha_p when the safety rule
sees harm and raises nothing for HOLD_S; where every raise harms, it raises again each
HOLD_S and the harm recurs. Here the wait doubles with each harm in a row, as a TCP
sender's retransmission timeout does: after the n-th, no class is raised for
HOLD_S 2^(n - 1), at most HOLD_S 2^MAX_DOUBLINGS. A raise that stays in force for HOLD_S
without harm ends the row. A fallback (stale telemetry, a counter reset) forgets it.
It has `auto18`'s parameters and fixed values, and no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE
from alphad.schemes.auto20 import Auto20

MAX_DOUBLINGS = 5  # the longest wait is HOLD_S 2^5 (64 s): a harmful class is retried
# about once a minute, so the switch follows traffic that changes


class Auto25(Auto20):
    """`auto20` that waits longer after each harm in a row."""

    name = "auto25"

    def reset_state(self) -> None:
        super().reset_state()
        self.harms = 0  # harms in a row (a raise that ran HOLD_S without harm ends the row)
        self.raised_at: float | None = None  # s: when the levels in force were first raised
        self._fired = False

    def _backs_off(self, t: float) -> bool:
        self.harms += 1
        self.dt_until = t + self.hold * 2.0 ** min(self.harms - 1, MAX_DOUBLINGS)
        self._fired = True
        return True

    def __call__(self, est: Estimates) -> np.ndarray:
        self._fired = False
        out = super().__call__(est)  # within dt_until: DT, as auto20
        if not any(self.level):
            self.raised_at = None
        elif self.raised_at is None:
            self.raised_at = self.t
        elif not self._fired and self.t - self.raised_at >= self.hold:
            self.harms = 0  # a raise in force for HOLD_S without harm
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto25:
    return Auto25(ctx, numeric_params("auto25", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
