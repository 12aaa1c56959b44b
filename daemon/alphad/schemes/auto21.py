"""`auto21`: `auto18` that remembers the level that absorbed a class's bursts.

`auto18` (:mod:`alphad.schemes.auto18`) raises a class whose burst was lost to what DT's
admission rule says the burst needed, and its safety rule steps every raised class down a
level on each interval of harm. A lost burst's size counts its drops, so that need can
exceed any alpha (the cap); and a back-off can step below the level that absorbed the
bursts, so the next one is lost and the class returns to the cap. Here each class keeps
the level its absorbed bursts needed, ``absorbed`` (an idle queue's peak beyond what
alpha_p admits, in an interval without a lost burst in the class, by the same rule):

1. **Raise to it**: a burst lost below ``absorbed`` raises the class to ``absorbed``
   at most; a burst lost at or above it forgets it.
2. **Back off to it**: the safety rule steps a class down to ``absorbed`` and not below
   until the harm has lasted HOLD_S (every interval since harmful); then it steps down
   as in `auto18` and ``absorbed`` follows the level down.
3. Decay is `auto18`'s: it keeps a level while the class's idle peaks in the last HOLD_S
   needed it, and a class that decays below ``absorbed`` keeps it for the next raise.

It has `auto18`'s parameters and fixed values, and no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18


class Auto21(Auto18):
    """`auto18` that raises and backs off to the level that absorbed the bursts."""

    name = "auto21"

    def reset_state(self) -> None:
        super().reset_state()
        self.absorbed = [0.0] * self.P  # level the class's absorbed bursts needed (0: none)
        self.harm_start: float | None = None  # s: first interval of the current harm
        self._harm_now = False
        self._before = list(self.level)

    def _raised(self, c: int, need: float) -> float:
        k = super()._raised(c, need)
        if self.absorbed[c] > self._before[c]:  # lost below the level that absorbed
            return min(k, self.absorbed[c])
        self.absorbed[c] = 0.0  # lost at or above it: it no longer absorbs
        return k

    def _backs_off(self, t: float) -> bool:
        self._harm_now = True
        if self.harm_start is None:
            self.harm_start = t
        return True

    def __call__(self, est: Estimates) -> np.ndarray:
        self._before = list(self.level)  # the levels in force while est was measured
        self._harm_now = False
        out = super().__call__(est)
        if self.t == 0.0:  # stale or reset: reset_state ran
            return out
        level, before, t = self.level, self._before, self.t
        if not self._harm_now:
            self.harm_start = None
        lasted = self.harm_start is not None and t - self.harm_start >= self.hold
        held = False
        for c in range(self.P):
            if self._harm_now and level[c] < min(before[c], self.absorbed[c]):
                if lasted:  # harm that lasted: the absorbing level harms, follow it down
                    self.absorbed[c] = level[c]
                else:
                    level[c] = min(before[c], self.absorbed[c])
                    held = True
        q = self.need.q
        lost = np.zeros(self.P, dtype=bool)
        lost[self.cls[self._burst]] = True
        for c in range(self.P):  # an idle peak beyond alpha_p, none lost, at a raised level
            if (before[c] > 0 and not lost[c] and q[c] and q[c][-1][0] == t
                    and q[c][-1][1] > 0):
                self.absorbed[c] = max(self.absorbed[c], min(q[c][-1][1], before[c]))
        if held:
            self._set_out()
            out = self.out.copy()
            busy = self.idx[~self._idle]
            out[busy] = self.alpha_q[busy]
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto21:
    return Auto21(ctx, numeric_params("auto21", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
