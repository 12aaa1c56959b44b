"""The pipeline model: arithmetic, admission, SYNC bookkeeping, one access per register."""

from __future__ import annotations

from typing import Any

import numpy as np
import p4ref_control as ctl
import pytest
from conftest import ALPHAD_PRIORITIES, deployment_doc
from hypothesis import given, settings
from hypothesis import strategies as st
from p4ref import arith
from p4ref.pipeline import (
    ST_ACTIVE,
    ST_CONGESTED,
    Pipeline,
    RegisterConflict,
    state_transition,
)

_BUILT: dict[int, Pipeline] = {}


def _pipe(plan_dep: tuple[Any, Any], ghost: bool = False) -> Pipeline:
    plan, dep = plan_dep
    if id(plan) not in _BUILT:
        _BUILT[id(plan)] = Pipeline(plan.entries, pool_units=dep.pool_units,
                                    recirc_port=dep.recirc_port)
    fresh = _BUILT[id(plan)].fork()
    fresh.ghost = ghost
    return fresh


def _l(alpha: float) -> int:
    return arith.to_unsigned(arith.alpha_log_fixed(alpha))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([0.5, 8.0, 64.0, 0.8]), st.integers(0, 600), st.integers(0, 8),
       st.integers(0, (1 << 32) - 1))
def test_scalar_and_vector_thresholds_agree(abm_plan: Any, alpha: float, n_p: int, act: int,
                                            rem: int) -> None:
    pipe = _pipe(abm_plan)
    scalar = pipe.threshold(_l(alpha), n_p, act, rem)
    vec = pipe.threshold_array([_l(alpha)], [n_p], [act], [rem])
    assert scalar == tuple(int(v[0]) for v in vec)


def test_threshold_tracks_the_formula(abm_plan: Any) -> None:
    pipe = _pipe(abm_plan)
    for alpha, n_p, act, rem in [(0.5, 1, 1, 10**6), (8, 3, 2, 123_456), (64, 7, 5, 40_000)]:
        thr, cong, _ = pipe.threshold(_l(alpha), n_p, act, rem)
        real = alpha / act / n_p * rem                       # ABM Eq. 9, gamma = 1/active
        assert abs(thr - real) / real < 0.012
        assert abs(cong - 0.9 * real) / real < 0.012         # congestion level 0.9 T
    assert pipe.threshold(_l(0.5), 1, 1, 0)[:2] == (0, 1)    # empty pool: T = 0
    assert pipe.threshold(_l(64), 0, 0, (1 << 32) - 1)[0] == arith.SATURATED


def test_dt_ignores_n_p_and_gamma() -> None:
    dep = ctl.parse_deployment(deployment_doc(scheme="dt"))
    plan = ctl.build_plan(ctl.parse_priorities(ALPHAD_PRIORITIES), dep)
    pipe = Pipeline(plan.entries, pool_units=dep.pool_units, recirc_port=dep.recirc_port)
    base = pipe.threshold(_l(0.5), 1, 1, 80_000)
    assert pipe.threshold(_l(0.5), 9, 4, 80_000) == base
    assert abs(base[0] - 40_000) <= 0.012 * 40_000


def test_admission_uses_size_unsched_alpha_and_pool(abm_plan: Any) -> None:
    _, dep = abm_plan
    pipe = _pipe(abm_plan)
    pool = dep.pool_units
    a = pipe.ingress(egress_port=4, queue=3, unsched=0, total_len=1482)   # 1500 B = 19 cells
    assert a.managed and a.admit and a.qidx == 8 + 3 and a.need == 19 and a.rem == pool
    assert abs(a.thr - 8 * pool) <= 0.012 * 8 * pool
    u = pipe.ingress(egress_port=4, queue=3, unsched=1, total_len=1482)
    assert abs(u.thr - 64 * pool) <= 0.012 * 64 * pool                     # ABM 3.3
    assert not pipe.ingress(egress_port=9, queue=3, unsched=0, total_len=100).managed
    # fill the ingress copy of queue 0 on port 0 beyond its threshold via egress + SYNC
    pipe.egress(0, 10_000, 1)
    pipe.sync(0)
    d = pipe.ingress(egress_port=0, queue=0, unsched=0, total_len=1482)
    assert d.rem == pool - 10_000 and not d.admit                          # 0.5 * rem < q
    assert pipe.dropped[0] == 1 and pipe.admitted[11] == 2


