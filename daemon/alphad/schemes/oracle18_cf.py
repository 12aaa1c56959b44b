"""`oracle18-cf`: `oracle18-memo` told what DT loses on the same arrivals; a harness probe,
never a switch.

`oracle18-memo`'s safety rule compares the loss since a raise began with a reference it
measures itself, from the intervals it ran as DT and from probes that run an interval as
DT while a raise holds. Here the reference is the counterfactual: the harness runs a twin
of the simulation at the operator's alphas on the same arrivals, in step, and tells the
scheme each interval's estimates (``tell_dt``). The loss since the raise is judged against
the twin's loss over the same intervals, by the same test, factor and floors; no probe
runs. It measures what a telemetry that showed the counterfactual would give the rule. The
twin is DT on another trajectory once the raise changes the traffic, so its noise is the
placebo's. One switch, 0 or 1:

- ``cf`` 1: the twin's loss is the reference and no probe runs; 0: `oracle18-memo`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_fresh import split_loss
from alphad.schemes.oracle18_memo import DEFAULTS as MEMO_DEFAULTS
from alphad.schemes.oracle18_memo import Oracle18Memo
from alphad.schemes.oracle18_rules import check_switches

SWITCHES: dict[str, float] = {"cf": 1.0}
DEFAULTS: dict[str, float] = {**MEMO_DEFAULTS, **SWITCHES}  # switches: 0 off, 1 on


class Oracle18Cf(Oracle18Memo):
    """`oracle18-memo` whose harm test's reference is DT's loss on the same arrivals."""

    name = "oracle18-cf"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        check_switches(self.name, self.p, SWITCHES)
        self.tells_dt = bool(self.p["cf"])  # the harness runs the twin for it

    def reset_state(self) -> None:
        super().reset_state()
        self.cf_dropped = np.zeros(2 * self.P)  # the twin's bytes per class, idle then busy,
        self.cf_offered = np.zeros(2 * self.P)  # over the intervals counted since the raise
        self._dt: tuple[np.ndarray, np.ndarray] | None = None  # this interval's, as told

    def tell_dt(self, est: Estimates) -> None:
        """DT's estimates of the interval the next call decides on."""
        self._dt = self._class_bytes(est)

    def _counted(self, est: Estimates, raised: list[bool]) -> bool:
        counted = super()._counted(est, raised)
        if counted and self.p["cf"] and self._dt is not None:
            self.cf_dropped += self._dt[0]
            self.cf_offered += self._dt[1]
        return counted

    def _since_backs_off(self, raised: list[bool]) -> bool:
        if not self.p["cf"]:
            return super()._since_backs_off(raised)
        base, self.base = self.base, split_loss(self.cf_dropped, self.cf_offered, self.P)
        try:
            return self._harmed(self._since_loss(), raised)
        finally:
            self.base = base

    def __call__(self, est: Estimates) -> np.ndarray:
        if self.p["cf"]:
            self.last_probe = math.inf  # no probe: the twin is the reference
            self.ref_s = math.inf  # and it stands for DT at once
            if not any(self.level):  # DT runs: a raise starts both counts afresh
                self.cf_dropped[:] = 0.0
                self.cf_offered[:] = 0.0
        out = super().__call__(est)
        self._dt = None
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Cf:
    return Oracle18Cf(ctx, numeric_params("oracle18-cf", params, DEFAULTS,
                                          positive=POSITIVE, fixed=FIXED))
