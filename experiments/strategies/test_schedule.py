"""The schedule study: the per-class alpha schedule and the constrained oracle."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from experiments.strategies import bound, schedule

SEQ = np.array([[4.0, 1.0], [1.0, 4.0], [4.0, 16.0], [0.25, 16.0]])


def _scheme(lag: float) -> schedule.Schedule:
    # two ports x (class 0, class 1, an unmanaged queue)
    prio = np.array([0, 1, -1, 0, 1, -1])
    ctx = SimpleNamespace(alpha_q=np.array([0.5, 0.5, 64.0] * 2),
                          classes=SimpleNamespace(prio=prio))
    return schedule.Schedule(ctx, SEQ, lag, bound.PHASE_S)  # type: ignore[arg-type]


def test_each_phase_setting_starts_at_the_first_tick_lag_seconds_in() -> None:
    s = _scheme(0.1)
    t, out = 0.0, {}
    for _ in range(85):  # 100 ms ticks summed as a switch's clock would (not exact)
        t += 0.1
        out[round(t, 1)] = s(SimpleNamespace(sample=SimpleNamespace(t=t)))
    assert np.array_equal(out[0.1], [4.0, 1.0, 64.0] * 2)  # phase 0's from the first tick
    for k, start in enumerate((2.0, 4.0, 6.0), start=1):
        # the tick at the phase change still reads the phase before it ...
        assert np.array_equal(out[start][[0, 1]], SEQ[k - 1])
        # ... the next one, 98 ms into the phase (it starts 2 ms after the tick), the new
        assert np.array_equal(out[round(start + 0.1, 1)][[0, 1, 3, 4]], np.tile(SEQ[k], 2))
    assert np.array_equal(out[8.5][[0, 1]], SEQ[-1])  # the drain keeps the last phase's
    assert all(o[2] == 64.0 and o[5] == 64.0 for o in out.values())  # unmanaged: untouched


def test_two_intervals_late_and_the_operator_first() -> None:
    s = _scheme(0.2)
    first = s(SimpleNamespace(sample=SimpleNamespace(t=0.1)))
    assert np.array_equal(first, [0.5, 0.5, 64.0] * 2)  # the operator's, until phase 0's
    assert np.array_equal(s(SimpleNamespace(sample=SimpleNamespace(t=2.1)))[:2], SEQ[0])
    assert np.array_equal(s(SimpleNamespace(sample=SimpleNamespace(t=2.2)))[:2], SEQ[1])


# One seed, two queries and two short flows per phase (0.05 s and 0.5 s into it).
PH = np.repeat(np.arange(bound.PHASES), 2)
INTO = np.tile([0.05, 0.5], bound.PHASES)
A, B, C = (4.0, 0.25), (0.25, 4.0), (1.0, 1.0)


def test_the_constrained_oracle_leaves_out_what_costs_the_short_flows() -> None:
    even = PH % 2 == 0
    # A wins the even phases' queries and B the odd ones'; C (dt-static) loses every
    # query to two timeouts but the early ones. B times out every short flow it carries.
    q = {bound.OPERATOR: np.full(8, 40.0), A: np.where(even, 1.0, 31.0),
         B: np.where(even, 31.0, 1.0), C: np.where(INTO < 0.1, 2.0, 31.0)}
    rto = {bound.OPERATOR: np.zeros(8), A: np.zeros(8), B: np.ones(8), C: np.zeros(8)}
    runs = {a: [(x, PH, INTO)] for a, x in q.items()}
    zero = np.zeros(8)
    flows = {a: [(rto[a], zero, zero + 1, PH, INTO)] for a in q}  # long flows as DT's
    free = bound.joint_oracle(runs, [A, B, C], 1, 0.0)[0]
    assert free == (A, B, A, B)
    best = schedule.constrained(runs, flows, [A, B, C], 0.0)
    assert best and all(B not in seq for _, _, seq, _ in best)  # B's short flows time out
    assert best[0][2] == (A, C, A, C)
    # a long flow slower than DT's 2% leaves a sequence out as well
    slow = {**flows, A: [(rto[A], np.full(8, np.log(0.9)), zero + 1, PH, INTO)]}
    assert all(A not in seq for _, _, seq, _ in schedule.constrained(runs, slow, [A, B, C], 0.0))
