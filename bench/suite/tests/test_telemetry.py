"""Telemetry recorded under DT through a real co-simulation, and burst tests judged on it."""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from alphad_ns3.run import default_program

from bench.suite import power, raises, room, safety, scenarios, telemetry
from bench.suite.scenarios import suite


def _tiny(**kw: object) -> scenarios.SuiteScenario:
    """Two leaves of four servers under four spines: data-mining flows in class 0, queries
    of 90% of a leaf's buffer from every server of the other leaf in class 1."""
    base = replace(suite("all")[0], leaves=2, servers=4, spines=4, classes=2, sched="rr",
                   tcp="cubic", load=0.2, burst_classes=(1,), ws_classes=(0,),
                   request_frac=0.9, qps=50.0, fanin=0, alphas=(1.0, 1.0), phases="")
    return replace(base, **kw)  # type: ignore[arg-type]


def test_a_recording_replays_into_flags_of_the_incast_class(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    monkeypatch.setattr(scenarios, "GEN_S", 0.6)
    sc = _tiny()
    data = telemetry.record(sc, 1, tmp_path / "tiny.pkl")
    assert data.exists()
    rec = pickle.loads(data.read_bytes())
    assert set(rec["switches"]) >= {"leaf0", "leaf1"}
    samples = rec["switches"]["leaf0"][2]
    t = np.array([s.t for s in samples])
    assert np.allclose(np.diff(t), 0.1)  # one sample per 100 ms interval
    # two intervals as one: counters are the later sample's, watermarks the peak of both
    two = telemetry._coarsen(samples, 2)
    assert len(two) == len(samples) // 2
    assert np.array_equal(two[0].watermark, np.maximum(samples[0].watermark,
                                                       samples[1].watermark))
    assert np.array_equal(two[0].drop_bytes, samples[1].drop_bytes)
    tally = telemetry.judge(rec, sc, telemetry.TESTS["auto"])
    assert tally.incast > 0 and tally.flagged_incast > 0  # the queries overflow class 1
    assert tally.flagged_other <= tally.flagged_incast
    # confirmed flags are a subset, and the first interval's flag is never confirmed
    once = telemetry.judge(rec, sc, telemetry.TESTS["auto"], confirm=1)
    assert once.incast == tally.incast and once.flagged_incast <= tally.flagged_incast
    # a higher burst fraction flags a subset; the sweep tabulates the same counts
    strict = telemetry.judge(rec, sc, telemetry.TESTS["auto"], params={"burst_frac": 0.5})
    assert strict.flagged_incast <= tally.flagged_incast
    assert strict.flagged_other <= tally.flagged_other
    rows = telemetry.sweep([(sc, rec)], [0.02, 0.5], [0.1], intervals=(("100ms", 1),),
                           after_s=0.0, ahead=False)
    assert len(rows) == 4  # head, rule, one row per burst fraction
    assert rows[2].split(" | ")[2:4] == [f"{tally.flagged_incast} of {tally.incast}",
                                         f"{tally.flagged_other} of {tally.other}"]
    assert rows[3].split(" | ")[2] == f"{strict.flagged_incast} of {strict.incast}"
    ahead = telemetry.judge(rec, sc, telemetry.TESTS["auto"], ahead=True)
    assert ahead.flagged_incast + ahead.flagged_other == tally.flagged_incast + tally.flagged_other
    # the footprint test reads each managed queue's own peak: it flags the incast class too
    foot = telemetry.judge(rec, sc, telemetry.TESTS["footprint"])
    assert foot.incast == tally.incast and foot.flagged_incast > 0
    # replayed through auto9: it raises the query class, and each time its safety rule fires
    # is counted among the decisions made while a class was raised
    alarms = safety.false_alarms([(sc, rec)], "auto9", 1, after_s=0.0)
    assert 0 < alarms.raised <= alarms.decisions
    assert alarms.zero_reference <= alarms.fired <= alarms.raised
    # a rule that calls any loss at all harm fires on DT's own losses
    touchy = safety.false_alarms([(sc, rec)], "auto9", 1, after_s=0.0,
                                 params={"safety": 1e-9, "loss_min": 0.0})
    assert 0 < touchy.fired <= touchy.raised


def test_the_incast_classes_follow_the_phase_plan() -> None:
    # 0.5 s of incast in class 1, then 0.3 s of none (qps 0), then 0.2 s in classes 0 and 2
    sc = _tiny(classes=3, phases="500,0.3,0,10,0.5,1;300,0.3,0,0,0.5,1;200,0.3,1,10,0.5,0+2")
    at = telemetry.incast_classes_at
    start = telemetry.START_S
    assert at(sc, start + 0.1, start + 0.2) == {1}
    assert at(sc, start + 0.55, start + 0.75) == set()
    assert at(sc, start + 0.45, start + 0.85) == {0, 1, 2}
    assert at(sc, start + 1.1, start + 1.2) == {1}  # the plan repeats every second
    assert at(_tiny(), 3.0, 4.0) == {1}  # static: the scenario's burst classes


def test_under_strict_priority_a_queue_behind_busy_higher_classes_is_not_a_burst() -> None:
    # port 0: class 0 busy (50% of line rate), class 1 idle and losing 10% of its bytes
    port, prio = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    e = type("E", (), {})()
    e.rate = np.array([0.5, 0.01, 0.0, 0.01])
    e.tx_delta = np.array([6e6, 1e5, 0.0, 1e5])
    e.drop_delta = np.array([0.0, 1e4, 0.0, 1e4])
    p = {"idle_util": 0.1, "burst_frac": 0.02}
    assert telemetry.TESTS["auto"](e, port, prio, p).tolist() == [False, True, False, True]
    sp = telemetry.TESTS["scheduler (auto4)"](e, port, prio, {**p, "sp": 1.0})
    assert sp.tolist() == [False, False, False, True]  # port 1's class 0 is idle
    rr = telemetry.TESTS["scheduler (auto4)"](e, port, prio, p)
    assert rr.tolist() == [False, True, False, True]  # round robin: the test is idle-loss


def test_the_footprint_test_is_not_diluted_by_quiet_intervals() -> None:
    # one idle queue that lost 20 kB at a peak of 60 kB, in 100 ms and in a second
    port, prio = np.array([0]), np.array([0])
    p = {"idle_util": 0.1, "burst_frac": 0.02, "footprint_frac": 0.1}
    for tx in (2e5, 2e6):  # bytes sent in 100 ms, and in the whole second around it
        e = type("E", (), {})()
        e.rate, e.tx_delta = np.array([0.01]), np.array([tx])
        e.drop_delta, e.watermark = np.array([2e4]), np.array([6e4])
        assert telemetry.TESTS["footprint"](e, port, prio, p).tolist() == [True]
        share = telemetry.TESTS["auto"](e, port, prio, p).tolist()
        assert share == [tx < 1e6]  # 9% of 100 ms's bytes, 1% of the second's


def test_the_safety_replay_takes_only_schemes_with_a_safety_rule() -> None:
    safety.check(["auto9", "auto"])
    with pytest.raises(ValueError, match="'dt' has no safety rule"):
        safety.check(["auto9", "dt"])
    with pytest.raises(ValueError, match="unknown scheme 'nope'"):
        safety.check(["nope"])
    with pytest.raises(ValueError, match="^--scheme: 'dt' has no safety rule"):
        safety.check(["dt"], flag="--scheme")  # `power` and `raises` take one scheme


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """`_tiny` recorded under `auto9`, DT and the placebo (a real co-simulation each)."""
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    mp = pytest.MonkeyPatch()
    mp.setattr(scenarios, "GEN_S", 0.6)
    d = tmp_path_factory.mktemp("three")
    try:
        return {c: pickle.loads(telemetry.record(_tiny(), 1, d / f"{c}.pkl",
                                                 config=c).read_bytes())
                for c in ("auto9", "dt", "placebo")}
    finally:
        mp.undo()


def test_the_safety_rule_is_judged_against_harm_on_three_recordings_in_step(
        three: dict[str, Any]) -> None:
    rec = three
    dt_s, pl_s = rec["dt"]["switches"]["leaf0"][2], rec["placebo"]["switches"]["leaf0"][2]
    assert pl_s[0].alpha[0] == pytest.approx(1.0001)  # the placebo's alphas, not 2^k
    assert dt_s[0].alpha[0] == 1.0
    w = power.power(rec["auto9"], rec["dt"], rec["placebo"], "auto9", after_s=0.0)
    assert w.raised > 0  # the queries raise class 1 in the run
    assert w.harm <= w.raised and w.noise <= w.raised and w.fired <= w.raised
    assert w.fired_harm <= min(w.fired, w.harm)
    # the rule fires exactly where its statistic is above `safety` (auto9's 2)
    assert len(w.scores) == w.raised
    assert w.fired == sum(r > 2.0 for r, _ in w.scores)
    assert 0.0 <= w.auc() <= 1.0 or w.harm in (0, w.raised)
    # DT against itself: no harm and no noise, whatever the rule does
    same = power.power(rec["auto9"], rec["auto9"], rec["auto9"], "auto9", after_s=0.0)
    assert same.raised == w.raised and same.harm == same.noise == 0
    # a run that auto9 did not write cannot be replayed as auto9's
    with pytest.raises(ValueError, match="writes other alphas than the run"):
        power.power(rec["dt"], rec["dt"], rec["placebo"], "auto9", after_s=0.0)


def test_each_raise_of_a_run_is_sorted_by_cause_and_by_incast(three: dict[str, Any]) -> None:
    n = raises.raises(three["auto9"], _tiny(), "auto9")
    assert sum(n.values()) > 0  # the queries raise class 1
    # queries of 90% of a leaf's buffer: some fit beside the pool's occupancy, some do not
    assert {c for c, _ in n} == set(raises.CAUSES)
    assert all(inc for _, inc in n)  # static queries in class 1: every raise has incast
    # the same raises judged against a plan with incast in class 0 only: none has incast
    none = raises.raises(three["auto9"], replace(_tiny(), burst_classes=(0,)), "auto9")
    assert sum(none.values()) == sum(n.values()) and not any(inc for _, inc in none)
    with pytest.raises(ValueError, match="writes other alphas than the run"):
        raises.raises(three["dt"], _tiny(), "auto9")


def test_the_harm_test_is_the_safety_rules_comparison() -> None:
    p = {"safety": 2.0, "loss_min": 0.001}
    ref = [[0.01, 0.01], [0.01, 0.01]]  # idle, busy loss per class
    assert safety.tripped(ref, ref, [False, False], p) == []
    assert safety.tripped([[0.03, 0.01], [0.01, 0.01]], ref, [False, False], p) == [(0, 0)]
    # a raised class's own idle queues are expected to lose less, not judged
    assert safety.tripped([[0.03, 0.01], [0.01, 0.01]], ref, [True, False], p) == []
    # anyone's busy queues are
    assert safety.tripped([[0.01, 0.01], [0.03, 0.01]], ref, [True, False], p) == [(1, 0)]
    assert power.ratio([[0.03, 0.01], [0.01, 0.02]], ref, [False, False], p) == 3.0
    assert power.ratio([[0.03, 0.01], [0.01, 0.02]], ref, [True, False], p) == 2.0
    assert power.ratio([[0.0, 0.01], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
                       [False, False], p) == float("inf")
    both = power.Power(scores=[(3.0, True), (1.0, False), (2.0, True), (2.0, False)])
    assert both.auc() == 0.875  # 3 > 1, 3 > 2, 2 > 1, and 2 = 2 counts half
    # below loss_min nothing is harm
    assert safety.tripped([[0.0009, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
                          [False, False], p) == []


def test_a_recording_of_another_length(three: dict[str, Any], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    short = pickle.loads(telemetry.record(_tiny(), 1, tmp_path / "short.pkl",
                                          gen=0.3).read_bytes())
    t_short = short["switches"]["leaf0"][2][-1].t
    t_default = three["dt"]["switches"]["leaf0"][2][-1].t  # GEN_S 0.6 there
    assert t_short < t_default - 0.2
    from bench.suite.__main__ import main
    assert main(["power", "--half", "s21", "--gen", "0"]) == 2
    assert "--gen: 0 s, must be more than 0" in capsys.readouterr().err


def test_the_room_a_raise_takes_beside_the_other_classes_peaks(
        three: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    xs = room.seconds(three["dt"], 0.1)
    assert xs  # the queries overflow class 1
    for x in xs:
        # the queues that lost nothing are some of the others: their need is no larger
        assert x.room_all <= x.room_clean <= x.free <= 1.0 and x.room_line <= x.free
        assert 0.0 < x.burst_loss <= 1.0 and x.other_rate >= 0.0 and x.other_peak >= 0.0
    assert any(x.room_all < x.room_clean for x in xs)  # web's busy queue fills its threshold
    rows = room.table([(_tiny(), three["dt"])], 0.1)
    assert {r.count("|") for r in rows} == {11}  # head, rule and row: ten columns
    cells = rows[2].split(" | ")
    assert cells[2:5] == [str(len(xs)), str(sum(x.room_all <= 0 for x in xs)),
                          str(sum(x.room_clean <= 0 for x in xs))]
    from bench.suite.__main__ import main
    assert main(["room", "--half", "p00", "--gen", "0"]) == 2
    assert "--gen: 0 s, must be more than 0" in capsys.readouterr().err
    assert main(["room", "--half", "p00", "--config", "abm"]) == 2
    assert "--config" in capsys.readouterr().err
    # a scheme's own run is measured as it ran: auto9's raises take the free buffer
    ran = room.seconds(three["auto9"], 0.1)
    assert ran and all(x.room_all <= x.free for x in ran)
