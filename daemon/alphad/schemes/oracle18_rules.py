"""`oracle18-rules`: `oracle18-busy` with each of `auto18`'s dynamic rules behind a switch;
a harness probe, never a switch.

It measures what each rule costs once the burst class is known and its busy queues take
the raise. Each switch is 0 or 1; the defaults are `oracle18-busy`'s rules, so that
``oracle18-rules`` with no parameter writes `oracle18-busy`'s alphas:

- ``at_cap`` 1: a raise goes to the cap (``alpha_cap``), not to what the burst needed;
- ``decay`` 0: a raised class never steps down for want of bursts (the safety rule still
  steps it down);
- ``zero_ref`` 0: the safety rule ignores a class whose loss under DT (its reference) is
  zero: only a loss over a non-zero reference is harm;
- ``from_start`` 1: the told classes start at the cap in the first interval, as if a burst
  had just been seen there (after a fallback too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.oracle18 import DEFAULTS as ORACLE18_DEFAULTS
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_busy import Oracle18Busy

SWITCHES: dict[str, float] = {"at_cap": 0.0, "decay": 1.0, "zero_ref": 1.0, "from_start": 0.0}
DEFAULTS: dict[str, float] = {**ORACLE18_DEFAULTS, **SWITCHES}  # switches: 0 off, 1 on


def check_switches(scheme: str, p: dict[str, float], switches: Mapping[str, float]) -> None:
    """Each of ``switches`` set in ``p`` (its default where absent), refused unless 0 or 1."""
    for k, default in switches.items():
        v = p.setdefault(k, default)
        if v not in (0.0, 1.0):
            raise ValueError(f"scheme {scheme}: {k} must be 0 or 1 (got {v:g})")


class Oracle18Rules(Oracle18Busy):
    """`oracle18-busy` whose dynamic rules can each be switched."""

    name = "oracle18-rules"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        check_switches(self.name, self.p, SWITCHES)
        self._backed_off = False

    def _raised(self, c: int, need: float) -> float:
        if self.p["at_cap"]:
            return self.max_level[c]
        return super()._raised(c, need)

    def _trips(self, loss: list[list[float]], raised: list[bool]) -> list[tuple[int, int]]:
        """The (idle 0 or busy 1, class) entries of ``loss`` that `auto`'s harm test finds
        over the reference: others' idle loss, anyone's busy loss; with ``zero_ref`` 0,
        over non-zero references only."""
        p = self.p
        floors = (max(p["loss_min"], p["idle_loss_min"]), p["loss_min"])  # idle, busy
        return [(i, c) for i, (lr, br, floor) in enumerate(zip(loss, self.base, floors,
                                                               strict=True))
                for c, (lo, ba) in enumerate(zip(lr, br, strict=True))
                if lo > p["safety"] * ba and lo >= floor and (ba > 0 or p["zero_ref"])
                and (i == 1 or not raised[c])]

    def _harmed(self, loss: list[list[float]], raised: list[bool]) -> bool:
        """`auto`'s harm test on ``loss`` (per class on idle, then on busy queues)."""
        return bool(self._trips(loss, raised))

    def _backs_off(self, t: float) -> bool:
        if not self.p["zero_ref"] and not self._harmed(self.loss, [k > 0 for k in self.level]):
            return False  # `auto`'s test fired on a zero reference
        self._backed_off = True
        return True

    def __call__(self, est: Estimates) -> np.ndarray:
        if self.p["from_start"] and self.t == 0.0:
            for c in range(self.P):
                if self.told[self.cls == c].any():
                    self.level[c] = self.max_level[c]
                    self.last_burst[c] = self.last_step[c] = est.dt
            self._set_out()
        level, before = self.level, list(self.level)
        self._backed_off = False
        out = super().__call__(est)
        if not self.p["decay"] and self.level is level and not self._backed_off:
            decayed = [c for c in range(self.P) if level[c] < before[c]]
            if decayed:  # no back-off this interval: every step down was a decay
                for c in decayed:
                    level[c] = before[c]
                self._set_out()
                out = self.out.copy()
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Rules:
    return Oracle18Rules(ctx, numeric_params("oracle18-rules", params, DEFAULTS,
                                             positive=POSITIVE, fixed=FIXED))
