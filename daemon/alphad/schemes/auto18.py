"""`auto18`: raise the alpha of a class's idle queues when its bursts overflow, to exactly
what DT's admission rule says they needed, and back off when the raise costs others.

Every interval each managed queue is *idle* (it sent less than ``idle_util`` of line rate)
or *busy*. An idle queue that dropped at least ``burst_frac`` of the bytes offered to it,
on a port with at least ``idle_util`` of line rate to spare, was hit by a burst. Per class
(level k: alpha = alpha_p 2^k; :mod:`alphad.schemes.auto` has each rule's reasoning):

1. **Raise** a class with a burst to the level its biggest burst needed, at least one
   more, never above ``alpha_cap``: a burst of S = peak + drops beside free buffer F was
   admitted while S < alpha (F - S), so it needed S / (F - S) (ABM Eq. 5; FB Eq. 6-8).
2. **Only idle queues take it.** A busy queue of a raised class (sustained flows) keeps
   alpha_p, so it cannot grow to the raised threshold and take the free buffer from every
   other queue. A queue follows its state each interval.
3. **Decay**: a class without a burst for HOLD_S seconds steps down one level per
   HOLD_S, unless its idle queues' peaks in the last HOLD_S still needed the level.
4. **Safety**: each class's loss fraction on idle and on busy queues, averaged over
   HOLD_S, is compared with the same average over the intervals run as DT. While any class
   is raised, if a class that is not raised loses SAFETY times that on its idle queues,
   or any class does on its busy queues (and at least LOSS_MIN), every raised class
   steps down one level.
5. **Fallback**: stale telemetry or a counter reset returns every queue to alpha_p and
   forgets the history. Unmanaged queues are never touched.

It is `auto9` with ``margin`` 1 and ``hold``, ``safety`` and ``loss_min`` fixed: its
parameters are the three whose ablations move the suite's figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import POSITIVE as AUTO_POSITIVE
from alphad.schemes.auto9 import DEFAULTS as AUTO9_DEFAULTS
from alphad.schemes.auto9 import Auto9

HOLD_S = 2.0  # s: a class without bursts this long steps down a level; the loss averages' time
SAFETY = 2.0  # factor: others' loss over their DT level that means a raise harms them
LOSS_MIN = 0.001  # fraction of bytes: a loss below it is never harm
# Values of `auto9`'s parameters that are not parameters here: the raise is S / (F - S)
# itself (margin 1), and the constants above (their ablations: docs/how-auto-works.md).
FIXED: dict[str, float] = {"margin": 1.0, "hold": HOLD_S, "safety": SAFETY,
                           "loss_min": LOSS_MIN}
# `auto9`'s other parameters (each one's unit beside it in alphad.schemes.auto)
DEFAULTS: dict[str, float] = {k: v for k, v in AUTO9_DEFAULTS.items() if k not in FIXED}
POSITIVE = tuple(k for k in AUTO_POSITIVE if k in DEFAULTS)  # must be > 0


class Auto18(Auto9):
    """`auto9` whose raise is exactly what DT's admission rule says a burst needed."""

    name = "auto18"


@register("auto18")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto18:
    return Auto18(ctx, numeric_params("auto18", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
