"""`oracle18-evidence`: `oracle18-fresh` whose safety rule judges a raise once its reference
stands for enough DT; a harness probe, never a switch.

`oracle18-fresh` judges a raise only once an interval run as DT has been measured since it
began, so every raise has a grace of PROBE_S, even one made after seconds of DT. Here the
reference counts the DT it stands for: each interval run as DT with no class raised adds
its length, and each probe the time its weight stands for (PROBE_S, at most HOLD_S). A
raise is judged once the reference stands for PROBE_S of DT, whenever that DT ran: the
first raise of a run waits for its probe; a raise after a second of DT is judged at once.

One switch, 0 or 1:

- ``quiet`` 1: harm returns every raised class to alpha_p at once, and no class is raised
  for HOLD_S after it (`auto20`'s back-off), instead of a level per interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_fresh import PROBE_S, Oracle18Fresh
from alphad.schemes.oracle18_rules import DEFAULTS as RULES_DEFAULTS
from alphad.schemes.oracle18_rules import Oracle18Rules, check_switches

SWITCHES: dict[str, float] = {"quiet": 0.0}
DEFAULTS: dict[str, float] = {**RULES_DEFAULTS, **SWITCHES}  # switches: 0 off, 1 on


class Oracle18Evidence(Oracle18Fresh):
    """`oracle18-fresh` that judges a raise once its reference stands for PROBE_S of DT."""

    name = "oracle18-evidence"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        check_switches(self.name, self.p, SWITCHES)

    def reset_state(self) -> None:
        super().reset_state()
        self.ref_s = 0.0  # s: the DT the reference stands for
        self.dt_until = -1.0  # s: with quiet, no raise before this time (the last harm + hold)

    def _backs_off(self, t: float) -> bool:
        if self.ref_s < PROBE_S - self.interval / 2 or not Oracle18Rules._backs_off(self, t):
            return False
        self.dt_until = t + self.hold
        return True

    def __call__(self, est: Estimates) -> np.ndarray:
        probed, ran_dt = self.probing, not any(self.level)
        out = super().__call__(est)
        if self.t > 0.0:  # not a fallback: what the interval added to the reference
            if probed:
                self.ref_s += min(PROBE_S, self.hold)  # the probe's weight PROBE_S / hold
            elif ran_dt:
                self.ref_s += est.dt
        if self.p["quiet"] and self.t < self.dt_until and any(self.level):
            self.level = [0.0] * self.P  # harm: DT, every class at alpha_p
            self.probing = False
            self._set_out()
            out = self.out.copy()
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Evidence:
    return Oracle18Evidence(ctx, numeric_params("oracle18-evidence", params, DEFAULTS,
                                                positive=POSITIVE, fixed=FIXED))
