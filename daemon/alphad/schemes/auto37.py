"""A candidate for the default: raise a bursty class to the cap, measure DT again while it
holds, and return to DT for longer after each raise that harmed.

Per class (level k: alpha = alpha_p 2^k), with `auto18`'s burst test, decay and fallback:

1. **Raise** every queue of a class whose idle queues were hit by a burst (dropped at
   least ``burst_frac`` of what they were offered, with line rate to spare on the port)
   to ``alpha_cap``.
2. **Reference**: each class's loss fraction on idle and on busy queues under DT,
   averaged over the intervals run with no class raised. While a class is raised, one
   interval in PROBE_S runs as DT (every queue at alpha_p, the levels kept) and moves the
   reference by PROBE_S / HOLD_S.
3. **Loss since the raise**: the bytes each class drops over those offered to it, on idle
   and on busy queues, counted from the interval a raise began, over the intervals in
   which a queue of a raised class held more than alpha_p times the free buffer (more
   than DT's admission rule lets it hold, Choudhury-Hahne); in the others the raise
   admitted nothing DT would not have.
4. **Safety**: once the reference stands for PROBE_S of DT, a class not raised losing
   SAFETY times its reference on its idle queues (and at least LOSS_MIN), or any class
   losing SAFETY times its reference on its busy queues, is harm: every class returns to
   alpha_p and none is raised for HOLD_S 2^(n-1) after the n-th harm in a row (at most
   2^MAX_DOUBLINGS HOLD_S); a raise that ends by decay, unharmed, clears the count.

It writes the alphas of the probe `oracle18-memo` told every class (``classes`` 255), under
its own name and with only `auto18`'s parameters. No parameter is added.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alphad.schemes._base import SchemeContext, numeric_params
from alphad.schemes.auto18 import DEFAULTS, POSITIVE
from alphad.schemes.auto18 import FIXED as AUTO18_FIXED
from alphad.schemes.oracle18_memo import DEFAULTS as MEMO_DEFAULTS
from alphad.schemes.oracle18_memo import Oracle18Memo

# The probe's switches at `oracle18-memo`'s defaults, ``classes`` among them: every class
FIXED: dict[str, float] = {**AUTO18_FIXED,
                           **{k: v for k, v in MEMO_DEFAULTS.items() if k not in DEFAULTS}}


class Auto37(Oracle18Memo):
    """`oracle18-memo` told every class: the raise to the cap, judged since it began."""

    name = "auto37"


def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto37:
    return Auto37(ctx, numeric_params("auto37", params, DEFAULTS, positive=POSITIVE,
                                      fixed=FIXED))
