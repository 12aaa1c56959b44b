"""A candidate for the default: `auto9` whose safety rule remembers the level that harmed.

`auto9`'s rules (raise on idle queues only, decay, safety, fallback;
:mod:`alphad.schemes.auto`, :mod:`alphad.schemes.auto9`) with one change to the safety
rule. When it steps a raised class down from level L, L - 1 becomes the class's ceiling:
later raises stop there, and each ``hold`` without harm lifts the ceiling one level, as
decay lowers a raise one level per ``hold``. Under `auto9` the next burst after a back-off
re-raises the class to what it needs (often ``alpha_cap``), and the other classes pay again
before the loss average sees it. Fallback forgets the ceilings with the rest of the history.
Same parameters as `auto9`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE
from alphad.schemes.auto9 import DEFAULTS, Auto9


class Auto17(Auto9):
    """`auto9` that does not retake, for ``hold`` per level, a level whose raise harmed."""

    name = "auto17"

    def reset_state(self) -> None:
        super().reset_state()
        self.ceiling = [math.inf] * self.P  # highest level a raise takes, at harm_t
        self.harm_t = [-math.inf] * self.P  # when the safety rule last stepped the class down

    def _ceiling(self, c: int) -> float:
        """The class's ceiling now: one level higher per ``hold`` since the harm."""
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


@register("auto17")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto17:
    return Auto17(ctx, numeric_params("auto17", params, DEFAULTS, positive=POSITIVE))
