"""`oracle18-busy`: `oracle18` whose raise reaches the busy queues of a raised class too;
a harness probe, never a switch.

It measures what `auto18`'s idle-only rule costs it once the burst class is known: every
queue of a raised class takes the class's level (`auto`'s rule), where `oracle18` keeps a
busy queue at alpha_p. Every other rule, parameter and fixed value is `oracle18`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto import Auto
from alphad.schemes.oracle18 import DEFAULTS, FIXED, POSITIVE, Oracle18


class Oracle18Busy(Oracle18):
    """`oracle18` without the idle-only rule."""

    name = "oracle18-busy"

    def __call__(self, est: Estimates) -> np.ndarray:
        return Auto.__call__(self, est)  # `auto9`'s override keeps busy queues at alpha_p


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Busy:
    return Oracle18Busy(ctx, numeric_params("oracle18-busy", params, DEFAULTS,
                                            positive=POSITIVE, fixed=FIXED))
