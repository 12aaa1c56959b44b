"""`oracle18-fresh`: `oracle18-rules` whose safety rule's reference is measured again while
a raise holds; a harness probe, never a switch.

`auto`'s reference is the traffic's loss over the intervals run as DT, and a raise that
holds leaves none after it: at 100 ms the reference is often the first interval or two of
the run. Here, while any class is raised, one interval in every PROBE_S runs as DT (every
queue at alpha_p, the levels kept), and its loss fractions move the reference by
PROBE_S / HOLD_S: the reference follows the traffic as DT would meet it now. The safety
rule judges a raise only once such an interval has been measured since it began. Every
other rule and switch is `oracle18-rules`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto import loss_fraction
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_rules import DEFAULTS, Oracle18Rules

PROBE_S = 1.0  # s: while a class is raised, one interval in this long runs as DT


def split_loss(dropped: np.ndarray, offered: np.ndarray, P: int) -> list[list[float]]:
    """Loss fractions per class on idle, then on busy queues, from bytes laid out as
    `Oracle18Fresh._class_bytes` gives them."""
    frac = [loss_fraction(x, o) for x, o in zip(dropped, offered, strict=True)]
    return [frac[:P], frac[P:]]


class Oracle18Fresh(Oracle18Rules):
    """`oracle18-rules` that runs one interval per PROBE_S as DT to measure its reference."""

    name = "oracle18-fresh"

    def reset_state(self) -> None:
        super().reset_state()
        self.probing = False  # the interval being measured ran as DT for the reference
        self.last_probe = 0.0
        self.fresh = False  # a DT interval has been measured since the raise began

    def _backs_off(self, t: float) -> bool:
        return self.fresh and super()._backs_off(t)

    def _class_bytes(self, est: Estimates) -> tuple[np.ndarray, np.ndarray]:
        """This interval's bytes dropped and offered per class on idle queues (the first P
        entries), then on busy queues."""
        i, P = self.idx, self.P
        d = est.drop_delta[i]
        pos = self.cls + P * (est.rate[i] >= self.p["idle_util"])
        return (np.bincount(pos, weights=d, minlength=2 * P),
                np.bincount(pos, weights=est.tx_delta[i] + d, minlength=2 * P))

    def _dt_loss(self, est: Estimates) -> list[list[float]]:
        """This interval's loss fractions per class on idle, then on busy queues (`auto`'s
        entries)."""
        return split_loss(*self._class_bytes(est), self.P)

    def __call__(self, est: Estimates) -> np.ndarray:
        if self.probing:  # what DT loses now moves the reference; no harm test on it
            self.probing = False
            kept, base = self.level, self.base
            self.level = [0.0] * self.P
            super().__call__(est)
            if self.t > 0.0:  # not a fallback: keep the levels, and any raise just made
                self.level = [max(a, b) for a, b in zip(kept, self.level, strict=True)]
                w = min(PROBE_S / self.hold, 1.0)
                self.base = [[b + w * (n - b) for b, n in zip(br, nr, strict=True)]
                             for br, nr in zip(base, self._dt_loss(est), strict=True)]
                self.fresh = True
                self._set_out()
            return self.out.copy()
        out = super().__call__(est)
        if not any(self.level):  # DT runs: the first probe comes PROBE_S into a raise
            self.last_probe, self.fresh = self.t, False
        elif self.t - self.last_probe >= PROBE_S:
            self.probing, self.last_probe = True, self.t
            return self.alpha_q.copy()  # the next interval runs as DT
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Fresh:
    return Oracle18Fresh(ctx, numeric_params("oracle18-fresh", params, DEFAULTS,
                                             positive=POSITIVE, fixed=FIXED))
