"""`oracle18-since`: `oracle18-floor` whose safety rule can judge the loss since a raise
began; a harness probe, never a switch.

`auto`'s safety rule judges each class's loss averaged over HOLD_S, an average that began
before the raise: a raise that harms is seen only once its own intervals outweigh the DT
before it, one to two seconds in. Here the loss is counted from the raise: the bytes each
class dropped over those offered to it, on idle and on busy queues, over the intervals run
raised since the classes last left DT (probes, run as DT, are not counted). It is judged
against the same reference, with the same factor, floors and evidence as `oracle18-floor`.
One switch, 0 or 1:

- ``since`` 1: the loss since the raise began is judged, and the HOLD_S average is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_floor import DEFAULTS as FLOOR_DEFAULTS
from alphad.schemes.oracle18_floor import Oracle18Floor
from alphad.schemes.oracle18_fresh import PROBE_S, split_loss
from alphad.schemes.oracle18_rules import check_switches

SWITCHES: dict[str, float] = {"since": 0.0}
DEFAULTS: dict[str, float] = {**FLOOR_DEFAULTS, **SWITCHES}  # switches: 0 off, 1 on


class Oracle18Since(Oracle18Floor):
    """`oracle18-floor` whose safety rule can count the loss from the raise's start."""

    name = "oracle18-since"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        check_switches(self.name, self.p, SWITCHES)

    def reset_state(self) -> None:
        super().reset_state()
        self.dropped = np.zeros(2 * self.P)  # bytes per class, idle then busy, since the raise
        self.offered = np.zeros(2 * self.P)  # ... offered

    def _backs_off(self, t: float) -> bool:
        return not self.p["since"] and super()._backs_off(t)

    def _counted(self, est: Estimates, raised: list[bool]) -> bool:
        """Whether an interval run raised joins the count since the raise."""
        return True

    def _since_backs_off(self, raised: list[bool]) -> bool:
        """The harm test on the loss since the raise began."""
        return self._harmed(self._since_loss(), raised)

    def _since_loss(self) -> list[list[float]]:
        """Loss fractions per class on idle, then on busy queues, since the raise began."""
        return split_loss(self.dropped, self.offered, self.P)

    def _quiet_hold(self) -> float:
        """s: how long harm holds DT, with ``quiet``."""
        return self.hold

    def __call__(self, est: Estimates) -> np.ndarray:
        probed, raised = self.probing, [k > 0 for k in self.level]
        out = super().__call__(est)
        if not self.p["since"] or self.t == 0.0 or probed:  # off, a fallback, or run as DT
            return out
        if not any(raised):  # the interval ran as DT: a raise starts its count afresh
            self.dropped[:] = 0.0
            self.offered[:] = 0.0
            return out
        if not self._counted(est, raised):
            return out
        d, o = self._class_bytes(est)
        self.dropped += d
        self.offered += o
        if (any(self.level) and self.ref_s >= PROBE_S - self.interval / 2
                and self._since_backs_off(raised)):
            if self.p["quiet"]:  # every class to alpha_p, no raise for HOLD_S
                self.level = [0.0] * self.P
                self.dt_until = self.t + self._quiet_hold()
            else:
                for c in range(self.P):
                    if self.level[c] > 0:
                        self.level[c] = max(self.level[c] - 1, 0.0)
                        self.last_step[c] = self.t
            self._set_out()
            out = self.alpha_q.copy() if self.probing else self.out.copy()
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Since:
    return Oracle18Since(ctx, numeric_params("oracle18-since", params, DEFAULTS,
                                             positive=POSITIVE, fixed=FIXED))
