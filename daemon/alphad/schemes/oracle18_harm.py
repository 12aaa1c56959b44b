"""`oracle18-harm`: `oracle18-rules` with two harm tests of fewer false alarms behind
switches; a harness probe, never a switch.

The safety rule trips when one (class, idle or busy) entry's loss, averaged over HOLD_S, is
over SAFETY times its reference (the same average over the intervals run as DT). Each
switch is 0 or 1 and adds a condition, so a firing here is also one of `oracle18-rules`;
with both off it writes `oracle18-rules`' alphas:

- ``pooled`` 1: the tripped entries' traffic as a whole must lose over SAFETY times its
  reference too: the loss fractions of the idle queues of the classes not raised, and of
  every class's busy queues, weighted by the bytes each class offered there (averaged over
  HOLD_S), against the references weighted alike (`auto15`'s test, one comparison per kind
  of queue instead of one per class);
- ``spread`` 1: an entry trips only beyond its reference by SPREAD_Z standard deviations of
  what DT's spread allows the average to move: the variance of the per-interval loss
  fractions while DT runs (their mean and mean square averaged over HOLD_S), scaled to an
  average over HOLD_S of independent intervals (w / (2 - w), w the weight per interval).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto import MIN_BYTES, loss_fraction
from alphad.schemes.oracle18 import FIXED, POSITIVE
from alphad.schemes.oracle18_rules import DEFAULTS as RULES_DEFAULTS
from alphad.schemes.oracle18_rules import Oracle18Rules, check_switches

SWITCHES: dict[str, float] = {"pooled": 0.0, "spread": 0.0}
DEFAULTS: dict[str, float] = {**RULES_DEFAULTS, **SWITCHES}  # switches: 0 off, 1 on
SPREAD_Z = 3.0  # standard deviations of DT's spread a loss must exceed its reference by


class Oracle18Harm(Oracle18Rules):
    """`oracle18-rules` whose harm test can be pooled over classes or widened by DT's spread."""

    name = "oracle18-harm"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        check_switches(self.name, self.p, SWITCHES)

    def reset_state(self) -> None:
        super().reset_state()
        self.offered = np.zeros(2 * self.P)  # bytes per class on idle, then busy queues
        # mean and mean square of the per-interval loss fractions while DT runs, idle then busy
        self.dt_mean, self.dt_sq = np.zeros(2 * self.P), np.zeros(2 * self.P)
        self.dt_seen = False
        self._w = 1.0

    def _trips(self) -> list[tuple[int, int]]:
        """The (idle 0 or busy 1, class) entries over SAFETY times their reference (and
        at least LOSS_MIN; idle entries only of classes not raised), beyond DT's spread
        where ``spread`` is on."""
        p, raised = self.p, [k > 0 for k in self.level]
        scale = self._w / (2.0 - self._w)  # variance of an average moved by w per interval
        out = []
        for i in (0, 1):
            for c in range(self.P):
                lo, ba = self.loss[i][c], self.base[i][c]
                if not (lo > p["safety"] * ba and lo >= p["loss_min"]) or (i == 0 and raised[c]):
                    continue
                if p["spread"]:
                    j = i * self.P + c
                    var = max(self.dt_sq[j] - self.dt_mean[j] ** 2, 0.0)
                    sd = math.sqrt(var * scale)
                    if not lo > ba + SPREAD_Z * sd:
                        continue
                out.append((i, c))
        return out

    def _pooled_over(self, i: int, weight: np.ndarray) -> bool:
        """Whether entries ``i`` (idle 0, busy 1) weighted by ``weight`` (bytes per class)
        lose over SAFETY times their references weighted alike, and at least LOSS_MIN."""
        total = float(weight.sum())
        if total < MIN_BYTES:  # too little offered to tell
            return False
        now = float(weight @ np.asarray(self.loss[i])) / total
        ref = float(weight @ np.asarray(self.base[i])) / total
        return now > self.p["safety"] * ref and now >= self.p["loss_min"]

    def _backs_off(self, t: float) -> bool:
        trips = self._trips()
        if not trips:
            return False
        if self.p["pooled"]:
            P = self.P
            w_idle = self.offered[:P].copy()
            w_idle[np.asarray(self.level) > 0] = 0.0  # idle queues of classes not raised
            kinds = {i for i, _ in trips}
            if not ((0 in kinds and self._pooled_over(0, w_idle))
                    or (1 in kinds and self._pooled_over(1, self.offered[P:]))):
                return False
        return super()._backs_off(t)

    def __call__(self, est: Estimates) -> np.ndarray:
        i, P = self.idx, self.P
        self._w = w = min(est.dt / self.hold, 1.0)
        d, tx = est.drop_delta[i], est.tx_delta[i]
        busy = est.rate[i] >= self.p["idle_util"]  # as `auto` tells idle queues
        pos = self.cls + P * busy
        offered = np.bincount(pos, weights=tx + d, minlength=2 * P)
        self.offered += w * (offered - self.offered)
        if not any(self.level):  # DT runs: the per-interval losses' mean square
            dropped = np.bincount(pos, weights=d, minlength=2 * P)
            frac = np.array([loss_fraction(x, o) for x, o in zip(dropped, offered, strict=True)])
            wd = w if self.dt_seen else 1.0
            self.dt_mean += wd * (frac - self.dt_mean)
            self.dt_sq += wd * (frac * frac - self.dt_sq)
            self.dt_seen = True
        return super().__call__(est)


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Harm:
    return Oracle18Harm(ctx, numeric_params("oracle18-harm", params, DEFAULTS,
                                            positive=POSITIVE, fixed=FIXED))
