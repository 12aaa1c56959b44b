"""`auto31`: `auto18` whose safety rule judges a raise by the classes it leaves alone.

`auto18`'s safety rule backs off when a class that is not raised loses on its idle queues,
or when any class, raised ones included, loses on its busy queues (each against its loss
under DT). `auto31` judges both sides on the same classes: those the decision leaves at
alpha_p, neither raised nor hit by a burst of their own in the interval (such a class is
raised by the same decision, rule 2 of :mod:`alphad.schemes.auto18`). A raised class's
busy queues keep alpha_p, so what they lose beside the class's raised idle queues is a
trade inside the class; a class's own burst is evidence of its own need. What the rule
protects is the traffic of the other classes, short flows and sustained flows alike. It
is :mod:`alphad.schemes.auto32` with the second exception, and has `auto18`'s parameters
and fixed values, and no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE
from alphad.schemes.auto32 import Auto32


class Auto31(Auto32):
    """`auto32` that does not judge a class with a burst of its own either."""

    name = "auto31"

    def _judged(self) -> list[bool]:
        """Per class, whether its loss can show harm: it is at alpha_p and had no burst of
        its own in this interval."""
        judged = super()._judged()
        for c in set(self.cls[self._burst].tolist()):
            judged[c] = False
        return judged


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto31:
    return Auto31(ctx, numeric_params("auto31", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
