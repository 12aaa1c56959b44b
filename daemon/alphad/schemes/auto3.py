"""A candidate for the default, under design: `auto` that knows the scheduler, raises for
bursts that recur, and undoes (and does not retry for a while) what others pay for.

Every interval each managed queue is *idle* (it sent less than ``idle_util`` of line rate)
or *busy*. An idle queue that dropped at least ``burst_frac`` of the bytes offered to it
was hit by a burst when its port had ``idle_util`` of line rate to spare and the queues
its scheduler serves first (``priorities[].strict``) sent less than that together:
sustained flows keep their queue busy, TCP loses a far smaller share of a window than a
burst that overflows a threshold does, and a starved queue loses to bandwidth that no
buffer gives it. Per class (level k: alpha = alpha_p 2^k):

1. **Raise** a class with a burst, and another within ``hold`` before it (a burst seen
   once predicts nothing), to the level its biggest burst needed, at least one more,
   never above ``alpha_cap``: a burst of S = peak + drops beside the rest of the
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
   class goes back to alpha_p and is not raised again for ``hold``.
4. **Fallback**: a gap of more than STALE_INTERVALS intervals between samples, or a counter
   reset, returns every queue to alpha_p and forgets the history. Unmanaged queues are
   never touched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes.auto import Auto

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


class Auto3(Auto):
    """`auto`'s state and interval step, with its scheduler and retry rules."""

    name = "auto3"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, {**DEFAULTS, **p})
        ahead = ctx.classes.ahead()  # [a, c]: class a is served before class c
        # per managed queue, the classes its scheduler serves first (None: no strict priority)
        self.ahead_m = ahead[:, self.cls].T.astype(np.float64) if ahead.any() else None
        self.port_cls = self.port_m * self.P + self.cls  # (port, class) of each managed queue

    def _not_starved(self, burst: np.ndarray, est: Estimates) -> np.ndarray:
        """Bursts on queues whose strict-priority elders sent less than idle_util together."""
        if self.ahead_m is None:
            return burst
        P = self.P
        per = np.bincount(self.port_cls, weights=est.rate[self.idx],
                          minlength=self.n_ports * P).reshape(self.n_ports, P)
        j = np.flatnonzero(burst)
        first = (per[self.port_m[j]] * self.ahead_m[j]).sum(axis=1)  # line rate served first
        burst[j[first >= self.p["idle_util"]]] = False
        return burst

    def reset_state(self) -> None:
        super().reset_state()
        self.sighted = [-math.inf] * self.P  # last interval in which the class had a burst

    def _recurring(self, bursty: list[bool], t: float) -> list[bool]:
        """Bursts of classes that had one in the last ``hold`` too: one predicts nothing."""
        out = [b and t - s <= self.hold for b, s in zip(bursty, self.sighted, strict=True)]
        self.sighted = [t if b else s for b, s in zip(bursty, self.sighted, strict=True)]
        return out

    def _backed_off(self, k: float) -> float:
        """Straight back to alpha_p: the raise costs the other traffic."""
        return 0.0

    def _may_raise(self, c: int, t: float) -> bool:
        """Not within ``hold`` of a step down by the safety rule."""
        return t - self.last_backoff[c] >= self.hold


def _factory(name: str, cls: type[Auto3]) -> Callable[[SchemeContext, Mapping[str, Any]], Auto3]:
    def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto3:
        p = numeric_params(name, params, DEFAULTS,
                           positive=("idle_util", "margin", "alpha_cap", "hold", "safety"))
        if math.isinf(p.get("alpha_cap", 1.0)):
            raise ValueError(f"scheme {name}: alpha_cap must be finite")
        return cls(ctx, p)

    make.__module__ = cls.__module__  # docs read the scheme's module (its docstring)
    return make


make = register("auto3")(_factory("auto3", Auto3))

# Ablations: `auto3` without one of its rules (that hook back to `auto`'s), for the suite.
ABLATIONS = {"scheduler": "_not_starved", "recurrence": "_recurring", "reset": "_backed_off",
             "retry": "_may_raise"}
for _rule, _hook in ABLATIONS.items():
    _name = f"auto3-no-{_rule}"
    _cls = type(f"Auto3No{_rule.title()}", (Auto3,), {"name": _name, _hook: getattr(Auto, _hook)})
    _make = _factory(_name, _cls)
    _make.ablation_of = "auto3"  # type: ignore[attr-defined]
    register(_name)(_make)
