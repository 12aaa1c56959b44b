"""Fixed-point table values: log rows are disjoint and complete, errors are bounded."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from p4ref import arith
from p4ref.entries import log_np_entries, log_rem_entries
from p4ref.match import TableImage

F = arith.LOG_FRAC_BITS


def _bound(m: int) -> float:
    # geometric midpoint of an interval of ratio <= 1 + 2^-m, plus rounding to 2^-F in log2
    return math.sqrt(1 + 2.0**-m) * 2 ** (0.5 / (1 << F)) - 1


@pytest.mark.parametrize("m", [0, 3, 6])
def test_every_16_bit_key_hits_exactly_one_row(m: int) -> None:
    img = TableImage("Ingress.log_np", log_np_entries(m, 0xFFFF))
    rows = img.lookup_array(np.arange(1 << 16, dtype=np.uint64))  # raises on overlaps
    assert (rows >= 0).all()
    out = np.array([arith.to_signed(p["l"]) for p in img.params])[rows]
    x = np.arange(1, 1 << 16)
    rel = np.abs(np.exp2(out[1:] / (1 << F)) - x) / x
    assert rel.max() <= _bound(m) + 1e-12
    assert out[0] == 0                                      # n_p = 0 is taken as 1


def test_small_keys_are_exact() -> None:
    rows = {r.value: r.out for r in arith.log_rows(16, 6) if r.mask == 0xFFFF}
    for x in range(1, 128):
        assert rows[x] == round(math.log2(x) * (1 << F))


@settings(deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=(1 << 32) - 1), min_size=1, max_size=200))
def test_rem_rows_cover_32_bit_keys(keys: list[int]) -> None:
    img = _rem_image()
    rows = img.lookup_array(np.array(keys, dtype=np.uint64))
    assert (rows >= 0).all()
    out = np.array([arith.to_signed(img.params[r]["l"]) for r in rows])
    rel = np.abs(np.exp2(out / (1 << F)) - np.array(keys, dtype=np.float64)) / np.array(keys)
    assert rel.max() <= _bound(6) + 1e-12


_REM: list[TableImage] = []


def _rem_image() -> TableImage:
    if not _REM:
        _REM.append(TableImage("Ingress.log_rem", log_rem_entries(6)))
    return _REM[0]


def test_zero_remaining_maps_to_large_negative_log() -> None:
    img = _rem_image()
    assert arith.to_signed(img.params[img.lookup(0)]["l"]) == arith.LOG_ZERO_REM


def test_exp_rows_are_monotone_and_exact_at_powers_of_two() -> None:
    rows = arith.exp_rows(Fraction(9, 10))
    thr = [t for _, t, _ in rows]
    assert len(rows) == arith.EXP_KEY_LIMIT
    assert all(a <= b for a, b in itertools.pairwise(thr))
    for k in range(32):
        assert rows[k << F][1] == 1 << k
    for s, t, c in rows[::97]:
        assert 1 <= c <= max(t, 1)
        assert abs(c - max(1.0, 0.9 * 2 ** (s / (1 << F)))) <= 1


def test_fb_congestion_level_is_non_empty() -> None:
    assert {c for _, _, c in arith.exp_rows(Fraction(0))} == {1}


def test_alpha_log_values_and_errors() -> None:
    assert arith.alpha_log_fixed(0.5) == -256
    assert arith.alpha_log_fixed(8) == 768
    assert arith.alpha_log_fixed("0.8") == round(math.log2(0.8) * 256)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        arith.alpha_log_fixed(0)
    with pytest.raises(ValueError, match="outside"):
        arith.alpha_log_fixed(2.0**17)


@given(st.integers(min_value=-(1 << 15), max_value=(1 << 15) - 1))
def test_signed_round_trip(v: int) -> None:
    assert arith.to_signed(arith.to_unsigned(v)) == v


def test_unsigned_range_error() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        arith.to_unsigned(1 << 15)
