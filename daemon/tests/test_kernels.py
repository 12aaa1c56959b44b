"""alphad._kernels computes what the numpy expressions below compute, bit for bit, and
refuses buffers of the wrong size and indices out of range with an error that names them."""

from __future__ import annotations

import numpy as np
import pytest
from alphad._kernels import MAX_CLASSES, TINY, class_loss, class_peaks
from hypothesis import given, settings
from hypothesis import strategies as st


def numpy_loss(drop, tx, rate, port, idx, cls, P, n_ports, idle_util, busy_port, burst_frac):
    """class_loss in numpy: per-class sums by reduceat over idx (sorted by class)."""
    idle = rate[idx] < idle_util
    d, o = drop[idx], tx[idx] + drop[idx]
    sums = np.zeros((4, P))
    for row, x in enumerate((d * idle, o * idle, d, o)):
        np.add.at(sums[row], cls, x)
    burst = idle & (d >= np.maximum(o * burst_frac, TINY))
    if burst.any():
        util = np.bincount(port, weights=rate, minlength=n_ports)
        burst &= util[port[idx]] < busy_port
    return bool(burst.any()), sums, idle, burst


def numpy_peaks(wm, drop, idx, cls, P, burst, kept):
    S, W = wm[idx] + drop[idx], wm[idx]
    peaks = np.zeros((4, P))
    for row, x in enumerate((S * burst, W * burst, S * kept, W * kept)):
        np.maximum.at(peaks[row], cls, x)
    return peaks


@st.composite
def switches(draw):
    n_ports = draw(st.integers(1, 6))
    qpp = draw(st.integers(1, 8))
    n = n_ports * qpp
    P = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    r = np.random.default_rng(seed)
    prio = r.integers(-1, P, n)  # -1: unmanaged
    idx = np.flatnonzero(prio >= 0)
    idx = idx[np.argsort(prio[idx], kind="stable")].astype(np.int64)
    # whole byte counts, many zero (no loss), and rates around idle_util and line rate
    drop = np.where(r.random(n) < 0.5, 0.0, r.integers(0, 200_000, n).astype(np.float64))
    tx = np.where(r.random(n) < 0.2, 0.0, r.integers(0, 2_000_000, n).astype(np.float64))
    # half of them exactly at a boundary: idle_util, or a port's sum at 1 - idle_util
    rate = r.choice([0.0, 0.05, 0.1, 0.5, 0.9, 1.2], n) * np.where(r.random(n) < 0.5, 1.0,
                                                                     r.random(n))
    wm = r.uniform(0, 1e6, n)
    port = np.repeat(np.arange(n_ports, dtype=np.int64), qpp)
    return drop, tx, rate, wm, port, idx, prio[idx].astype(np.int64), P, n_ports


@settings(max_examples=300, deadline=None)
@given(switches(), st.sampled_from([0.0, 0.1, 0.5]), st.sampled_from([0.0, 0.02, 1.0]))
def test_the_kernels_decide_as_numpy(sw, idle_util, burst_frac):
    drop, tx, rate, wm, port, idx, cls, P, n_ports = sw
    m = len(idx)
    idle, burst, util = np.zeros(m, bool), np.zeros(m, bool), np.zeros(n_ports)
    got_any, got = class_loss(drop, tx, rate, port, idx, cls, P, n_ports, idle_util,
                              1.0 - idle_util, burst_frac, idle, burst, util)
    want_any, sums, want_idle, want_burst = numpy_loss(
        drop, tx, rate, port, idx, cls, P, n_ports, idle_util, 1.0 - idle_util, burst_frac)
    assert got_any == want_any
    assert np.array_equal(np.array(got), sums)
    assert np.array_equal(idle, want_idle) and np.array_equal(burst, want_burst)
    peaks = class_peaks(wm, drop, idx, cls, P, burst, idle)
    assert np.array_equal(np.array(peaks), numpy_peaks(wm, drop, idx, cls, P, burst, idle))


def _args(n=4, m=4, P=2, n_ports=2):
    z = np.zeros(n)
    return [z, z, z, np.zeros(n, np.int64), np.arange(m, dtype=np.int64),
            np.zeros(m, np.int64), P, n_ports, 0.1, 0.9, 0.02, np.zeros(m, bool),
            np.zeros(m, bool), np.zeros(n_ports)]


@pytest.mark.parametrize(("pos", "value", "error", "name"), [
    (1, np.zeros(3), ValueError, "tx"),  # a buffer shorter than drop's
    (3, np.zeros(4, np.int32), ValueError, "port"),  # int32 where int64 is taken
    (5, np.zeros(3, np.int64), ValueError, "cls"),
    (12, np.zeros(3, bool), ValueError, "burst"),
    (13, np.zeros(1), ValueError, "port_util"),
    (4, np.array([0, 1, 2, 9], np.int64), IndexError, "index 9"),
    (5, np.array([0, 0, 0, 2], np.int64), IndexError, "class 2"),
    (6, MAX_CLASSES + 1, ValueError, "at most"),
])
def test_bad_buffers_are_refused_by_name(pos, value, error, name):
    args = _args()
    args[pos] = value
    with pytest.raises(error, match=name):
        class_loss(*args)


def test_a_port_out_of_range_is_refused_when_a_burst_needs_it():
    args = _args()
    args[0] = np.full(4, 50_000.0)  # every idle queue drops all it was offered: bursts
    args[3] = np.array([0, 0, 1, 5], np.int64)
    with pytest.raises(IndexError, match="port 5"):
        class_loss(*args)


def test_peaks_refuse_masks_of_the_wrong_length():
    z = np.zeros(4)
    idx, cls = np.arange(4, dtype=np.int64), np.zeros(4, np.int64)
    with pytest.raises(ValueError, match="kept"):
        class_peaks(z, z, idx, cls, 1, np.zeros(4, bool), np.zeros(2, bool))
    with pytest.raises(TypeError):  # a read-only mask is fine, a list is not a buffer
        class_peaks(z, z, idx, cls, 1, [0, 0, 0, 0], np.zeros(4, bool))


@pytest.mark.parametrize(("busy_rate", "is_burst"), [(0.9, False), (0.89, True)])
def test_a_port_at_one_less_idle_util_of_line_rate_has_no_spare_capacity(busy_rate, is_burst):
    """Queue 0 loses all it was offered while idle; queue 1 keeps the port busy."""
    drop, tx = np.array([30_000.0, 0.0]), np.array([0.0, 1e6])
    rate = np.array([0.0, busy_rate])
    idx, cls = np.array([0, 1], np.int64), np.array([0, 0], np.int64)
    idle, burst = np.zeros(2, bool), np.zeros(2, bool)
    any_burst, _ = class_loss(drop, tx, rate, np.zeros(2, np.int64), idx, cls, 1, 1, 0.1,
                              1.0 - 0.1, 0.02, idle, burst, np.zeros(1))
    assert any_burst is is_burst and burst.tolist() == [is_burst, False]
    assert idle.tolist() == [True, False]
