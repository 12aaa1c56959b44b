"""A candidate for the default: `auto9` that measures DT before it raises.

`auto9`'s rules (raise on idle queues only, decay, safety, fallback;
:mod:`alphad.schemes.auto`, :mod:`alphad.schemes.auto9`) with one more: no class is raised
until DT has run for ``hold`` since the start or the last fallback. The safety rule judges
a raise by what each class loses under DT averaged over ``hold``; a raise on the first
intervals leaves it a reference of one interval, in which a class that lost nothing makes
any later loss harm whatever ``safety`` says. Same parameters as `auto9`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE
from alphad.schemes.auto9 import DEFAULTS, Auto9


class Auto14(Auto9):
    """`auto9` that raises only once its reference covers ``hold`` of DT."""

    name = "auto14"

    def reset_state(self) -> None:
        super().reset_state()
        self.dt_run = 0.0  # s run as DT since the start or the last fallback

    def _raised(self, c: int, need: float) -> float:
        if self.dt_run < self.hold:  # no reference yet: no raise
            return self.level[c]
        return super()._raised(c, need)

    def __call__(self, est: Estimates) -> np.ndarray:
        if not any(self.level):  # this interval is run as DT (a fallback resets the sum)
            self.dt_run += est.dt
        return super().__call__(est)


@register("auto14")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto14:
    return Auto14(ctx, numeric_params("auto14", params, DEFAULTS, positive=POSITIVE))
