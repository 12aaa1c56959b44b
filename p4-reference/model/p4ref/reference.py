"""The exact schemes in floating point: what the P4 pipeline approximates.

Admission of a packet of ``size`` bytes to a queue of length ``q`` with shared pool ``B``
holding ``Q``:

* DT:  T = alpha_p * (B - Q)                                    (ABM Eq. 5, FB Eq. 1)
* FB:  T = alpha_p * (1 / N_p) * gamma * (B - Q)                (FB Eq. 4), N_p over the group
* ABM: T = alpha * (1 / n_p) * (B - Q) * mu / b                 (ABM Eq. 9), alpha = alpha_unsched
  for first-RTT packets (ABM 3.3); abm-core: alpha = alpha_p always

with n_p floored at 1. ``admit_rule`` "fit" admits iff ``q + size <= T`` and the pool has
``size`` free bytes (the ABM artifact's rule); "below" admits iff ``q < T`` and the pool has
room (FB 5.1: "If the threshold is higher than the corresponding queue's length").
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["ADMIT_RULES", "SCHEMES", "admit", "threshold"]

SCHEMES = ("abm", "abm-core", "fb", "dt")
"""Schemes with a P4 counterpart; abm-core is ABM without the first-RTT alpha."""
ADMIT_RULES = ("fit", "below")

F64 = npt.NDArray[np.float64]


def threshold(scheme: str, alpha_p: npt.ArrayLike, gamma: npt.ArrayLike, n_p: npt.ArrayLike,
              remaining: npt.ArrayLike, unsched: npt.ArrayLike | None = None,
              alpha_unsched: float | None = None) -> F64:
    """Float threshold per packet (vectorised)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}")
    a = np.asarray(alpha_p, dtype=np.float64)
    rem = np.asarray(remaining, dtype=np.float64)
    if scheme == "abm" and alpha_unsched is not None and unsched is not None:
        a = np.where(np.asarray(unsched, dtype=bool), alpha_unsched, a)  # ABM 3.3
    if scheme == "dt":
        return a * rem                                                   # ABM Eq. 5
    n = np.maximum(np.asarray(n_p, dtype=np.float64), 1.0)
    return a * np.asarray(gamma, dtype=np.float64) / n * rem             # ABM Eq. 9 / FB Eq. 4


def admit(rule: str, qlen: npt.ArrayLike, size: npt.ArrayLike, thr: npt.ArrayLike,
          remaining: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Admission decision of the exact scheme (vectorised)."""
    q = np.asarray(qlen, dtype=np.float64)
    s = np.asarray(size, dtype=np.float64)
    t = np.asarray(thr, dtype=np.float64)
    room = s <= np.asarray(remaining, dtype=np.float64)
    if rule == "fit":
        return (q + s <= t) & room
    if rule == "below":
        return (q < t) & room
    raise ValueError(f"unknown admit rule {rule!r}")
