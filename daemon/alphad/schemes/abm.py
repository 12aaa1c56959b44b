"""ABM's per-queue factors as a DT alpha (ABM Eq. 9, Definition 1 / Eq. 13).

omega = alpha_p * gamma / n_p: n_p is the number of congested queues of the
priority switch-wide (congested: watermark >= 0.9 of the threshold the queue
had), gamma the queue's drain rate over its port's speed. Setting the DT alpha
of each queue to omega every interval is ABM's own proposal for DT hardware
(ABM §3.4). ABM's per-packet first-RTT priority (§3.3) cannot be expressed by
a per-queue alpha and is not part of this scheme.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, register


def abm_omega(alpha_q: np.ndarray, gamma: np.ndarray, n_p_q: np.ndarray) -> np.ndarray:
    """omega = alpha_p * gamma / n_p  (ABM Eq. 13)."""
    return alpha_q * gamma / n_p_q


class ABM:
    name = "abm"

    def __init__(self, ctx: SchemeContext) -> None:
        self._alpha = ctx.alpha_q.copy()
        self._prio = np.maximum(ctx.classes.prio, 0)

    def __call__(self, est: Estimates) -> np.ndarray:
        return abm_omega(self._alpha, est.gamma, est.n_p[self._prio])


@register("abm")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> ABM:
    if params:
        raise ValueError(f"scheme abm takes no parameters (got {', '.join(params)})")
    return ABM(ctx)
