"""What the hardware accepts: alpha = 2^k with k in [kmin, kmax], hysteresis.

Rounding is done in the log domain (the nearest power of two by ratio).
Hysteresis keeps the current k until log2(target) leaves
``[k - 0.5 - h, k + 0.5 + h]``, so a target that hovers around a rounding
boundary does not make the daemon write every interval. In ``continuous``
mode (simulation) alpha is only clamped, and rewritten when it moves by more
than ``h`` in log2 units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["Quantizer"]


@dataclass(frozen=True)
class Quantizer:
    mode: Literal["pow2", "continuous"] = "pow2"
    kmin: int = -8
    kmax: int = 7
    hysteresis: float = 0.25  # log2 units beyond the rounding midpoint

    def __post_init__(self) -> None:
        if self.kmin > self.kmax:
            raise ValueError("kmin must be <= kmax")
        if not 0.0 <= self.hysteresis < 1.0:
            raise ValueError("hysteresis must be in [0, 1)")

    @property
    def alpha_min(self) -> float:
        return float(2.0**self.kmin)

    @property
    def alpha_max(self) -> float:
        return float(2.0**self.kmax)

    def log2k(self, target: np.ndarray, current_k: np.ndarray | None = None) -> np.ndarray:
        """Target alpha -> k (int8), clamped, with hysteresis against current_k."""
        x = np.log2(target)  # target 0 -> -inf -> clamped to kmin below
        k = np.rint(x)
        if current_k is not None and self.hysteresis > 0:
            keep = np.abs(x - current_k) <= 0.5 + self.hysteresis
            k = np.where(keep, current_k, k)
        # A current k outside the bounds moves to the nearest bound.
        np.clip(k, self.kmin, self.kmax, out=k)
        return k.astype(np.int8)

    def apply(
        self, target: np.ndarray, current: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Target alpha -> (alpha the hardware will hold, k or None).

        ``current`` is the alpha in effect now (float).
        """
        with np.errstate(divide="ignore"):
            if self.mode == "continuous":
                a = np.clip(target, self.alpha_min, self.alpha_max)
                if self.hysteresis > 0:
                    keep = np.abs(np.log2(a) - np.log2(current)) <= self.hysteresis
                    a = np.where(keep, current, a)
                return a, None
            k = self.log2k(target, np.rint(np.log2(current)))
        return np.exp2(k, dtype=np.float64), k
