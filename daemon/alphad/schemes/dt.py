"""Dynamic Thresholds with a static alpha per priority (ABM Eq. 5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, register


def dt_alpha(alpha_q: np.ndarray) -> np.ndarray:
    """T = alpha_p * (B - Q): the target is the operator's alpha (ABM Eq. 5)."""
    return alpha_q


class DT:
    name = "dt"

    def __init__(self, ctx: SchemeContext) -> None:
        self._alpha = ctx.alpha_q.copy()

    def __call__(self, est: Estimates) -> np.ndarray:
        return dt_alpha(self._alpha)


@register("dt")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> DT:
    if params:
        raise ValueError(f"scheme dt takes no parameters (got {', '.join(params)})")
    return DT(ctx)
