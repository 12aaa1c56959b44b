"""A candidate for the default: `auto37` whose raise goes to a class's idle queues only.

`auto37`'s rules (:mod:`alphad.schemes.auto37`: a burst raises its class to the cap; while a
class is raised one interval in PROBE_S runs as DT to measure the reference again; the loss
since the raise is judged over the intervals it was used in; harm returns every class to
alpha_p for HOLD_S, doubling with each harm in a row) with `auto18`'s rule 2:

1. **Only idle queues take the raise.** A busy queue of a raised class (it sent at least
   ``idle_util`` of line rate: sustained flows) keeps alpha_p, so it cannot grow to the
   raised threshold and take the free buffer from every other queue. A queue follows its
   state each interval.
2. **The raise's use** is read on the queues it reached: an interval joins the count since
   the raise only if a queue whose alpha was above alpha_p held more than alpha_p times the
   interval's lowest free buffer (more than DT's admission rule lets it hold,
   Choudhury-Hahne). A busy queue at its own DT threshold is not a use of the raise.

No parameter is added: `auto18`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, POSITIVE
from alphad.schemes.auto37 import FIXED, Auto37


class Auto38(Auto37):
    """`auto37` whose busy queues keep alpha_p while their class is raised."""

    name = "auto38"

    def reset_state(self) -> None:
        super().reset_state()
        self.written = self.alpha_q.copy()  # the alphas in force over the next interval

    def _counted(self, est: Estimates, raised: list[bool]) -> bool:
        i = self.idx
        took = self.written[i] > self.alpha_q[i]  # queues the raise reached
        # DT's admission rule (Choudhury-Hahne): a queue holds at most alpha_p * free
        return bool((took & (est.watermark[i] > self.alpha_q[i] * est.free)).any())

    def __call__(self, est: Estimates) -> np.ndarray:
        out = super().__call__(est)
        busy = self.idx[~self._idle]  # this interval's masks (`auto9`'s rule)
        out[busy] = self.alpha_q[busy]
        self.written = out.copy()
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto38:
    return Auto38(ctx, numeric_params("auto38", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
