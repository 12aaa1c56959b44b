"""`auto30`: `auto18` that raises no class served after busy strict-priority traffic.

Under strict priority a queue is served only while the queues its scheduler serves first
are empty. A raise lets a class's queues hold a burst's bytes until then, and those bytes
are the pool's free buffer, of which every queue's threshold is made: where a class served
first carries sustained flows, the raise takes their room for as long as they keep the
port busy. So a burst counts (and raises its class) only while no class that the scheduler
serves before it (``priorities[].strict``) has a busy queue, one sending at least
``idle_util`` of line rate, on any port of the switch. Without strict priority it decides
as `auto18` (:mod:`alphad.schemes.auto18`). It has `auto18`'s parameters and fixed values,
and no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18


class Auto30(Auto18):
    """`auto18` whose bursts count only while the classes served first are idle."""

    name = "auto30"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        ahead = ctx.classes.ahead()  # [a, c]: class a is served before class c
        self.ahead = ahead if ahead.any() else None

    def _not_starved(self, burst: np.ndarray, est: Estimates) -> np.ndarray:
        """The bursts of classes that no busy class is served before (this interval's
        masks: ``_idle`` is per managed queue, in class order, as ``burst``)."""
        if self.ahead is None:
            return burst
        busy = np.zeros(self.P, dtype=bool)
        busy[self.cls[~self._idle]] = True  # classes with a queue at idle_util or more
        behind = self.ahead[busy].any(axis=0)  # classes served after one of them
        burst[behind[self.cls]] = False
        return burst


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto30:
    return Auto30(ctx, numeric_params("auto30", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
