"""`oracle18-shadow`: `oracle18-cf` told DT's loss by a drop counter instead of a twin; a
harness probe, never a switch.

`oracle18-cf` judges the loss since a raise against a twin simulation's, which is DT on
another trajectory once the raise changes the traffic. Here the reference comes from the
run itself: the harness program counts, per queue, the drops that DT at the operator's
alphas would have admitted on the state at the drop, the raised queues held at DT's bound
(``--shadowDt``, `ns3-harness/doc/cosim.md`). DT's loss in an interval is the run's loss less
those drops, on the same arrivals and the same trajectory. The rule, its factor and floors
are `oracle18-cf`'s. A switch could keep such a counter beside its admission check; none
exports one. One switch, 0 or 1, and the factor as a parameter, so that the trade it sets
between a burst's gain and the loss a raise causes the others can be swept:

- ``cf`` 1: the counter's reference and no probe; 0: `oracle18-memo`;
- ``safety`` (factor, default SAFETY): others' loss over DT's that means a raise harms them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import SAFETY
from alphad.schemes.oracle18 import FIXED as ORACLE18_FIXED
from alphad.schemes.oracle18 import POSITIVE as ORACLE18_POSITIVE
from alphad.schemes.oracle18_cf import DEFAULTS as CF_DEFAULTS
from alphad.schemes.oracle18_cf import Oracle18Cf

DEFAULTS: dict[str, float] = {**CF_DEFAULTS, "safety": SAFETY}  # safety: factor
FIXED = {k: v for k, v in ORACLE18_FIXED.items() if k != "safety"}
POSITIVE = (*ORACLE18_POSITIVE, "safety")  # must be > 0


class Oracle18Shadow(Oracle18Cf):
    """`oracle18-cf` whose reference is the run's loss less the drops DT would have admitted."""

    name = "oracle18-shadow"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        super().__init__(ctx, p)
        self.tells_dt = False  # no twin: the harness tells it from the program's counter


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Oracle18Shadow:
    return Oracle18Shadow(ctx, numeric_params("oracle18-shadow", params, DEFAULTS,
                                              positive=POSITIVE, fixed=FIXED))


make.reads_shadow_dt = True  # type: ignore[attr-defined]  # the harness runs --shadowDt=1
