"""`auto9`: raise the alpha of a class's idle queues when its bursts overflow,
by what DT's admission rule says they needed, and back off when the raise costs others.

Every interval each managed queue is *idle* (it sent less than ``idle_util`` of line rate)
or *busy*. An idle queue that dropped at least ``burst_frac`` of the bytes offered to it,
on a port with at least ``idle_util`` of line rate to spare, was hit by a burst. Per class
(level k: alpha = alpha_p 2^k; :mod:`alphad.schemes.auto` has each rule's reasoning):

1. **Raise** a class with a burst to the level its biggest burst needed, at least one
   more, never above ``alpha_cap``: a burst of S = peak + drops beside free buffer F was
   admitted while S < alpha (F - S), so it needed ``margin`` S / (F - S) (ABM Eq. 5;
   FB Eq. 6-8).
2. **Only idle queues take it.** Bursts are seen on idle queues only; a busy queue of a
   raised class (sustained flows) keeps alpha_p, so it cannot grow to the raised threshold
   and take the free buffer from every other queue. A queue follows its state each interval.
3. **Decay**: a class without a burst for ``hold`` seconds steps down one level per
   ``hold``, unless its idle queues' peaks in the last ``hold`` still needed the level.
4. **Safety**: each class's loss fraction on idle and on busy queues, averaged over
   ``hold``, is compared with the same average over the intervals run as DT. While any class
   is raised, if a class that is not raised loses ``safety`` times that on its idle queues,
   or any class does on its busy queues (and at least ``loss_min``), every raised class
   steps down one level.
5. **Fallback**: stale telemetry or a counter reset returns every queue to alpha_p and
   forgets the history. Unmanaged queues are never touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto import DEFAULTS as AUTO_DEFAULTS
from alphad.schemes.auto import POSITIVE, Auto

# `auto`'s parameters without idle_loss_min: on idle queues the safety rule's floor is loss_min
DEFAULTS: dict[str, float] = {k: v for k, v in AUTO_DEFAULTS.items() if k != "idle_loss_min"}


class Auto9(Auto):
    """`auto` whose raised alphas go to the class's idle queues only."""

    name = "auto9"

    def __call__(self, est: Estimates) -> np.ndarray:
        out = super().__call__(est)
        if any(self.level):  # the masks are this interval's: a raise runs class_loss
            busy = self.idx[~self._idle]
            out[busy] = self.alpha_q[busy]
        return out


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto9:
    return Auto9(ctx, numeric_params("auto9", params, DEFAULTS, positive=POSITIVE))
