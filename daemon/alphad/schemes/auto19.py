"""`auto19`: `auto18`, and when a class at its cap still overflows, the sustained flows of
every class make room: their busy queues' alpha steps down towards ``alpha_floor``.

A burst of S beside free buffer F is admitted while S < alpha (F - S): once alpha is at
``alpha_cap``, only a larger F helps, and under DT each busy queue holds alpha F of it.
Rules 1-5 are `auto18`'s (raise, idle queues only, decay, safety, fallback); then:

6. **Make room**: an interval in which a class at ``alpha_cap`` has a burst lowers every
   busy queue one level more (alpha_p 2^-j), never below ``alpha_floor`` nor its class's
   alpha_p once that is lower. Idle queues (short flows, bursts) keep their alpha.
7. **Return**: without such a burst for ``hold`` seconds busy queues rise one level per
   ``hold``; all at once when no class is raised any more.
8. **Safety first on the cut**: harm on busy queues (rule 4's test) while they are cut
   raises them one level and leaves the raised classes where they are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto18 import DEFAULTS as AUTO18_DEFAULTS
from alphad.schemes.auto18 import FIXED, Auto18
from alphad.schemes.auto18 import POSITIVE as AUTO18_POSITIVE

DEFAULTS: dict[str, float] = {
    **AUTO18_DEFAULTS,  # each one's unit beside it in alphad.schemes.auto
    "alpha_floor": 0.25,  # lowest alpha a busy queue is cut to while bursts need room
}
POSITIVE = (*AUTO18_POSITIVE, "alpha_floor")  # must be > 0


class Auto19(Auto18):
    """`auto18` whose busy queues give up buffer while a class at its cap overflows."""

    name = "auto19"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        floor = max(self.p["alpha_floor"], ctx.quantizer.alpha_min)
        # Per class, how many levels its busy queues may be cut: alpha_p 2^-j >= floor.
        cuts = [max(math.floor(math.log2(lo / floor)), 0) for lo in self.low]
        self.max_cut = np.array([*cuts, 0], dtype=np.float64)  # unmanaged queues last

    def reset_state(self) -> None:
        super().reset_state()
        self.cut = 0.0  # levels the busy queues are lowered
        self.last_room = -math.inf  # last interval with a burst at the cap
        self.last_cut = -math.inf  # last cut or return step

    def _harm(self) -> tuple[bool, bool]:
        """Rule 4's test: (a class not raised loses ``safety`` times its DT level on idle
        queues, any class does on busy queues), each at least ``loss_min``."""
        safety, floor = self.p["safety"], self.p["loss_min"]
        over = [[lo > safety * ba and lo >= floor for lo, ba in zip(lr, br, strict=True)]
                for lr, br in zip(self.loss, self.base, strict=True)]
        idle = any(o and not k for o, k in zip(over[0], self.level, strict=True))
        return idle, any(over[1])

    def _backs_off(self, t: float) -> bool:
        idle, busy = self._harm()
        if self.cut > 0 and busy:  # the cut costs the sustained flows: undo it first
            self.cut -= 1
            self.last_cut = t
            return idle
        return True

    def __call__(self, est: Estimates) -> np.ndarray:
        before = list(self.level)  # the levels this interval's traffic saw
        out = super().__call__(est)
        if not any(self.level):  # nothing raised (or a fallback): no room to make
            self.cut = 0.0
            return out
        t = self.t
        bursty = np.zeros(self.P + 1, dtype=bool)
        bursty[self.cls[self._burst]] = True
        if any(bursty[c] and before[c] >= self.max_level[c] for c in range(self.P)):
            self.last_room = t
            if self.last_cut < t and self.cut < self.max_cut.max():
                self.cut += 1
                self.last_cut = t
        elif (self.cut > 0 and t - self.last_room >= self.hold
              and t - self.last_cut >= self.hold):
            self.cut -= 1
            self.last_cut = t
        if self.cut:
            busy = self.idx[~self._idle]
            j = np.minimum(self.cut, self.max_cut[self.cls_q[busy]])
            out[busy] = self.alpha_q[busy] * 2.0 ** -j
        return out


@register("auto19")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto19:
    return Auto19(ctx, {**DEFAULTS,
                        **numeric_params("auto19", params, DEFAULTS, positive=POSITIVE),
                        **FIXED})
