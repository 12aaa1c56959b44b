"""A candidate for the default: `auto34` whose safety rule judges a raise once its reference
stands for enough DT.

`auto34` measures the safety rule's reference, the traffic's loss under DT, again while a
raise holds (one interval in PROBE_INTERVALS runs as DT), and judges a raise only once such
an interval has been measured since it began: every raise has that grace, even one made
after seconds of DT. Here the reference counts the DT it stands for: an interval run as DT
with no class raised adds its length, a probe the time its weight stands for (the time
between two probes, at most HOLD_S). A raise is judged once the reference stands for as
much as one probe, whenever that DT ran: a run's first raise waits for its probe, a raise
after that much DT is judged at once. No parameter is added: `auto18`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18
from alphad.schemes.auto34 import Auto34


class Auto35(Auto34):
    """`auto34` that judges a raise once its reference stands for one probe of DT."""

    name = "auto35"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        self.probe_ref_s = min(self.probe_s, self.hold)  # s of DT a probe stands for

    def reset_state(self) -> None:
        super().reset_state()
        self.ref_s = 0.0  # s: the DT the reference stands for

    def _backs_off(self, t: float) -> bool:
        return (self.ref_s >= self.probe_ref_s - self.interval / 2 and not self.probing
                and Auto18._backs_off(self, t))

    def __call__(self, est: Estimates) -> np.ndarray:
        probed, ran_dt = self.probing, not any(self.level)
        out = super().__call__(est)
        if self.t > 0.0:  # not a fallback: what the interval added to the reference
            if probed and any(self.level):
                self.ref_s += self.probe_ref_s  # the probe's weight, probe_s / hold
            elif ran_dt:
                self.ref_s += est.dt
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto35:
    return Auto35(ctx, numeric_params("auto35", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
