"""A candidate for the default: `auto` whose safety rule steps down once per measurement.

`auto`'s four rules (raise, decay, safety, fallback; :mod:`alphad.schemes.auto`) with one
change to the third. The harm it measures, each class's loss, is averaged over ``hold``:
after a step down it still shows the level before the step for about ``hold``. `auto`
judges it again every interval, so at short intervals one harm steps a raised class down
to alpha_p (and the next burst raises it again). `auto8` steps the raised classes down at
most once per ``hold``, and judges the new level on loss measured at it. Where the
interval is ``hold`` or longer it decides as `auto`. Its parameters are `auto`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import DEFAULTS, POSITIVE, Auto


class Auto8(Auto):
    """`auto` whose safety rule steps down at most once per ``hold``."""

    name = "auto8"

    def reset_state(self) -> None:
        super().reset_state()
        self.last_backoff = -math.inf  # when the safety rule last stepped down

    def _backs_off(self, t: float) -> bool:
        if t - self.last_backoff < self.hold:  # the loss average still shows the old level
            return False
        self.last_backoff = t
        return True


@register("auto8")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto8:
    return Auto8(ctx, numeric_params("auto8", params, DEFAULTS, positive=POSITIVE))
