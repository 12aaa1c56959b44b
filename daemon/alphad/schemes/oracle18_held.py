"""`oracle18-held`: `oracle18-rules` without the safety rule, a harness probe, never a switch.

It measures what the safety rule costs once the burst class is known and its busy queues
take the raise: a raise is never stepped down for harm, only by decay (``decay``) or a
fallback. Every other rule and switch is `oracle18-rules`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_rules import DEFAULTS, Oracle18Rules


class Oracle18Held(Oracle18Rules):
    """`oracle18-rules` whose raises the safety rule never steps down."""

    name = "oracle18-held"

    def _backs_off(self, t: float) -> bool:
        return False


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Held:
    return Oracle18Held(ctx, numeric_params("oracle18-held", params, DEFAULTS,
                                            positive=POSITIVE, fixed=FIXED))
