"""Error of the table-based threshold against the float formula over a grid of inputs.

For every (alpha_p, n_p, active queues, B - Q) of the grid, the pipeline's integer
threshold (log tables, fixed-point adds, exp table) is compared with the real value
``alpha_p * gamma / n_p * (B - Q)`` with gamma = 1/active (FB 5.1 round robin, ABM 3.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from . import arith
from .entries import (
    TableEntry,
    exp_entries,
    log_act_entries,
    log_np_entries,
    log_rem_entries,
)
from .pipeline import Pipeline

__all__ = ["GRID_ALPHAS", "ErrorStats", "Grid", "measure"]

GRID_ALPHAS = (1 / 64, 1 / 8, 0.5, 0.8, 1.0, 2.0, 8.0, 14.0, 20.0, 64.0)
"""DT/ABM/FB alphas seen in the papers (0.5, 8 Yahoo, 14 Cisco, 20 FB, 64 ABM first RTT,
0.8 Tofino testbed) plus powers of two."""


@dataclass(frozen=True)
class Grid:
    alphas: tuple[float, ...] = GRID_ALPHAS
    max_np: int = 64
    max_active: int = 8
    rem_points: int = 400
    rem_min: int = 1 << 4
    rem_max: int = 1 << 24

    def arrays(self) -> tuple[npt.NDArray[np.float64], ...]:
        rem = np.unique(np.round(np.geomspace(self.rem_min, self.rem_max, self.rem_points)))
        a, n, g, r = np.meshgrid(np.array(self.alphas), np.arange(1, self.max_np + 1),
                                 np.arange(1, self.max_active + 1), rem, indexing="ij")
        return a.ravel(), n.ravel(), g.ravel(), r.ravel()


@dataclass(frozen=True)
class ErrorStats:
    mantissa_bits: int
    points: int
    mean_rel: float
    """Mean |T - T_real| / T_real over points with T_real >= ``min_thr``."""
    max_rel: float
    mean_rel_small: float
    """Same for small thresholds, 64 <= T_real < ``min_thr`` (integer rounding shows)."""
    max_rel_small: float
    exact_floor: float
    """Fraction of all grid points where T equals floor(T_real) exactly."""
    log_mean_rel: float
    """Error of 2**(s / 2**F) before the exp table's integer floor (tables only)."""
    log_max_rel: float
    tcam_entries: int
    exp_entries: int
    min_thr: float

    def row(self) -> str:
        return (f"m={self.mantissa_bits:2d}  mean={100 * self.mean_rel:6.3f}%  "
                f"max={100 * self.max_rel:6.3f}%  | 64<=T<{self.min_thr:g}: mean="
                f"{100 * self.mean_rel_small:6.3f}% max={100 * self.max_rel_small:6.3f}%  | "
                f"before floor: mean={100 * self.log_mean_rel:6.3f}% "
                f"max={100 * self.log_max_rel:6.3f}%  | T==floor: {100 * self.exact_floor:5.1f}%  "
                f"| tcam rows={self.tcam_entries}")


def arithmetic_entries(mantissa_bits: int, max_np: int, max_active: int) -> list[TableEntry]:
    return (log_rem_entries(mantissa_bits) + log_np_entries(mantissa_bits, max_np)
            + log_act_entries(mantissa_bits, max_active) + exp_entries(Fraction(9, 10)))


def measure(mantissa_bits: int = 6, grid: Grid | None = None, min_thr: float = 1024.0,
            entries: list[TableEntry] | None = None) -> ErrorStats:
    grid = grid or Grid()
    if entries is None:
        entries = arithmetic_entries(mantissa_bits, grid.max_np, grid.max_active)
    pipe = Pipeline(entries, pool_units=0)
    alpha, n_p, act, rem = grid.arrays()
    l_alpha = np.array([arith.to_unsigned(arith.alpha_log_fixed(a)) for a in grid.alphas],
                       dtype=np.uint64)
    la = l_alpha[np.searchsorted(np.array(grid.alphas), alpha)]
    thr, _, s = pipe.threshold_array(la, n_p.astype(np.uint64), act.astype(np.uint64),
                                     rem.astype(np.uint64))
    real = alpha / act / n_p * rem                    # ABM Eq. 9 with gamma = 1/active
    sel = real >= min_thr
    rel = np.abs(thr.astype(np.float64) - real) / real
    small = (real >= 64) & (real < min_thr)
    exact = float((thr.astype(np.float64) == np.floor(real)).mean())
    s_signed = np.where(s >= 1 << 15, s.astype(np.float64) - (1 << 16), s.astype(np.float64))
    log_rel = np.abs(np.exp2(s_signed / (1 << arith.LOG_FRAC_BITS)) - real) / real
    tcam = sum(1 for e in entries if e.priority is not None)
    n_exp = sum(1 for e in entries if e.table.endswith("exp_tbl"))
    return ErrorStats(mantissa_bits, int(sel.sum()), float(rel[sel].mean()), float(rel[sel].max()),
                      float(rel[small].mean()), float(rel[small].max()), exact,
                      float(log_rel[sel].mean()),
                      float(log_rel[sel].max()), tcam, n_exp, min_thr)
