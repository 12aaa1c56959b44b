"""`auto11`: `auto9`, and while a class is raised, the queues that do not take the raise make
room for it: their alpha is at most ``room_alpha``.

`auto9` raises a class's idle queues when its bursts overflow (:mod:`alphad.schemes.auto9`
has the rules: raise, idle queues only, decay, safety, fallback). A burst of S is admitted
while S < alpha F, and under DT the free buffer F is what the congested queues leave:
with alphas a_i they hold a_i F each, so F = B / (1 + sum a_i) (DT; ABM Eq. 1-2). A class
at a high operator alpha (8: each congested queue holds 8 F) shrinks F for everyone, and
raising the burst class alone cannot win that buffer back. So while any class is raised:

1. **Make room**: every managed queue that does not take the raise (the busy queues of a
   raised class, every queue of a class that is not raised) runs at
   min(alpha_p, ``room_alpha``). Classes at or below ``room_alpha`` are untouched: the
   rule only lowers, and only while a raise is on.
2. When the raise decays, is backed off by the safety rule (which also sees the loss this
   costs the lowered classes' queues), or telemetry goes stale, every queue is back on
   its operator alpha.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE as AUTO_POSITIVE
from alphad.schemes.auto9 import DEFAULTS as AUTO9_DEFAULTS
from alphad.schemes.auto9 import Auto9

DEFAULTS: dict[str, float] = {
    **AUTO9_DEFAULTS,
    "room_alpha": 1.0,  # alpha: highest alpha of a queue that does not take a raise, while one is on
}
POSITIVE = (*AUTO_POSITIVE, "room_alpha")  # must be > 0


class Auto11(Auto9):
    """`auto9` whose raises are paid for by the other queues' alpha, down to ``room_alpha``."""

    name = "auto11"

    def __call__(self, est: Estimates) -> np.ndarray:
        out = super().__call__(est)
        if any(self.level):
            raised = np.asarray(self.level)[self.cls] > 0
            rest = self.idx[~(raised & self._idle)]  # the queues that do not take the raise
            out[rest] = np.minimum(self.alpha_q[rest], self.p["room_alpha"])
        return out


@register("auto11")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto11:
    return Auto11(ctx, {**DEFAULTS, **numeric_params("auto11", params, DEFAULTS, positive=POSITIVE)})
