"""`auto32`: `auto18` whose safety rule judges a raise by the classes it does not raise.

`auto18`'s safety rule backs off when a class that is not raised loses on its idle queues,
or when any class, raised ones included, loses on its busy queues (each against its loss
under DT). `auto32` judges both sides on the classes that are not raised: a raised class's
busy queues keep alpha_p, so what they lose beside the class's raised idle queues is a
trade inside the class, not a cost to the others. A class that is not raised is judged
whether or not it bursts in the interval: its loss while others are raised may be the
harm the raise did. It is one of `auto31`'s two changes, without the other (the exception
of a class with a burst of its own). It has `auto18`'s parameters and fixed values, and
no others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, FIXED, POSITIVE, Auto18


class Auto32(Auto18):
    """`auto18` whose harm is the loss of the classes that are not raised."""

    name = "auto32"

    def _judged(self) -> list[bool]:
        """Per class, whether its loss can show harm: it is at alpha_p."""
        return [k == 0 for k in self.level]

    def _harm(self) -> list[tuple[int, int]]:
        """The (idle 0 or busy 1, class) entries that show harm: a judged class that lost
        ``safety`` times its DT level (and at least ``loss_min``) on those queues. Read
        with this interval's levels and burst mask still in place."""
        p = self.p
        judged = self._judged()
        return [(i, c) for i, (lr, br) in enumerate(zip(self.loss, self.base, strict=True))
                for c, (lo, ba) in enumerate(zip(lr, br, strict=True))
                if judged[c] and lo > p["safety"] * ba and lo >= p["loss_min"]]

    def _backs_off(self, t: float) -> bool:
        """Called where `auto18`'s wider test fired: whether `auto32`'s own does."""
        return bool(self._harm())


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto32:
    return Auto32(ctx, numeric_params("auto32", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
