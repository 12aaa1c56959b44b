"""A candidate for the default: `auto9` whose raise is bounded by what the burst needed.

`auto9`'s rules (raise on idle queues only, decay, safety, fallback;
:mod:`alphad.schemes.auto`, :mod:`alphad.schemes.auto9`) with one change to the raise. A
burst that no alpha admits beside the pool's occupancy at its peak (margin S >= F + W) is
raised to the level that admits it beside an otherwise empty pool, margin S / (B - margin S),
and at least one level, instead of to ``alpha_cap``: the rest of the pool is held by other
queues, which a higher alpha takes buffer from, and the lower bound is all the burst's own
size asks for. A burst that stays unadmitted raises its class one more level each interval
it recurs. Same parameters as `auto9`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from alphad._kernels import TINY
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE
from alphad.schemes.auto9 import DEFAULTS, Auto9


class Auto16(Auto9):
    """`auto9` that raises an unadmitted burst to what it needs beside an empty pool."""

    name = "auto16"

    def _level(self, c: int, S: float, W: float, free: float) -> float:
        self._S = S  # the burst ``_unadmitted`` is asked about
        return super()._level(c, S, W, free)

    def _unadmitted(self, c: int) -> float:
        Sm = self._S * self.p["margin"]
        room = self.B - Sm  # beside an empty pool: S_m < alpha (B - S_m) (DT, ABM Eq. 5)
        if not room > 0:
            return self.max_level[c]
        k = float(math.ceil(math.log2(max(Sm / room, TINY) / self.low[c])))
        return min(max(k, 0.0), self.max_level[c])


@register("auto16")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto16:
    return Auto16(ctx, numeric_params("auto16", params, DEFAULTS, positive=POSITIVE))
