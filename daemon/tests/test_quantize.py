from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from alphad.quantize import Quantizer


def test_rounds_in_log_domain_and_clamps() -> None:
    q = Quantizer(kmin=-3, kmax=2, hysteresis=0)
    a, k = q.apply(np.array([0.3, 0.36, 1.0, 3.0, 1000.0, 1e-9]), np.ones(6))
    assert k.tolist() == [-2, -1, 0, 2, 2, -3]  # log2(0.36) = -1.47 -> -1
    assert np.allclose(a, np.exp2(k))


def test_hysteresis_holds_k_near_boundary() -> None:
    q = Quantizer(hysteresis=0.25)
    cur = np.array([0.5])  # k = -1
    # log2 target = -0.4: plain rounding says 0, but it is within 0.5 + 0.25 of -1.
    _, k = q.apply(np.array([2**-0.4]), cur)
    assert k[0] == -1
    # -0.2 is beyond -1 + 0.75: moves.
    _, k = q.apply(np.array([2**-0.2]), cur)
    assert k[0] == 0


def test_continuous_mode_clamps_only() -> None:
    q = Quantizer(mode="continuous", kmin=-4, kmax=3, hysteresis=0)
    a, k = q.apply(np.array([0.3, 100.0, 1e-6]), np.ones(3))
    assert k is None
    assert np.allclose(a, [0.3, 8.0, 1 / 16])


def test_bad_bounds_rejected() -> None:
    with pytest.raises(ValueError):
        Quantizer(kmin=3, kmax=2)


@given(st.lists(st.floats(1e-6, 1e6), min_size=1, max_size=50),
       st.integers(-8, 7), st.floats(0, 0.9))
def test_k_always_within_bounds(targets: list[float], cur: int, h: float) -> None:
    q = Quantizer(kmin=-8, kmax=7, hysteresis=h)
    t = np.array(targets)
    _, k = q.apply(t, np.full(len(t), 2.0**cur))
    assert k.min() >= -8 and k.max() <= 7
    # never further than 0.5 + h (in log2) from the clamped target
    x = np.clip(np.log2(t), -8, 7)
    assert np.all(np.abs(k - x) <= 0.5 + h + 1e-9)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=12))
def test_controller_reuses_a_quantization_only_for_the_same_inputs(steps: list[tuple[int, int]]
                                                                   ) -> None:
    """Controller.step skips the quantizer when the targets and the alphas in effect are
    those of the previous interval; its changes always equal a fresh quantization's."""
    from conftest import make_sample, make_topology

    from alphad.controller import Controller, build_classes

    topo = make_topology(2, 3)
    classes = build_classes(topo, [("a", [0, 1], 0.5, None)])  # queue 2 of each port unmanaged
    ctl = Controller(topo, classes, scheme="dt", quantizer=Quantizer(hysteresis=0.25))
    targets = [np.full(topo.n, x) for x in (0.3, 1.0, 3.1, 0.5)]
    currents = [np.full(topo.n, x) for x in (0.5, 1.0, 4.0, 0.125)]
    ctl.step(make_sample(topo, 0.0, alpha=currents[0]))
    for i, (ti, ci) in enumerate(steps, start=1):
        ctl.scheme = lambda est, t=targets[ti]: t.copy()
        cur = currents[ci].copy()
        ch = ctl.step(make_sample(topo, 0.1 * i, alpha=cur))
        alpha, k = ctl.quantizer.apply(targets[ti], cur)
        m = np.flatnonzero(classes.prio >= 0)
        idx = m[alpha[m] != cur[m]]
        assert np.array_equal(ch.idx, idx) and np.array_equal(ch.alpha, alpha[idx])
        assert np.array_equal(ch.k, k[idx])
        assert not ctl.last.alpha.flags.writeable  # shared with later intervals
