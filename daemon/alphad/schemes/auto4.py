"""A candidate for the default: `auto` that knows the scheduler.

`auto`'s four rules (raise, decay, safety, fallback; :mod:`alphad.schemes.auto`) with one
more test of a burst: an idle queue's loss is a burst only when the queues its scheduler
serves first (``priorities[].strict``) sent less than ``idle_util`` of line rate together.
A queue behind busier strict-priority queues is starved, and no buffer gives it bandwidth.
Without strict priority it decides as `auto`. Its parameters are `auto`'s without
``idle_loss_min``: on idle queues the safety rule's floor is ``loss_min``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto import DEFAULTS as AUTO_DEFAULTS
from alphad.schemes.auto import POSITIVE, Auto

# `auto`'s parameters without idle_loss_min: on idle queues the safety rule's floor is loss_min
DEFAULTS: dict[str, float] = {k: v for k, v in AUTO_DEFAULTS.items() if k != "idle_loss_min"}


class Auto4(Auto):
    """`auto` whose burst test leaves out the queues starved by strict priority."""

    name = "auto4"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, {**DEFAULTS, **p})
        ahead = ctx.classes.ahead()  # [a, c]: class a is served before class c
        # per managed queue, the classes its scheduler serves first (None: no strict priority)
        self.ahead_m = ahead[:, self.cls].T.astype(np.float64) if ahead.any() else None
        self.port_cls = self.port_m * self.P + self.cls  # (port, class) of each managed queue

    def _not_starved(self, burst: np.ndarray, est: Estimates) -> np.ndarray:
        """Bursts on queues whose strict-priority elders sent less than idle_util together."""
        if self.ahead_m is None:
            return burst
        P = self.P
        per = np.bincount(self.port_cls, weights=est.rate[self.idx],
                          minlength=self.n_ports * P).reshape(self.n_ports, P)
        j = np.flatnonzero(burst)
        first = (per[self.port_m[j]] * self.ahead_m[j]).sum(axis=1)  # line rate served first
        burst[j[first >= self.p["idle_util"]]] = False
        return burst


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto4:
    return Auto4(ctx, numeric_params("auto4", params, DEFAULTS, positive=POSITIVE))
