"""A candidate for the default: `auto9` whose raise also reaches the busy queues that bursts hit.

`auto9` (:mod:`alphad.schemes.auto9`) writes a class's raise to its idle queues only, so
that sustained flows cannot grow to the raised threshold. A busy queue that carries the
class's bursts too (a leaf uplink, a spine downlink) loses the raise with it. `auto10`
lets a busy queue take the raise in an interval in which it dropped at least
``burst_frac`` of the bytes offered to it, the share that marks a burst on an idle queue:
sustained flows alone lose far less. Its parameters are `auto9`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad._kernels import TINY
from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE, Auto
from alphad.schemes.auto9 import DEFAULTS


class Auto10(Auto):
    """`auto` whose raised alphas go to idle queues and to busy queues that bursts hit."""

    name = "auto10"

    def __call__(self, est: Estimates) -> np.ndarray:
        out = super().__call__(est)
        if any(self.level):  # the masks are this interval's: a raise runs class_loss
            j = np.flatnonzero(~self._idle)
            q = self.idx[j]
            d = est.drop_delta[q]
            hit = d >= np.maximum(self.p["burst_frac"] * (est.tx_delta[q] + d), TINY)
            busy = q[~hit]
            out[busy] = self.alpha_q[busy]
        return out


@register("auto10")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto10:
    return Auto10(ctx, numeric_params("auto10", params, DEFAULTS, positive=POSITIVE))
