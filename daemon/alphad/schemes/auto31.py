"""`auto31`: `auto18` whose safety rule judges a raise by the classes it leaves alone.

`auto18`'s safety rule backs off when a class that is not raised loses on its idle queues,
or when any class, raised ones included, loses on its busy queues (each against its loss
under DT). `auto31` judges both sides on the same classes: those the decision leaves at
alpha_p, neither raised nor hit by a burst of their own in the interval (such a class is
raised by the same decision, rule 2 of :mod:`alphad.schemes.auto18`). A raised class's
busy queues keep alpha_p, so what they lose beside the class's raised idle queues is a
trade inside the class; a class's own burst is evidence of its own need. What the rule
protects is the traffic of the other classes, short flows and sustained flows alike. It
has `auto18`'s parameters and fixed values, and no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18


class Auto31(Auto18):
    """`auto18` whose harm is the loss of the classes neither raised nor bursting."""

    name = "auto31"

    def _harm(self) -> list[tuple[int, int]]:
        """The (idle 0 or busy 1, class) entries that show harm: a class left at alpha_p,
        without a burst of its own in this interval, that lost ``safety`` times its DT
        level (and at least ``loss_min``) on those queues. Read with this interval's levels
        and burst mask still in place."""
        p = self.p
        judged = [k == 0 for k in self.level]
        for c in set(self.cls[self._burst].tolist()):
            judged[c] = False
        return [(i, c) for i, (lr, br) in enumerate(zip(self.loss, self.base, strict=True))
                for c, (lo, ba) in enumerate(zip(lr, br, strict=True))
                if judged[c] and lo > p["safety"] * ba and lo >= p["loss_min"]]

    def _backs_off(self, t: float) -> bool:
        """Called where `auto18`'s wider test fired: whether `auto31`'s own does."""
        return bool(self._harm())

def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto31:
    return Auto31(ctx, numeric_params("auto31", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
