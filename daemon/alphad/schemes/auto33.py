"""`auto33`: `auto32` whose safety rule reads only the idle queues of the classes it does
not raise.

`auto32` backs off when a class that is not raised loses SAFETY times its DT level on its
idle queues or on its busy queues. `auto33` keeps the idle side only: the loss of short
flows and bursts on otherwise quiet queues, the cost a raise puts on the other classes'
short flows. Sustained flows on busy queues are left to TCP. It has `auto18`'s parameters
and fixed values, and no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE
from alphad.schemes.auto32 import Auto32

IDLE = 0  # the idle side of the (idle 0 or busy 1, class) harm entries


class Auto33(Auto32):
    """`auto32` whose harm is the loss on idle queues of the classes that are not raised."""

    name = "auto33"

    def _harm(self) -> list[tuple[int, int]]:
        """`auto32`'s harm entries on idle queues only."""
        return [(i, c) for i, c in super()._harm() if i == IDLE]


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto33:
    return Auto33(ctx, numeric_params("auto33", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
