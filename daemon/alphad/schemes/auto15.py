"""A candidate for the default: `auto14` whose safety rule weighs all the other traffic at once.

`auto14`'s rules (raise on idle queues only once DT has run for ``hold``, decay, safety,
fallback; :mod:`alphad.schemes.auto`, :mod:`alphad.schemes.auto9`,
:mod:`alphad.schemes.auto14`) with one change to the safety rule: a class over ``safety``
times its reference is harm only when the traffic it belongs to is too. The classes'
loss fractions, on the idle queues of the classes not raised and on every class's busy
queues, are averaged with the bytes each class offered there (averaged over ``hold`` as the
losses are) as weights, once for the current averages and once for the references; harm is
the first over ``safety`` times the second (and at least ``loss_min``). One comparison per
kind of queue instead of one per class, so noise in one small class no longer ends every
raise. Same parameters as `auto9`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import MIN_BYTES, POSITIVE
from alphad.schemes.auto9 import DEFAULTS
from alphad.schemes.auto14 import Auto14


class Auto15(Auto14):
    """`auto14` whose harm is judged on the byte-weighted loss of the other traffic."""

    name = "auto15"

    def _over(self, weight: np.ndarray, loss: list[float], base: list[float]) -> bool:
        """Whether the loss fraction weighted by ``weight`` (bytes per class) is over
        ``safety`` times the reference weighted alike, and at least ``loss_min``."""
        total = float(weight.sum())
        if total < MIN_BYTES:  # too little offered to tell
            return False
        now = float(weight @ np.asarray(loss)) / total
        ref = float(weight @ np.asarray(base)) / total
        return now > self.p["safety"] * ref and now >= self.p["loss_min"]

    def reset_state(self) -> None:
        super().reset_state()
        self.offered = np.zeros(2 * self.P)  # bytes per class on idle, then busy queues
        # (EWMA over hold)

    def _backs_off(self, t: float) -> bool:
        P = self.P
        w_idle = self.offered[:P].copy()
        w_idle[np.asarray(self.level) > 0] = 0.0  # only the classes not raised, on idle queues
        return (self._over(w_idle, self.loss[0], self.base[0])
                or self._over(self.offered[P:], self.loss[1], self.base[1]))

    def __call__(self, est: Estimates) -> np.ndarray:
        i = self.idx
        busy = est.rate[i] >= self.p["idle_util"]  # as `auto` tells idle queues
        now = np.bincount(self.cls + self.P * busy, weights=est.tx_delta[i] + est.drop_delta[i],
                          minlength=2 * self.P)  # bytes offered (tx + drop)
        now -= self.offered
        now *= min(est.dt / self.hold, 1.0)
        self.offered += now
        return super().__call__(est)


@register("auto15")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto15:
    return Auto15(ctx, numeric_params("auto15", params, DEFAULTS, positive=POSITIVE))
