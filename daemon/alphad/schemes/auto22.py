"""`auto22`: `auto18` that remembers the lowest level that did not lose a class's bursts.

`auto18` (:mod:`alphad.schemes.auto18`) raises a class whose burst was lost to what DT's
admission rule says it needed, which at 1 s is mostly the cap, and then leaves the level
that absorbs the bursts on the safety rule's averages, which still hold the loss of the
higher levels before it, or on decay; the next burst is lost, and the class returns to
the cap. Here each class has a ``floor``: one level above the highest level at which it
lost a burst.

1. **Raise**: a class's first lost burst raises it as in `auto18`; a later one raises
   it to its floor, which is one level above the level that lost it at least.
2. **Stay**: the safety rule steps a class below its floor only if the harm also holds
   on the loss of the last HOLD_S measured since the levels last changed (the same
   test: SAFETY times the loss under DT, at least LOSS_MIN); the floor follows it down.
   Decay steps below the floor only once the class's idle queues have not peaked beyond
   what alpha_p admits (DT's admission rule) for HOLD_S; the floor stays for the next
   raise.

It has `auto18`'s parameters and fixed values, and no others.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18


class Auto22(Auto18):
    """`auto18` that raises to, and stays on, one level above the level that lost a burst."""

    name = "auto22"

    def reset_state(self) -> None:
        super().reset_state()
        P = self.P
        self.floor = [0.0] * P  # one above the highest level that lost a burst (0: none yet)
        # (time, loss fractions on idle and busy queues) of the intervals of the last HOLD_S
        # measured at the levels in force now
        self.fresh: deque[tuple[float, list[list[float]]]] = deque()
        self._harm_now = False
        self._before = list(self.level)

    def _lost_floor(self, c: int) -> float:
        """The floor after a burst lost at the level in force: one above it at least."""
        return min(max(self.floor[c], self._before[c] + 1), self.max_level[c])

    def _raised(self, c: int, need: float) -> float:
        if self.floor[c] > 0:  # not its first lost burst
            return self._lost_floor(c)
        return super()._raised(c, need)

    def _backs_off(self, t: float) -> bool:
        self._harm_now = True
        return True

    def _harm_since_change(self, raised: list[bool]) -> bool:
        """The safety rule's test on the loss averaged over the last HOLD_S, since the
        levels last changed."""
        p, n = self.p, len(self.fresh)
        idle, busy = ([sum(v[i][c] for _, v in self.fresh) / n for c in range(self.P)]
                      for i in (0, 1))
        over = [[a > p["safety"] * b and a >= p["loss_min"] for a, b in zip(r, br, strict=True)]
                for r, br in ((idle, self.base[0]), (busy, self.base[1]))]
        return any(o and not r for o, r in zip(over[0], raised, strict=True)) or any(over[1])

    def __call__(self, est: Estimates) -> np.ndarray:
        before = self._before = list(self.level)  # the levels in force while est was measured
        old, seen, w = [list(r) for r in self.loss], self.seen, min(est.dt / self.hold, 1.0)
        self._harm_now = False
        out = super().__call__(est)
        if self.t == 0.0:  # stale or reset: reset_state ran
            return out
        t, level, P = self.t, self.level, self.P
        # This interval's loss fractions, from the average `auto18` moved by w towards them.
        now = [[b if not seen else a + (b - a) / w for a, b in zip(ra, rb, strict=True)]
               for ra, rb in zip(old, self.loss, strict=True)]
        self.fresh.append((t, now))
        while t - self.fresh[0][0] >= self.hold:
            self.fresh.popleft()
        harm_here = self._harm_now and self._harm_since_change([k > 0 for k in before])
        peaked = [max((v for ts, v in q if t - ts <= self.hold), default=0.0) > 0
                  for q in self.need.q]  # an idle peak beyond alpha_p in the last HOLD_S
        held = False
        for c in range(P):
            stay = min(before[c], self.floor[c])
            if level[c] < stay:
                if harm_here:  # harm at these levels: the floor follows the class down
                    self.floor[c] = level[c]
                elif self._harm_now or peaked[c]:
                    level[c] = stay
                    held = True
        lost = np.zeros(P, dtype=bool)
        lost[self.cls[self._burst]] = True
        for c in np.flatnonzero(lost):  # a burst lost at the level in force
            self.floor[c] = self._lost_floor(c)
        if level != before:
            self.fresh.clear()
        if held:
            self._set_out()
            out = self.out.copy()
            busy = self.idx[~self._idle]
            out[busy] = self.alpha_q[busy]
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto22:
    return Auto22(ctx, numeric_params("auto22", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
