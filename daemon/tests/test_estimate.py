from __future__ import annotations

import numpy as np
from conftest import make_sample, make_topology

from alphad.controller import build_classes
from alphad.estimate import Estimator, EstimatorParams, counter_delta


def test_counter_delta_normal_reset_wrap() -> None:
    top = np.uint64(2**64 - 100)
    cur = np.array([150, 20, 50], dtype=np.uint64)
    prev = np.array([100, 1000, top], dtype=np.uint64)
    d, reset = counter_delta(cur, prev)
    assert d.tolist() == [50.0, 20.0, 150.0]  # reset counts from zero; wrap is modular
    assert reset.tolist() == [False, True, False]


def _est(topo, prios):  # type: ignore[no-untyped-def]
    return Estimator(topo, build_classes(topo, prios))


def test_gamma_from_tx_delta_with_abm_clamp() -> None:
    topo = make_topology(ports=1, queues=4, speed=10e9)
    e = _est(topo, [("all", [0, 1, 2, 3], 0.5, None)])
    e.update(make_sample(topo, 0.0))
    dt = 1e-3
    full = 10e9 * dt / 8
    tx = np.array([full / 2, full / 4, full / 8, 0], dtype=np.uint64)  # 1/8 < 1/4 floor
    est = e.update(make_sample(topo, dt, tx=tx))
    assert est is not None
    assert np.allclose(est.rate, [0.5, 0.25, 0.125, 0.0])
    # ABM artifact: gamma < 1/queues_per_port or > 1 -> 1
    assert np.allclose(est.gamma, [0.5, 0.25, 1.0, 1.0])


def test_congestion_and_n_p() -> None:
    topo = make_topology(ports=2, queues=2, buffer_bytes=100_000)
    e = _est(topo, [("a", [0], 0.5, None), ("b", [1], 0.5, None)])
    e.update(make_sample(topo, 0.0))
    # pool peak 40k -> free 60k -> threshold 30k for alpha 0.5; 0.9*30k = 27k
    wm = np.array([28_000, 26_000, 29_000, 0])
    est = e.update(make_sample(topo, 0.01, wm=wm, pool_wm=40_000))
    assert est is not None
    assert est.congested.tolist() == [True, False, True, False]
    assert est.n_p.tolist() == [2.0, 1.0]  # b has none congested: floored at 1
    assert est.active_per_port.tolist() == [2, 1]


def test_clock_not_advancing_gives_no_estimate() -> None:
    topo = make_topology(ports=1, queues=1)
    e = _est(topo, [("a", [0], 0.5, None)])
    assert e.update(make_sample(topo, 1.0)) is None
    assert e.update(make_sample(topo, 1.0)) is None
    assert e.update(make_sample(topo, 2.0)) is not None


def test_a_gamma_average_moves_every_interval_whether_or_not_gamma_is_read() -> None:
    """gamma is computed on first read, except with an EWMA (gamma_ewma < 1), whose state
    must take every interval's sample: reading it only now and then gives the same values."""
    topo = make_topology(ports=1, queues=2, speed=10e9)
    cl = build_classes(topo, [("all", [0, 1], 0.5, None)])
    full = 10e9 * 1e-3 / 8
    txs = [np.array([full * f, full * (1 - f)]) for f in (0.9, 0.3, 0.6, 0.8)]
    seen = []
    for read_every in (True, False):
        e = Estimator(topo, cl, EstimatorParams(gamma_ewma=0.5, gamma_clamp=False))
        e.update(make_sample(topo, 0.0))
        tx = np.zeros(2)
        for i, step in enumerate(txs, start=1):
            tx = tx + step
            est = e.update(make_sample(topo, i * 1e-3, tx=tx.astype(np.uint64)))
            assert est is not None
            if read_every or i == len(txs):
                last = est.gamma.copy()
        seen.append(last)
    assert np.allclose(seen[0], seen[1])
    assert not np.allclose(seen[0], txs[-1] / full)  # the average, not the last sample
