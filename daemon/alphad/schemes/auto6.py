"""A candidate for the default, under design: `auto5` whose safety rule waits for its
loss averages.

`auto5`'s rules (:mod:`alphad.schemes.auto5`) with one change to the safety rule: the loss
averages span ``hold``, so after it steps the raised classes down, harm seen within the
next ``hold`` is still the old level's. Until then the classes keep their level and are
not raised; a step down, and a lower ceiling, come at most once per ``hold``. Same
parameters as `auto4`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto4 import DEFAULTS
from alphad.schemes.auto5 import Auto5

__all__ = ["Auto6", "make"]


class Auto6(Auto5):
    """`auto5` stepping down at most once per ``hold``."""

    name = "auto6"

    def reset_state(self) -> None:
        super().reset_state()
        self.stepped = -math.inf  # when the safety rule last stepped the raised classes down

    def _backed_off(self, k: float) -> float:
        """One level less, unless the safety rule stepped down within ``hold``."""
        if self.t - self.stepped >= self.hold:
            self.stepped = self.t
        return max(k - 1, 0.0) if self.stepped == self.t else k


@register("auto6")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto6:
    return Auto6(ctx, numeric_params("auto6", params, DEFAULTS,
                                     positive=("idle_util", "margin", "alpha_cap", "hold",
                                               "safety")))
