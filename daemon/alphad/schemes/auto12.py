"""A candidate for the default: `auto9` whose raise, once it costs, ends.

`auto9`'s rules (raise on idle queues only, decay, safety, fallback;
:mod:`alphad.schemes.auto`, :mod:`alphad.schemes.auto9`) with the safety rule's answer
changed: when the other classes lose ``safety`` times what they lose under DT, every raised
class goes back to its operator alpha at once (rather than one level down), and is not
raised again for ``hold``. A raise that costs is no longer paid for one level per interval
while it winds down, and a burst test that keeps firing on a class whose raise costs does
not raise it again within the window over which harm is measured. Same parameters as
`auto9`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE
from alphad.schemes.auto9 import DEFAULTS, Auto9


class Auto12(Auto9):
    """`auto9` whose safety rule returns the raised classes to alpha_p for ``hold``."""

    name = "auto12"

    def reset_state(self) -> None:
        super().reset_state()
        self.backed = [-math.inf] * self.P  # when harm last sent each class back to alpha_p
        self._harmed: list[bool] = []  # the classes raised when harm was seen this interval

    def _backs_off(self, t: float) -> bool:
        self._harmed = [k > 0 for k in self.level]
        return True

    def _raised(self, c: int, need: float) -> float:
        if self.t - self.backed[c] < self.hold:  # sent back within hold: no raise
            return self.level[c]
        return super()._raised(c, need)

    def __call__(self, est: Estimates) -> np.ndarray:
        self._harmed = []
        out = super().__call__(est)
        if any(self._harmed):  # harm: every raised class back to alpha_p, as DT
            for c, h in enumerate(self._harmed):
                if h:
                    self.level[c] = 0.0
                    self.backed[c] = self.t
            self._set_out()
            out = self.out.copy()
        return out


@register("auto12")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto12:
    return Auto12(ctx, numeric_params("auto12", params, DEFAULTS, positive=POSITIVE))
