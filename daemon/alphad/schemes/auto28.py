"""`auto28`: `auto18` whose raise must pay the raised class.

A raise costs the other classes the buffer it lets a burst hold; it buys something only if
the raised class loses less. `auto18` (:mod:`alphad.schemes.auto18`) raises a class whose
burst was lost to what DT's admission rule says it needed, at most ``alpha_cap``. When a
queue of the class was at the cap during an interval and a burst still overflowed it, and
the class's idle queues lost at least 1 / SAFETY of what they lost in an interval with a
burst at alpha_p (averaged over HOLD_S of such intervals, as the safety rule averages), no
alpha the controller may write absorbs those
bursts: the class returns to alpha_p at once and is not raised again until it has gone
HOLD_S without a burst. Otherwise it decides as `auto18`; fallback forgets the bars with
the rest of the history. It has `auto18`'s parameters and fixed values, and no others.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto import loss_fraction
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, SAFETY, Auto18


class Auto28(Auto18):
    """`auto18` that returns a class to alpha_p while its bursts overflow the cap."""

    name = "auto28"

    def reset_state(self) -> None:
        super().reset_state()
        self.barred = [False] * self.P  # the class's bursts overflow the cap: alpha_p
        self.burst_t = [-math.inf] * self.P  # the class's last burst (s)
        self.wrote = self.alpha_q.copy()  # the alphas written for the interval measured next
        self.burst_loss = [math.nan] * self.P  # idle loss in intervals with a burst at alpha_p
        self.forgot = True  # the history was just forgotten (fallback)

    def _burst_loss(self, c: int, wrote: np.ndarray, lost: float, w: float) -> bool:
        """Class c was hit by a burst that lost ``lost`` of its idle queues' bytes, under
        the alphas ``wrote`` (per managed queue in class order): whether no alpha absorbs
        its bursts. At alpha_p the loss moves the class's average by w; at the cap it is
        compared with that average."""
        of_c = self.cls == c
        if np.array_equal(wrote[of_c], self.alpha_q[self.idx][of_c]):
            old = self.burst_loss[c]
            self.burst_loss[c] = lost if math.isnan(old) else old + w * (lost - old)
            return False
        cap = self.alpha_q[self.idx] * 2.0 ** self.max_level[c]
        return bool((self._burst & of_c & (wrote >= cap)).any()
                    and lost >= self.burst_loss[c] / SAFETY)

    def _lifts(self, c: int, hit: bool, est: Estimates) -> bool:
        """Whether the bar of class c, barred before this interval, lifts (``hit``: a burst
        hit it): after HOLD_S without a burst, its traffic has changed."""
        return not hit and self.t - self.burst_t[c] >= self.hold

    def __call__(self, est: Estimates) -> np.ndarray:
        wrote, self.forgot = self.wrote, False
        out = super().__call__(est)
        if self.forgot:  # stale telemetry or a counter reset: plain DT
            self.wrote = out.copy()
            return out
        wrote = wrote[self.idx]
        w = min(est.dt / self.hold, 1.0)
        drop = est.drop_delta[self.idx].astype(float)
        offered = drop + est.tx_delta[self.idx]
        zeroed = [False] * self.P  # classes returned to alpha_p this interval
        for c in range(self.P):
            hit, was = bool((self._burst & (self.cls == c)).any()), self.barred[c]
            if hit:
                idle = self._idle & (self.cls == c)
                lost = loss_fraction(float(drop[idle].sum()), float(offered[idle].sum()))
                futile = self._burst_loss(c, wrote, lost, w)
                self.barred[c] = was or (self.max_level[c] > 0 and futile)
                self.burst_t[c] = self.t
            if self.barred[c] and self.level[c] > 0:
                self.level[c] = 0.0  # no alpha it may write absorbs its bursts: alpha_p
                zeroed[c] = True
            if was and self._lifts(c, hit, est):
                self.barred[c] = False  # from the next interval on, raised as `auto18`
        if any(zeroed):
            self._set_out()
            mask = np.asarray(zeroed)[self.cls]
            out[self.idx[mask]] = self.alpha_q[self.idx[mask]]
        self.wrote = out.copy()
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto28:
    return Auto28(ctx, numeric_params("auto28", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
