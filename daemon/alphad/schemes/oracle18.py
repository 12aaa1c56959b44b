"""`oracle18`: `auto18` told which classes carry incast; a harness probe, never a switch.

It measures what `auto18`'s burst test costs it: bursts count only in the classes named by
the bitmask ``classes`` (bit c: class c), which the harness takes from the scenario it
runs. Every other rule, parameter and fixed value is `auto18`'s; with every class named it
writes `auto18`'s alphas.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS as AUTO18_DEFAULTS
from alphad.schemes.auto18 import FIXED, POSITIVE, Auto18

ALL = 255.0  # bitmask: classes 0-7, every class `auto` manages (MAX_CLASSES)
DEFAULTS: dict[str, float] = {**AUTO18_DEFAULTS, "classes": ALL}  # classes: bit c = class c


class Oracle18(Auto18):
    """`auto18` whose bursts count only in the classes it is told carry incast."""

    name = "oracle18"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        mask = self.p.setdefault("classes", ALL)
        if mask != int(mask) or not 0 < mask <= ALL:
            raise ValueError(f"scheme {self.name}: classes must be a bitmask of classes, "
                             f"1 to {ALL:g} (got {mask:g})")
        self.told = (int(mask) >> self.cls) & 1 == 1  # per managed queue, in class order

    def _not_starved(self, burst: np.ndarray, est: Estimates) -> np.ndarray:
        return super()._not_starved(burst, est) & self.told


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18:
    return Oracle18(ctx, numeric_params("oracle18", params, DEFAULTS, positive=POSITIVE,
                                        fixed=FIXED))