def test_a_second_access_to_a_register_is_refused(abm_plan: Any) -> None:
    pipe = _pipe(abm_plan)
    pipe.qlen_ig.read(0)
    with pytest.raises(RegisterConflict, match="qlen_ig accessed twice"):
        pipe.qlen_ig.swap(0, 1)
    pipe.qlen_ig.end_packet()
    pipe.qlen_ig.swap(0, 1)


def test_state_transitions_count_bits() -> None:
    for old in range(4):
        for new in range(4):
            d_act, d_cong = state_transition(old, new)
            assert arith.to_signed(d_act) == ((new >> 1) & 1) - ((old >> 1) & 1)
            assert arith.to_signed(d_cong) == (new & 1) - (old & 1)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.integers(0, 5000), st.integers(1, 3000)),
                max_size=60),
       st.lists(st.integers(0, 15), max_size=40))
def test_sync_keeps_aggregates_equal_to_egress_state(abm_plan: Any,
                                                     writes: list[tuple[int, int, int]],
                                                     partial: list[int]) -> None:
    """After any interleaving of egress records and SYNC packets, one full SYNC round
    leaves Q, n_p and active equal to what egress holds."""
    plan, dep = abm_plan
    pipe = _pipe(abm_plan)
    managed = sorted({q["qidx"] for q in plan.queues})
    for i, (q, depth, cong) in enumerate(writes):
        pipe.egress(managed[q], depth, cong)
        if i < len(partial):
            pipe.sync(managed[partial[i]])
    for idx in managed:
        assert pipe.sync(idx)
    depth = pipe.qlen_eg.data.astype(np.int64)
    state = pipe.state_eg.data.astype(np.int64)
    assert pipe.occupancy_units() == int(depth[managed].sum())
    assert pipe.remaining_units() == max(dep.pool_units - int(depth[managed].sum()), 0)
    for nidx in {q["nidx"] for q in plan.queues}:
        idx = [q["qidx"] for q in plan.queues if q["nidx"] == nidx]
        assert pipe.n_p(nidx) == int(((state[idx] & ST_CONGESTED) > 0).sum())
    for pidx in {q["pidx"] for q in plan.queues}:
        idx = [q["qidx"] for q in plan.queues if q["pidx"] == pidx]
        assert pipe.active(pidx) == int(((state[idx] & ST_ACTIVE) > 0).sum())


def test_egress_state_bits(abm_plan: Any) -> None:
    pipe = _pipe(abm_plan)
    for depth, cong, state in [(0, 1, 0), (5, 10, ST_ACTIVE), (10, 10, ST_ACTIVE | ST_CONGESTED)]:
        pipe.egress(2, depth, cong)
        assert int(pipe.state_eg.data[2]) == state


def test_unknown_sync_index_or_port_is_dropped_unused(abm_plan: Any) -> None:
    pipe = _pipe(abm_plan)
    pipe.egress(0, 700, 1)
    assert not pipe.sync(900)
    assert not pipe.sync(0, ingress_port=5)          # forged SYNC from a front-panel port
    assert pipe.occupancy_units() == 0
    assert pipe.sync(0)                              # from the recirculation port
    assert pipe.occupancy_units() == 700


def test_ghost_queue_length_is_used_on_tofino2(abm_plan: Any) -> None:
    pipe = _pipe(abm_plan, ghost=True)
    pipe.ghost_update(0, 50_000)                       # far above 0.5 * (B - Q)... for 1 MB
    assert not pipe.ingress(egress_port=0, queue=0, unsched=0, total_len=1482).admit
    t1 = _pipe(abm_plan)
    t1.ghost_update(0, 50_000)                         # Tofino 1 ignores the ghost register
    assert t1.ingress(egress_port=0, queue=0, unsched=0, total_len=1482).admit


def test_classify_maps_class_selector_and_first_rtt_tag(abm_plan: Any) -> None:
    pipe = _pipe(abm_plan)
    assert pipe.classify(3 << 5) == (3, 0)                      # CS3 -> queue 3
    assert pipe.classify((3 << 5) | 0x04) == (3, 1)             # + tag bit: first RTT
    assert pipe.classify((7 << 5) | 0x03) == (7, 0)             # ECN bits ignored
