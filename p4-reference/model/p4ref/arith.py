"""Fixed-point formats of the P4 pipeline and the exact table values.

The data plane never multiplies or divides. The threshold

    T = alpha_p * gamma / n_p * (B - Q)                      # ABM Eq. 9, FB Eq. 4

is computed as ``2 ** (l_alpha + l_gamma - l_np + l_rem)`` where every ``l_*`` is a
base-2 logarithm in signed fixed point with ``LOG_FRAC_BITS`` fractional bits
(Protean Eq. 4-5): ``l_alpha`` comes from the alpha table, the other three from ternary
log tables, and ``2 ** s`` from an exact-match exp table.

Table values are computed here with :mod:`decimal` (correctly rounded ``ln`` and
``**``), so the control plane on the switch and the tests in CI compute identical
entries regardless of the platform's libm. This module is pure Python on purpose: it
also runs inside the switch's bfrt-python shell.
"""

from __future__ import annotations

import decimal
import functools
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

__all__ = [
    "ALPHA_LOG2_MAX",
    "EXP_KEY_LIMIT",
    "LOG_FRAC_BITS",
    "LOG_WIDTH",
    "LOG_ZERO_REM",
    "SATURATED",
    "VALUE_WIDTH",
    "LogRow",
    "alpha_log_fixed",
    "exp_row",
    "exp_rows",
    "log2_fixed",
    "log_rows",
    "to_signed",
    "to_unsigned",
]

LOG_FRAC_BITS = 8
"""Fractional bits of every log2 value (Q7.8 in a bit<16> container)."""
LOG_WIDTH = 16
"""Width of the log-domain fields (two's complement in bit<16>)."""
VALUE_WIDTH = 32
"""Width of buffer quantities (queue length, remaining buffer, threshold)."""
SATURATED = (1 << VALUE_WIDTH) - 1
"""Threshold written when ``2 ** s`` does not fit in 32 bits."""
EXP_KEY_LIMIT = VALUE_WIDTH << LOG_FRAC_BITS
"""Exp-table keys cover ``0 <= s < EXP_KEY_LIMIT``; larger ``s`` saturates."""
LOG_ZERO_REM = -(64 << LOG_FRAC_BITS)
"""Stand-in for log2(0) of the remaining buffer: drives ``s`` negative, so T = 0."""
ALPHA_LOG2_MAX = 16
"""|log2(alpha)| bound that keeps every sum inside bit<16> without wrapping."""

_CTX = decimal.Context(prec=50, rounding=decimal.ROUND_HALF_EVEN)
_LN2 = _CTX.ln(Decimal(2))


def to_unsigned(value: int, width: int = LOG_WIDTH) -> int:
    """Two's complement encoding of ``value`` in ``width`` bits (as bfrt expects)."""
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if not lo <= value <= hi:
        raise ValueError(f"{value} does not fit in a signed {width}-bit field")
    return value & ((1 << width) - 1)


