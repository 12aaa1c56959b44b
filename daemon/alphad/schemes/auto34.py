"""A candidate for the default: `auto18` whose safety rule's reference is measured again
while a raise holds.

`auto18`'s rules (raise a class's idle queues to what its bursts needed, decay, safety,
fallback; :mod:`alphad.schemes.auto`, :mod:`alphad.schemes.auto18`) with one change to the
safety rule's reference, the traffic's loss under DT. `auto18` measures it over the
intervals run as DT, and a raise that holds leaves none after it. Here, while any class is
raised, one interval in every PROBE_INTERVALS runs as DT (every queue at alpha_p, the
levels kept), and its loss fractions move the reference by the time between two such
intervals over HOLD_S; the safety rule judges a raise only once such an interval has been
measured since it began. No parameter is added: `auto18`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto import loss_fraction
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18

PROBE_INTERVALS = 10  # intervals: while a class is raised, one in this many runs as DT


class Auto34(Auto18):
    """`auto18` that runs one interval in PROBE_INTERVALS as DT to measure its reference."""

    name = "auto34"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        self.probe_s = PROBE_INTERVALS * ctx.interval  # s between two intervals run as DT
        super().__init__(ctx, p)

    def reset_state(self) -> None:
        super().reset_state()
        self.probing = False  # the interval being measured ran as DT for the reference
        self.last_probe = 0.0
        self.fresh = False  # a DT interval has been measured since the raise began

    def _backs_off(self, t: float) -> bool:
        return self.fresh and not self.probing and super()._backs_off(t)

    def _dt_loss(self, est: Estimates) -> list[list[float]]:
        """This interval's loss fractions per class on idle, then on busy queues (`auto`'s
        entries)."""
        i, P = self.idx, self.P
        d = est.drop_delta[i]
        pos = self.cls + P * (est.rate[i] >= self.p["idle_util"])
        dropped = np.bincount(pos, weights=d, minlength=2 * P)
        offered = np.bincount(pos, weights=est.tx_delta[i] + d, minlength=2 * P)
        frac = [loss_fraction(x, o) for x, o in zip(dropped, offered, strict=True)]
        return [frac[:P], frac[P:]]

    def __call__(self, est: Estimates) -> np.ndarray:
        probed = self.probing
        base = self.base
        out = super().__call__(est)  # no harm is judged on an interval run as DT
        self.probing = False
        if probed and self.t > 0.0 and any(self.level):  # not a fallback: DT's loss now
            w = min(self.probe_s / self.hold, 1.0)
            self.base = [[b + w * (n - b) for b, n in zip(br, nr, strict=True)]
                         for br, nr in zip(base, self._dt_loss(est), strict=True)]
            self.fresh = True
        if not any(self.level):  # DT runs: the first probe comes probe_s into a raise
            self.last_probe, self.fresh = self.t, False
        elif self.t - self.last_probe >= self.probe_s - self.interval / 2:
            self.probing, self.last_probe = True, self.t
            return self.alpha_q.copy()  # the next interval runs as DT
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto34:
    return Auto34(ctx, numeric_params("auto34", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
