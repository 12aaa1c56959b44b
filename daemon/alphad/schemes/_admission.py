"""DT's admission rule solved for alpha: what a burst needed, rounded to the hardware's set."""

from __future__ import annotations

import numpy as np

__all__ = ["burst_alpha", "pow2_ceil"]


def burst_alpha(S: np.ndarray, free: np.ndarray, margin: float) -> np.ndarray:
    """alpha that admits a burst of S beside occupancy B - free: S / (free - S)  (DT, ABM Eq. 5;
    ``margin`` > 1 is the transient headroom of FB Eq. 8); inf where no alpha admits it."""
    room = free - S * margin
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(room > 0, S * margin / np.maximum(room, 1e-9), np.inf)


def pow2_ceil(a: np.ndarray) -> np.ndarray:
    """Round up to a power of two (the hardware's alpha set)."""
    with np.errstate(divide="ignore"):
        return np.exp2(np.ceil(np.log2(np.maximum(a, 1e-300))))
