"""A candidate for the default: `auto` that never raises past what a burst can use.

`auto`'s four rules (raise, decay, safety, fallback; :mod:`alphad.schemes.auto`) with one
change to the first. A burst S that no alpha admits (S_m >= F + W: it is bigger than the
free buffer its queue could ever reach, DT's admission rule, FB Eq. 6-8) raises its class
to the first level, 2 alpha_p, if it is below it, and no further: `auto` takes such a
burst to ``alpha_cap``, where the class holds nearly all the free buffer, still drops,
and leaves the other classes none. Idle peaks that no alpha admits hold no raise
either (in `auto` they hold the cap). Its parameters are `auto`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import DEFAULTS, POSITIVE, Auto

NO_LEVEL = -1.0  # _level's answer for a burst no alpha admits: below every level, it keeps none


class Auto7(Auto):
    """`auto` whose raise for a burst that no alpha admits is one level, not the cap."""

    name = "auto7"

    def _unadmitted(self, c: int) -> float:
        return NO_LEVEL

    def _raised(self, c: int, need: float) -> float:
        if need == NO_LEVEL:  # no alpha admits it: alpha_p's first level at most
            return max(self.level[c], 1.0)
        return super()._raised(c, need)


@register("auto7")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto7:
    return Auto7(ctx, numeric_params("auto7", params, DEFAULTS, positive=POSITIVE))
