"""A candidate for the default, under design: `auto` that knows the scheduler.

Every interval each managed queue is *idle* (it sent less than ``idle_util`` of line rate)
or *busy*. An idle queue that dropped at least ``burst_frac`` of the bytes offered to it
was hit by a burst when its port had ``idle_util`` of line rate to spare and the queues
its scheduler serves first (``priorities[].strict``) sent less than that together:
sustained flows keep their queue busy, TCP loses a far smaller share of a window than a
burst that overflows a threshold does, and a starved queue loses to bandwidth that no
buffer gives it. Per class (level k: alpha = alpha_p 2^k):

1. **Raise** a class with a burst to the level its biggest burst needed, at least one
   more, never above ``alpha_cap``: a burst of S = peak + drops beside the rest of the
   pool (free buffer F at the pool's peak, plus the queue's own peak) is admitted while
   S < alpha (F - S), so it needed ``margin`` S / (F - S) (ABM Eq. 5; FB Eq. 6-8).
2. **Decay**: a class without a burst for ``hold`` seconds steps down one level per
   ``hold``, unless the peaks of its idle queues in the last ``hold`` still needed the
   level by the same rule.
3. **Safety**: each class's loss fraction on its idle queues (short flows, bursts) and on
   its busy queues (sustained flows) is averaged over ``hold``, and apart over the
   intervals in which no class was raised: what the traffic loses under DT. While any
   class is raised, if a class that is not raised loses ``safety`` times that on its idle
   queues, or any class does on its busy queues (and at least ``loss_min``), every raised
   class steps down one level.
4. **Fallback**: a gap of more than STALE_INTERVALS intervals between samples, or a counter
   reset, returns every queue to alpha_p and forgets the history. Unmanaged queues are
   never touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import Auto
from alphad.schemes.auto3 import Auto3

DEFAULTS: dict[str, float] = {
    "idle_util": 0.1,  # fraction of line rate: a queue sending less is idle, a port not
    # sparing that much is saturated, strict-priority queues sending that much starve others
    "burst_frac": 0.02,  # fraction of its bytes an idle queue drops when a burst overflows it
    "margin": 1.25,  # factor over the alpha a burst needed (FB Eq. 8 transient)
    "alpha_cap": 16.0,  # highest alpha a raise reaches
    "hold": 2.0,  # s: without bursts this long a raised class steps down one level
    "safety": 2.0,  # factor: others' loss over their level before the raise means harm
    "loss_min": 0.001,  # fraction of bytes: a loss below it is never harm
}


class Auto4(Auto3):
    """`auto3`'s starvation test on `auto`: every other hook is `auto`'s."""

    name = "auto4"
    _recurring = Auto._recurring
    _backed_off = Auto._backed_off
    _may_raise = Auto._may_raise


@register("auto4")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto4:
    p = numeric_params("auto4", params, DEFAULTS,
                       positive=("idle_util", "margin", "alpha_cap", "hold", "safety"))
    return Auto4(ctx, {**DEFAULTS, **p})