def to_signed(value: int, width: int = LOG_WIDTH) -> int:
    """Inverse of :func:`to_unsigned`."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def _round_half_even(x: Decimal) -> int:
    return int(x.to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=_CTX))


def log2_fixed(x: Fraction | int, frac_bits: int = LOG_FRAC_BITS) -> int:
    """round(log2(x) * 2**frac_bits) for a positive rational ``x``."""
    x = Fraction(x)
    if x <= 0:
        raise ValueError(f"log2 of non-positive value {x}")
    num = _CTX.ln(Decimal(x.numerator)) - _CTX.ln(Decimal(x.denominator))
    return _round_half_even(_CTX.multiply(_CTX.divide(num, _LN2), Decimal(1 << frac_bits)))


def _log2_mid_fixed(lo: int, hi: int, frac_bits: int) -> int:
    """Log-domain midpoint of the integers lo..hi: minimises the maximum relative error."""
    s = _CTX.ln(Decimal(lo)) + _CTX.ln(Decimal(hi))
    return _round_half_even(_CTX.multiply(_CTX.divide(s, 2 * _LN2), Decimal(1 << frac_bits)))


def alpha_log_fixed(alpha: float | str | Fraction, frac_bits: int = LOG_FRAC_BITS) -> int:
    """Fixed-point log2(alpha_p) installed in the alpha table (FB/ABM alpha_p)."""
    value = Fraction(str(alpha)) if isinstance(alpha, float) else Fraction(alpha)
    if value <= 0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    out = log2_fixed(value, frac_bits)
    if abs(out) > ALPHA_LOG2_MAX << frac_bits:
        raise ValueError(f"alpha {alpha} outside [2^-{ALPHA_LOG2_MAX}, 2^{ALPHA_LOG2_MAX}]")
    return out


@dataclass(frozen=True)
class LogRow:
    """One ternary entry of a log table: ``key & mask == value`` -> ``out``."""

    value: int
    mask: int
    out: int
    """Signed fixed-point log2 (or its negation) of the keys this row covers."""
    lead: int
    """Leading-one position of the covered keys (-1 for the zero key)."""


@functools.lru_cache(maxsize=32)
def log_rows(
    width: int,
    mantissa_bits: int,
    *,
    negate: bool = False,
    zero_out: int = 0,
    max_key: int | None = None,
    frac_bits: int = LOG_FRAC_BITS,
) -> tuple[LogRow, ...]:
    """Ternary rows computing log2(x) of a ``width``-bit unsigned key.

    A row matches the leading one of ``x`` at position k and the ``mantissa_bits`` bits
    below it; lower bits are wildcards. For ``k <= mantissa_bits`` the row is the exact
    key and its log is exact (up to fixed-point rounding); above, the row covers the
    interval ``[a, b]`` of keys sharing those bits and returns the log of its geometric
    midpoint, so the relative error of ``2 ** out`` is at most about
    ``2 ** -(mantissa_bits + 1)``. Rows are disjoint: every key matches exactly one.
    ``negate`` stores ``-log2(x)`` (used for gamma = 1/active). ``max_key`` drops rows
    whose keys all exceed it (keys that cannot occur); a dropped key misses the table.
    """
    if not 1 <= width <= VALUE_WIDTH:
        raise ValueError(f"key width {width} out of range 1..{VALUE_WIDTH}")
    if not 0 <= mantissa_bits < width:
        raise ValueError(f"mantissa_bits {mantissa_bits} out of range 0..{width - 1}")
    full = (1 << width) - 1
    sign = -1 if negate else 1
    rows = [LogRow(0, full, zero_out, -1)]
    for k in range(width):
        if max_key is not None and (1 << k) > max_key:
            break
        if k <= mantissa_bits:
            for x in range(1 << k, 1 << (k + 1)):
                if max_key is not None and x > max_key:
                    break
                rows.append(LogRow(x, full, sign * log2_fixed(x, frac_bits), k))
            continue
        shift = k - mantissa_bits
        mask = full & ~((1 << shift) - 1)
        for j in range(1 << mantissa_bits):
            lo = ((1 << mantissa_bits) | j) << shift
            if max_key is not None and lo > max_key:
                break
            hi = lo + (1 << shift) - 1
            rows.append(LogRow(lo, mask, sign * _log2_mid_fixed(lo, hi, frac_bits), k))
    return tuple(rows)


def exp_row(s: int, cong_frac: Fraction, frac_bits: int = LOG_FRAC_BITS) -> tuple[int, int]:
    """(T, T_cong) for exp-table key ``s >= 0``: floor(2 ** (s / 2**F)) and the
    congestion level floor(cong_frac * T_real), at least 1 (ABM: congested iff
    q >= 0.9 T; FB: congested iff non-empty, cong_frac = 0)."""
    if s < 0:
        raise ValueError("negative exp keys are handled by the sign gateway, not the table")
    power = _CTX.power(Decimal(2), _CTX.divide(Decimal(s), Decimal(1 << frac_bits)))
    thr = min(int(power.to_integral_value(rounding=decimal.ROUND_FLOOR)), SATURATED)
    frac = _CTX.divide(Decimal(cong_frac.numerator), Decimal(cong_frac.denominator))
    cong = int(_CTX.multiply(power, frac).to_integral_value(rounding=decimal.ROUND_FLOOR))
    return thr, min(max(cong, 1), SATURATED)


@functools.lru_cache(maxsize=8)
def exp_rows(
    cong_frac: Fraction, frac_bits: int = LOG_FRAC_BITS
) -> tuple[tuple[int, int, int], ...]:
    """All exp-table rows ``(s, T, T_cong)`` for ``0 <= s < 32 * 2**F``."""
    if not 0 <= cong_frac <= 1:
        raise ValueError(f"congestion fraction {cong_frac} outside [0, 1]")
    limit = VALUE_WIDTH << frac_bits
    return tuple((s, *exp_row(s, cong_frac, frac_bits)) for s in range(limit))
