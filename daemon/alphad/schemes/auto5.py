"""A candidate for the default, under design: `auto4` that remembers what a raise cost.

`auto4`'s rules (:mod:`alphad.schemes.auto4`) with a ceiling per class. When the safety
rule steps a raised class down, the level it steps down to becomes the class's ceiling:
later bursts raise it no higher. The loss averages span ``hold``, so the steps down that
follow within ``hold`` answer the same harm and leave the ceiling where it is. Each
``hold`` without a new ceiling lifts it one level, back to ``alpha_cap``. A class whose
bursts need more than the others can afford settles near the highest level that does not
cost them, where `auto4` climbs to what its bursts need and is stepped down again.
Same parameters as `auto4`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto4 import DEFAULTS, Auto4

__all__ = ["Auto5", "make"]


class Auto5(Auto4):
    """`auto4` whose raises stop below the level the safety rule last stepped down from."""

    name = "auto5"

    def reset_state(self) -> None:
        super().reset_state()
        self.ceiling = list(self.max_level)  # highest level a raise reaches, per class
        self.lifted = [-math.inf] * self.P  # when each ceiling last moved
        self.cut = [-math.inf] * self.P  # when each ceiling was last lowered

    def __call__(self, est: Estimates) -> np.ndarray:
        out = super().__call__(est)
        t = self.t
        for c in range(self.P):
            if self.last_backoff[c] == t:  # stepped down this interval: the raise cost
                if t - self.cut[c] >= self.hold:  # not the same harm as the last cut
                    self.ceiling[c] = self.level[c]
                    self.cut[c] = self.lifted[c] = t
            elif self.ceiling[c] < self.max_level[c] and t - self.lifted[c] >= self.hold:
                self.ceiling[c] += 1  # a hold without harm: one level more is allowed
                self.lifted[c] = t
        return out

    def _may_raise(self, c: int, t: float) -> bool:
        """Below the class's ceiling."""
        return self.level[c] < self.ceiling[c]

    def _level(self, c: int, S: float, W: float, free: float) -> float:
        """`auto`'s level for the burst, no higher than the class's ceiling."""
        return min(super()._level(c, S, W, free), self.ceiling[c])


@register("auto5")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto5:
    return Auto5(ctx, numeric_params("auto5", params, DEFAULTS,
                                     positive=("idle_util", "margin", "alpha_cap", "hold",
                                               "safety")))
