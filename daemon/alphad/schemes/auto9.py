"""A candidate for the default: `auto4` whose raise reaches only a class's idle queues.

`auto4`'s rules (`auto`'s raise, decay, safety and fallback, :mod:`alphad.schemes.auto`,
with the strict-priority starvation test, :mod:`alphad.schemes.auto4`) with one change to
where a raise applies. A raise is evidence about bursts, and bursts are seen only on idle
queues (sent less than ``idle_util`` of line rate). `auto` writes the raised alpha to
every queue of the class, so where the class also carries sustained flows their busy
queues grow to the raised threshold and take the free buffer from every other queue. In
`auto9` a queue of a raised class that was busy in the last interval stays at its
alpha_p; the idle ones get the raise. Its parameters are `auto4`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE
from alphad.schemes.auto4 import DEFAULTS, Auto4


class Auto9(Auto4):
    """`auto4` whose raised alphas go to the class's idle queues only."""

    name = "auto9"

    def __call__(self, est: Estimates) -> np.ndarray:
        out = super().__call__(est)
        if any(self.level):  # the masks are this interval's: a raise runs class_loss
            busy = self.idx[~self._idle]
            out[busy] = self.alpha_q[busy]
        return out


@register("auto9")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto9:
    return Auto9(ctx, numeric_params("auto9", params, DEFAULTS, positive=POSITIVE))
