"""`oracle18-memo`: `oracle18-since` whose back-off remembers the raises that harmed and
whose count keeps only the intervals a raise was used in; a harness probe, never a switch.

Its base is `oracle18-since` raising to the cap, with the quiet back-off, no floor of harm
on busy queues and the loss counted since the raise (``at_cap``, ``quiet``, ``since`` 1,
``busy_floor`` 0). There harm holds DT for HOLD_S and the next burst raises again, so
where every raise harms, a class is raised for much of the run. Two switches, 0 or 1:

- ``memory`` 1: each harm in a row doubles the DT hold (HOLD_S, 2 HOLD_S, 4 HOLD_S, at
  most 2^MAX_DOUBLINGS HOLD_S); a raise that ends by decay, unharmed, clears the count.
- ``used`` 1: an interval joins the count since the raise only if a queue of a raised
  class held more than its alpha_p times the interval's lowest free buffer, more than
  DT's admission rule lets it hold; in the other intervals the raise admitted nothing DT
  would not have, and a loss there is the traffic's, not the raise's.

With both switches 0 it writes `oracle18-since`'s alphas under the same four switches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_rules import check_switches
from alphad.schemes.oracle18_since import DEFAULTS as SINCE_DEFAULTS
from alphad.schemes.oracle18_since import Oracle18Since

MAX_DOUBLINGS = 5  # harms in a row beyond which the DT hold stops growing (32 HOLD_S)
BASE: dict[str, float] = {"at_cap": 1.0, "quiet": 1.0, "busy_floor": 0.0, "since": 1.0}
SWITCHES: dict[str, float] = {"memory": 1.0, "used": 1.0}
DEFAULTS: dict[str, float] = {**SINCE_DEFAULTS, **BASE, **SWITCHES}  # switches: 0 off, 1 on


class Oracle18Memo(Oracle18Since):
    """`oracle18-since` with a back-off that doubles on each harm in a row and a count of
    the intervals a raise was used in."""

    name = "oracle18-memo"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, {**BASE, **p})
        check_switches(self.name, self.p, SWITCHES)

    def reset_state(self) -> None:
        super().reset_state()
        self.harms = 0  # harms in a row, since a raise last ended by decay

    def _counted(self, est: Estimates, raised: list[bool]) -> bool:
        if not self.p["used"]:
            return True
        i = self.idx
        up = np.asarray(raised)[self.cls]  # managed queues of a raised class
        # DT's admission rule (Choudhury-Hahne): a queue holds at most alpha_p * free
        return bool((up & (est.watermark[i] > self.alpha_q[i] * est.free)).any())

    def _quiet_hold(self) -> float:
        if not self.p["memory"]:
            return self.hold
        return self.hold * 2.0 ** min(self.harms, MAX_DOUBLINGS)

    def __call__(self, est: Estimates) -> np.ndarray:
        was_raised, until = any(self.level), self.dt_until
        out = super().__call__(est)
        if self.t == 0.0:  # a fallback: reset_state cleared the count
            return out
        if self.dt_until != until:  # harm: the next one holds DT twice as long
            self.harms += 1
        elif was_raised and not any(self.level) and not self.probing:
            self.harms = 0  # the raise ended by decay, unharmed
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Memo:
    return Oracle18Memo(ctx, numeric_params("oracle18-memo", params, DEFAULTS,
                                            positive=POSITIVE, fixed=FIXED))
