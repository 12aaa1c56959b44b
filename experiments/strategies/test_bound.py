"""The lagged phase oracle of the bound study on hand-written query times."""

from __future__ import annotations

import numpy as np

from experiments.strategies import bound

# One seed, two queries per phase (0.05 s and 0.5 s into it), four phases.
PH = np.repeat(np.arange(bound.PHASES), 2)
INTO = np.tile([0.05, 0.5], bound.PHASES)
A, B, DT = (4.0, 0.25), (0.25, 4.0), (0.5, 0.5)


def _runs() -> dict[tuple[float, float], list[tuple[np.ndarray, ...]]]:
    """QCT (ms) = a code per (setting, query): 1.x under A, 2.x under B, 3.x under DT,
    and 31 / 32 / 33 on the early queries, which those settings lose to a timeout;
    (1, 1) times out on every query but the early ones, where it is the only one that
    does not (a compromise that is best while a phase is new)."""
    qct = {(1.0, 1.0): np.where(INTO < 0.1, 5.0, 30.0)}
    for code, a in enumerate((A, B, DT), start=1):
        qct[a] = np.where(INTO < 0.1, 30.0 + code, code + np.arange(8) / 10)
    return {a: [(q, PH, INTO)] for a, q in qct.items()}


def test_no_lag_is_the_oracle_and_a_lag_keeps_the_previous_setting() -> None:
    runs, pick = _runs(), [A, B, A, B]
    now = bound.lagged_oracle(runs, 0, pick, 0.0, generous=False)
    expect = np.where(PH % 2 == 0, runs[A][0][0], runs[B][0][0])
    assert np.array_equal(now, expect)
    late = bound.lagged_oracle(runs, 0, pick, 0.1, generous=False)
    early = INTO < 0.1
    assert np.array_equal(late[~early], expect[~early])  # after the lag: the phase's pick
    prev = [DT, A, B, A]  # before it: the previous phase's (phase 0: the operator's)
    assert [late[early][k] for k in range(bound.PHASES)] == [
        runs[prev[k]][0][0][early][k] for k in range(bound.PHASES)]


def test_generous_holds_the_best_compromise_through_every_lag() -> None:
    runs, pick = _runs(), [A, B, A, B]
    gen = bound.lagged_oracle(runs, 0, pick, 0.1, generous=True)
    assert np.all(gen[INTO < 0.1] == 5.0)  # (1, 1): no timeout while a phase is new
    plain = bound.lagged_oracle(runs, 0, pick, 0.1, generous=False)
    assert np.all(plain[INTO < 0.1] > 30.0)
    assert np.array_equal(gen[INTO >= 0.1], plain[INTO >= 0.1])


C = (1.0, 1.0)


def _transition_runs() -> dict[tuple[float, float], list[tuple[np.ndarray, ...]]]:
    """A is the best setting of the even phases and B of the odd ones (1 ms), each
    losing the other's queries to two timeouts (31 ms); C is a compromise, 3 ms in
    every phase (2 ms early). The operator's DT starts phase 0 well (2 ms)."""
    early, even = INTO < 0.1, PH % 2 == 0
    return {DT: [(np.where(early, 2.0, 40.0), PH, INTO)],
            A: [(np.where(even, 1.0, 31.0), PH, INTO)],
            B: [(np.where(even, 31.0, 1.0), PH, INTO)],
            C: [(np.where(early, 2.0, 3.0), PH, INTO)]}


def test_splice_takes_the_previous_setting_until_the_lag() -> None:
    runs = _transition_runs()
    out = bound.splice(runs, 0, (A, C, B, A), 0.1)
    early = INTO < 0.1
    assert list(out[early]) == [2.0, 31.0, 2.0, 1.0]  # DT, A, C, B: the previous phase's
    assert list(out[~early]) == [1.0, 3.0, 31.0, 31.0]  # A, C, B, A: the phase's own


def test_joint_oracle_gives_up_a_phase_for_the_next_ones_start() -> None:
    runs = _transition_runs()
    seq0, p0, tw0 = bound.joint_oracle(runs, [A, B, C], 1, 0.0)
    assert seq0 == (A, B, A, B) and p0[0] <= 1.0 and tw0 == 0.0  # no lag: the phase oracle
    # 0.1 s late, the phase oracle loses the start of phases 1-3 to two timeouts ...
    late = bound.splice(runs, 0, (A, B, A, B), 0.1)
    assert np.sum(late >= bound.TWICE_MS) == 3
    # ... the joint oracle holds the compromise where the next phase starts on it
    seq, p99s, twice = bound.joint_oracle(runs, [A, B, C], 1, 0.1)
    assert seq[:3] == (C, C, C) and seq[3] in (B, C)
    assert twice == 0.0 and p99s[0] <= 3.0


def test_a_phase_first_interval_counts_its_double_timeouts_only() -> None:
    """--first: the queries of one phase that start inside the window and wait for two
    timeouts (>= 25 ms), summed over the seeds; one timeout (10-25 ms), a query of
    another phase, or one after the window does not count."""
    qct = np.array([31.0, 12.0, 31.0, 40.0, 31.0, 2.0, 31.0, 31.0])
    ph = np.array([3, 3, 3, 2, 3, 3, 3, 1])
    into = np.array([0.0, 0.05, 0.099, 0.05, 0.1, 0.05, 0.5, 0.05])
    seed = (qct, ph, into)
    assert bound.twice_in([seed], 3, 0.0, 0.1) == 2
    assert bound.twice_in([seed, seed], 3, 0.0, 0.1) == 4
    assert bound.twice_in([seed], 3, 0.1, 0.2) == 1
    assert bound.twice_in([seed], 3, 0.0, bound.PHASE_S) == 4
    assert bound.twice_in([seed], 2, 0.0, 0.1) == 1
