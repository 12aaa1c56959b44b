"""`oracle18-floor`: `oracle18-evidence` whose safety rule's floor on busy queues can be
switched off; a harness probe, never a switch.

`auto`'s safety rule calls a loss harm only at LOSS_MIN of the bytes or more, on idle and
busy queues alike: a floor against the noise of a loss fraction. A busy queue is offered
enough bytes for its loss fraction to be measured far below it, and there a loss of
LOSS_MIN is many drops, each of them a timeout to the short flow it hits. One switch, 0 or
1 (the idle queues keep the floor):

- ``busy_floor`` 0: on busy queues any loss over SAFETY times its reference is harm.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_evidence import DEFAULTS as EVIDENCE_DEFAULTS
from alphad.schemes.oracle18_evidence import Oracle18Evidence
from alphad.schemes.oracle18_rules import check_switches

SWITCHES: dict[str, float] = {"busy_floor": 1.0}
DEFAULTS: dict[str, float] = {**EVIDENCE_DEFAULTS, **SWITCHES}  # switches: 0 off, 1 on


class Oracle18Floor(Oracle18Evidence):
    """`oracle18-evidence` with the busy queues' floor of harm behind a switch."""

    name = "oracle18-floor"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        check_switches(self.name, self.p, SWITCHES)
        if not self.p["busy_floor"]:  # `auto`'s floors: idle max(loss_min, idle_loss_min),
            # busy loss_min
            self.p["idle_loss_min"] = max(self.p["loss_min"], self.p["idle_loss_min"])
            self.p["loss_min"] = 0.0


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Floor:
    return Oracle18Floor(ctx, numeric_params("oracle18-floor", params, DEFAULTS,
                                             positive=POSITIVE, fixed=FIXED))
