"""`auto26`: `auto18` that leaves the queues sending at line rate the buffer their peaks
needed.

A queue that sends at line rate (at least 1 - ``idle_util`` of it) carries sustained
flows, and its threshold is what keeps them at that rate. DT admitted its peak W while
W < alpha (F - X), with F the pool's free buffer at its peak and X what a raise lets a
burst take of it (ABM Eq. 5; FB Eq. 6-8): where W / alpha >= F there is no room left
for X. In an interval in which a managed queue at line rate had no room left, no class
is raised and every raised class returns to alpha_p at once: a raise would take, or has
taken, the buffer those flows hold. Otherwise it decides as `auto18`
(:mod:`alphad.schemes.auto18`). It has `auto18`'s parameters and fixed values, and no
others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad._kernels import TINY
from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18


class Auto26(Auto18):
    """`auto18` that raises nothing while a queue at line rate has no room left."""

    name = "auto26"

    def reset_state(self) -> None:
        super().reset_state()
        self._full = False  # this interval: a queue at line rate had no room left

    def _no_room(self, est: Estimates) -> bool:
        """Whether a managed queue sent at line rate with a peak W >= alpha F."""
        line = self.managed & (est.rate >= 1.0 - self.p["idle_util"])
        if not line.any():
            return False
        alpha = np.maximum(est.sample.alpha[line], TINY)
        return bool(np.max(np.asarray(est.watermark, dtype=float)[line] / alpha) >= est.free)

    def _raised(self, c: int, need: float) -> float:
        return self.level[c] if self._full else super()._raised(c, need)

    def __call__(self, est: Estimates) -> np.ndarray:
        self._full = self._no_room(est)
        out = super().__call__(est)
        if self._full and any(self.level):  # the raise takes their buffer: alpha_p
            self.level = [0.0] * self.P
            self._set_out()
            out = self.out.copy()
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto26:
    return Auto26(ctx, numeric_params("auto26", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
