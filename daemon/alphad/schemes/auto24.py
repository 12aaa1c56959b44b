"""`auto24`: `auto18` whose safety rule remembers the level that harmed.

`auto18` (:mod:`alphad.schemes.auto18`) raises a class whose burst was lost to what DT's
admission rule says it needed, at 1 s mostly the cap; when the raise harms, the safety
rule steps it down one level per interval, and the next lost burst takes it back to the
cap, where the other classes pay again before the loss average shows it. Here, when the
safety rule steps a class down from level L, L - 1 becomes the class's ceiling: later
raises stop there, and each HOLD_S without another step of the rule lifts the ceiling one
level, as decay lowers a raise one level per HOLD_S. Fallback forgets the ceilings with
the rest of the history.

It has `auto18`'s parameters and fixed values, and no others.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18


class Auto24(Auto18):
    """`auto18` that does not retake, for HOLD_S per level, a level whose raise harmed."""

    name = "auto24"

    def reset_state(self) -> None:
        super().reset_state()
        self.ceiling = [math.inf] * self.P  # highest level a raise takes, at harm_t
        self.harm_t = [-math.inf] * self.P  # when the safety rule last stepped the class down

    def _ceiling(self, c: int) -> float:
        """The class's ceiling now: one level higher per HOLD_S since the harm."""
        if self.harm_t[c] == -math.inf:
            return math.inf
        return self.ceiling[c] + math.floor((self.t - self.harm_t[c]) / self.hold)

    def _backs_off(self, t: float) -> bool:
        for c, k in enumerate(self.level):
            if k > 0:  # the level that harmed is not retaken
                self.ceiling[c] = k - 1
                self.harm_t[c] = t
        return True

    def _raised(self, c: int, need: float) -> float:
        return min(super()._raised(c, need), max(self._ceiling(c), self.level[c]))


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto24:
    return Auto24(ctx, numeric_params("auto24", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
