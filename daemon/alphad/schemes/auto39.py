"""A probe of `auto38`'s 1 s loss of gain: DT measured again in one raised interval in ten,
not one per PROBE_S; a harness candidate, never a switch.

`auto38` (and `auto37`) run one interval in PROBE_S (1 s) as DT while a class is raised,
to measure the safety rule's reference again. At 100 ms that is one interval in ten; at
1 s it is every other interval, so a raise holds half of the time at most. Here a probe
comes at most once in PROBE_S and at most once in 1 / PROBE_SHARE intervals, whichever is
longer: at 100 ms and faster it writes `auto38`'s alphas, at 1 s it probes once in 10 s.
The probe's weight in the reference, and every other rule, are `auto38`'s. No parameter
is added: `auto18`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, POSITIVE
from alphad.schemes.auto37 import FIXED
from alphad.schemes.auto38 import Auto38
from alphad.schemes.oracle18_fresh import PROBE_S

PROBE_SHARE = 0.1  # fraction of a raise's intervals at most that run as DT for the reference


class Auto39(Auto38):
    """`auto38` whose probes of DT take at most one raised interval in ten."""

    name = "auto39"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        self.probe_every = max(PROBE_S, self.interval / PROBE_SHARE)  # s between probes

    def __call__(self, est: Estimates) -> np.ndarray:
        last = self.last_probe
        out = super().__call__(est)
        if self.probing and self.t - last < self.probe_every:  # too soon: no probe
            self.probing, self.last_probe = False, last
            out = self.out.copy()
            busy = self.idx[~self._idle]  # `auto38`'s idle-only rule on the raised alphas
            out[busy] = self.alpha_q[busy]
            self.written = out.copy()
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto39:
    return Auto39(ctx, numeric_params("auto39", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
