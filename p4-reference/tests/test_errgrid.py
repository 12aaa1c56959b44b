"""Threshold error of the log/exp tables against the float formula (issue item 3a).

The full grid (``python -m p4ref errgrid``, 2 M points) is a measurement; this test runs a
reduced grid and checks the figures the README reports."""

from __future__ import annotations

from p4ref import errgrid

GRID = errgrid.Grid(max_np=32, max_active=8, rem_points=60)


def test_default_mantissa_meets_protean_bound() -> None:
    s = errgrid.measure(6, GRID)
    assert s.points > 50_000
    assert s.mean_rel < 0.0035          # README: 0.30% mean
    assert s.max_rel < 0.0125           # README: 1.20% max
    assert s.log_max_rel < 0.0125
    assert s.tcam_entries < 2048


def test_error_shrinks_with_mantissa_bits() -> None:
    coarse, fine = errgrid.measure(4, GRID), errgrid.measure(8, GRID)
    assert coarse.mean_rel > 2 * fine.mean_rel
    assert coarse.tcam_entries < fine.tcam_entries
