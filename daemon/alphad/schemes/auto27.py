"""`auto27`: `auto26` whose evidence that a queue at line rate has no room lasts HOLD_S.

`auto26` (:mod:`alphad.schemes.auto26`) raises nothing, and returns every raised class to
alpha_p, in an interval in which a managed queue at line rate had no room left beside its
peak. Where such intervals alternate with others, it raises and undoes in turn, and each
raised interval costs the flows it protects. Here the evidence lasts as the safety rule's
does: no class is raised, and raised classes return to alpha_p, until HOLD_S has passed
without such an interval. It has `auto18`'s parameters and fixed values, and no others.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE
from alphad.schemes.auto26 import Auto26


class Auto27(Auto26):
    """`auto26` that raises nothing for HOLD_S after a queue at line rate had no room."""

    name = "auto27"

    def reset_state(self) -> None:
        super().reset_state()
        self.last_full = -math.inf  # s: the last interval with a queue at line rate and no room

    def _no_room(self, est: Estimates) -> bool:
        now = self.t + est.dt  # this interval's end, as the base class will count it
        if super()._no_room(est):
            self.last_full = now
        return now - self.last_full < self.hold


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto27:
    return Auto27(ctx, numeric_params("auto27", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
