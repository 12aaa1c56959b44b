"""FB / Plasticine approximated on DT hardware: the FBA controller (FB §5.2).

alpha_dt = alpha_c * (1/N_p) * gamma (FB Eq. 4): N_p counts the congested,
i.e. non-empty, queues of the class's priority group switch-wide, and gamma is
inferred from the scheduler: under round robin a port's capacity is split
equally among its active queues, so gamma = 1 / (active queues at the port).
A queue that is empty now is counted as if it became active.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, register


def fb_alpha(alpha_q: np.ndarray, gamma: np.ndarray, n_group_q: np.ndarray) -> np.ndarray:
    """alpha_dt = alpha_c * (1/N_p) * gamma  (FB Eq. 4, FBA §5.2)."""
    return alpha_q * gamma / n_group_q


def rr_gamma(active_at_port: np.ndarray, nonempty: np.ndarray) -> np.ndarray:
    """gamma = 1 / #active queues of the port under round robin (FB §5.1)."""
    return 1.0 / np.maximum(active_at_port + (~nonempty), 1)


class FB:
    name = "fb"

    def __init__(self, ctx: SchemeContext) -> None:
        self._alpha = ctx.alpha_q.copy()
        prio = np.maximum(ctx.classes.prio, 0)
        self._group = ctx.classes.group[prio]
        self._port = ctx.topo.queue_port

    def __call__(self, est: Estimates) -> np.ndarray:
        gamma = rr_gamma(est.active_per_port[self._port], est.nonempty)
        return fb_alpha(self._alpha, gamma, est.n_group[self._group])


@register("fb")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> FB:
    if params:
        raise ValueError(f"scheme fb takes no parameters (got {', '.join(params)})")
    return FB(ctx)
