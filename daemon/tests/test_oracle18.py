"""`oracle18` (`auto18` told which classes carry incast) and the probes built on it."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator

import numpy as np
import pytest
from test_auto import DT, SPEED_BPS, Switch, decide_alike, web_and_bursts
from test_auto20 import has_auto18s_parameters, writes_as_auto18_without_harm
from test_auto30 import two_classes

import alphad.schemes.superseded  # noqa: F401  (registers the probes)
from alphad.schemes.auto18 import HOLD_S
from alphad.schemes.oracle18_fresh import PROBE_S


def told(classes: float, scheme: str = "oracle18", **params: float) -> Switch:
    """`two_classes`' switch (class 0 web, class 1 query) under ``scheme`` told ``classes``."""
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  classes=classes, **params)


def test_told_every_class_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("oracle18")
    has_auto18s_parameters("oracle18")


def test_a_burst_raises_only_a_class_it_was_told_of() -> None:
    burst = {"util": {1: 0.005}, "drops": {1: 50_000}, "peak": {1: 200_000}}  # query's queue
    assert two_classes("oracle18").step(**burst)[1] > 0.5
    assert told(2).step(**burst)[1] > 0.5  # query is class 1
    told_web = told(1)
    assert told_web.step(**burst)[1] == 0.5
    web_burst = {"util": {0: 0.005}, "drops": {0: 50_000}, "peak": {0: 200_000}}
    assert told_web.step(**web_burst)[0] > 0.5


@pytest.mark.parametrize("mask", [0, 1.5, 256])
def test_a_mask_that_names_no_class_is_refused_by_name(mask: float) -> None:
    with pytest.raises(ValueError, match="oracle18: classes"):
        told(mask)


def test_without_the_idle_only_rule_a_busy_queue_of_the_raised_class_takes_the_raise() -> None:
    def query_alphas(scheme: str) -> np.ndarray:
        sw = told(2, scheme)
        # port 0's query queue overflows by a burst while port 1's query queue is busy
        return sw.step(util={1: 0.005, 3: 0.5}, drops={1: 50_000}, peak={1: 200_000})[[1, 3]]

    idle, busy = query_alphas("oracle18")
    assert idle > 0.5 and busy == 0.5
    idle_b, busy_b = query_alphas("oracle18-busy")
    assert idle_b == idle and busy_b == idle


def rules(**switches: float) -> Switch:
    """`oracle18-rules` told the query class, with ``switches``."""
    return told(2, "oracle18-rules", **switches)


def test_with_every_rule_on_it_writes_what_oracle18_busy_writes() -> None:
    for seed in (1, 2):
        assert decide_alike(rules(), told(2, "oracle18-busy"),
                            web_and_bursts(seed, web_busy=True)) > 50


SMALL = {"util": {1: 0.005}, "drops": {1: 20_000}, "peak": {1: 60_000}}  # needs a low level
QUIET_WEB_LOSS = {"util": {0: 0.005}, "drops": {0: 5_000}}  # 0.8% on web's idle queue
CAP = 16.0


def test_at_cap_a_raise_goes_to_the_cap() -> None:
    needed = rules().step(**SMALL)[1]
    assert 0.5 < needed < CAP
    assert rules(at_cap=1).step(**SMALL)[1] == CAP


def test_without_decay_a_raise_outlives_the_hold() -> None:
    def after_quiet(**switches: float) -> float:
        sw = rules(**switches)
        sw.step(**SMALL)
        for _ in range(int(3 * HOLD_S / DT)):
            out = sw.step()
        return float(out[1])

    assert after_quiet() == 0.5
    assert after_quiet(decay=0) == rules().step(**SMALL)[1]


def test_without_zero_reference_harm_a_loss_nobody_saw_under_dt_keeps_the_raise() -> None:
    def after_web_loss(**switches: float) -> tuple[float, float]:
        sw = rules(**switches)
        raised = sw.step(**SMALL)[1]
        for _ in range(10):
            out = sw.step(**QUIET_WEB_LOSS)
        return raised, float(out[1])

    raised, after = after_web_loss()
    assert after < raised  # web lost nothing under DT: its loss is harm
    raised, after = after_web_loss(zero_ref=0)
    assert after == raised


def test_from_start_the_told_classes_begin_at_the_cap() -> None:
    assert rules().step()[1] == 0.5
    out = rules(from_start=1).step()
    assert out[1] == CAP and out[3] == CAP and out[0] == 0.5


@pytest.mark.parametrize("switch", ["at_cap", "decay", "zero_ref", "from_start"])
def test_a_switch_that_is_not_0_or_1_is_refused_by_name(switch: str) -> None:
    with pytest.raises(ValueError, match=f"oracle18-rules: {switch} must be 0 or 1"):
        rules(**{switch: 0.5})


def test_held_a_raise_survives_the_loss_that_steps_oracle18_rules_down() -> None:
    def after_web_loss(scheme: str) -> tuple[float, float]:
        sw = told(2, scheme, at_cap=1)
        raised = sw.step(**SMALL)[1]
        for _ in range(10):  # web's queues lose: harm, to `oracle18-rules`
            out = sw.step(util={0: 0.5, 2: 0.005}, drops={0: 40_000, 2: 5_000})
        return raised, float(out[1])

    raised, after = after_web_loss("oracle18-rules")
    assert raised == CAP and after < raised
    raised, after = after_web_loss("oracle18-held")
    assert raised == CAP and after == CAP


def harm(**switches: float) -> Switch:
    """`oracle18-harm` told the query class, raising to the cap, with ``switches``."""
    return told(2, "oracle18-harm", at_cap=1, **switches)


def lossy_web(seed: int, n: int = 300) -> Iterator[dict]:  # type: ignore[type-arg]
    """`web_and_bursts` with web's queues losing up to 2% of what they send, one interval in
    three: losses that trip the safety rule."""
    rng = random.Random(seed)
    for step in web_and_bursts(seed, n, web_busy=True):
        if rng.random() < 0.3:
            q = rng.choice([0, 2])
            step["drops"] = {**step.get("drops", {}),
                             q: 0.02 * rng.random() * sent(step["util"].get(q, 0.01))}
        yield step


def sent(util: float) -> float:
    """Bytes a queue sends in one interval at ``util`` of line rate."""
    return util * SPEED_BPS / 8 * DT


def loss(util: float, frac: float) -> float:
    """Bytes dropped by a queue that sends at ``util`` and loses ``frac`` of what it is offered."""
    return frac / (1 - frac) * sent(util)


def test_with_both_harm_tests_off_it_writes_what_oracle18_rules_writes() -> None:
    for seed in (1, 2):
        assert decide_alike(harm(), told(2, "oracle18-rules", at_cap=1), lossy_web(seed)) > 50


def lowest_after_raise(sw: Switch, dt_phase: Iterable[dict], harm_phase: dict  # type: ignore[type-arg]
                       ) -> float:
    """The query class's lowest alpha over the intervals of ``harm_phase`` after a raise
    until decay could act, the switch having run ``dt_phase`` as DT."""
    n = round(HOLD_S / DT) - 1
    for step in dt_phase:
        sw.step(**step)
    assert sw.step(**SMALL)[1] == CAP
    return min(float(sw.step(**harm_phase)[1]) for _ in range(n))


def test_pooled_a_small_class_losing_more_keeps_the_raise_until_the_traffic_does() -> None:
    # web's busy queue (15% of line rate) lost 0.3% under DT, query's (90%) 1%
    def busy(web_frac: float) -> dict:  # type: ignore[type-arg]
        return {"util": {0: 0.15, 3: 0.9}, "drops": {0: loss(0.15, web_frac), 3: loss(0.9, 0.01)}}

    dt_phase = [busy(0.003)] * 30
    # web's loss five times its reference; the busy traffic as a whole 1.2 times
    assert lowest_after_raise(harm(), dt_phase, busy(0.015)) == 0.5
    assert lowest_after_raise(harm(pooled=1), dt_phase, busy(0.015)) == CAP
    # web's loss 100 times: the busy traffic as a whole loses 5 times its reference
    assert lowest_after_raise(harm(pooled=1), dt_phase, busy(0.3)) == 0.5


def test_spread_a_loss_within_dts_spread_keeps_more_of_the_raise() -> None:
    def web_idle(frac: float) -> dict:  # type: ignore[type-arg]
        return {"util": {0: 0.005, 2: 0.005},
                "drops": {0: loss(0.005, frac)} if frac else {2: 1_000}}

    spiky = [web_idle(0.9 if i % 20 == 19 else 0.0) for i in range(85)]  # mean 4.5%
    steady = [web_idle(0.045)] * 85
    after = {"util": {0: 0.005}, "drops": {0: loss(0.005, 0.15)}}
    # after steady loss under DT the spread adds nothing: both step the raise down
    assert lowest_after_raise(harm(spread=1), steady, after) == 0.5
    assert lowest_after_raise(harm(), steady, after) == 0.5
    # after the same mean in rare large losses, 15% is within what DT's spread allows
    assert lowest_after_raise(harm(), spiky, after) == 0.5
    assert lowest_after_raise(harm(spread=1), spiky, after) > 0.5


@pytest.mark.parametrize("switch", ["pooled", "spread"])
def test_a_harm_switch_that_is_not_0_or_1_is_refused_by_name(switch: str) -> None:
    with pytest.raises(ValueError, match=f"oracle18-harm: {switch} must be 0 or 1"):
        harm(**{switch: 2})


def fresh_after_raise(scheme: str, loses: Callable[[int], dict]) -> list[float]:  # type: ignore[type-arg]
    """The query class's alpha over the two seconds after a raise told ``scheme`` makes,
    web's idle queues losing ``loses(k)`` in interval k; web lost nothing under DT before."""
    sw = told(2, scheme, at_cap=1)
    for _ in range(10):
        sw.step(util={0: 0.005, 2: 0.005}, drops={2: 100})
    out = [float(sw.step(**SMALL)[1])]
    return out + [float(sw.step(**loses(k))[1]) for k in range(round(HOLD_S / DT) - 1)]


def web_loses(frac: float) -> dict:  # type: ignore[type-arg]
    return {"util": {0: 0.005, 2: 0.005}, "drops": {0: loss(0.005, frac)} if frac else {2: 100}}


PROBE = round(PROBE_S / DT) - 1  # the output, after the raise, that runs the next interval as DT
PROBES = [PROBE, PROBE + round(PROBE_S / DT)]  # those in the two seconds after it


def test_fresh_one_interval_per_probe_runs_as_dt_and_the_raise_returns() -> None:
    alphas = fresh_after_raise("oracle18-fresh", lambda k: web_loses(0.0))
    assert [i for i, a in enumerate(alphas) if a != CAP] == PROBES
    assert all(alphas[i] == 0.5 for i in PROBES)


def test_fresh_a_loss_dt_meets_too_keeps_the_raise_a_loss_it_does_not_steps_it_down() -> None:
    steady = fresh_after_raise("oracle18-fresh", lambda k: web_loses(0.01))
    assert min(a for i, a in enumerate(steady) if i not in PROBES) == CAP
    # `oracle18-rules` judges the same loss against the run's first second: harm
    assert min(fresh_after_raise("oracle18-rules", lambda k: web_loses(0.01))) == 0.5
    only_raised = fresh_after_raise("oracle18-fresh",
                                    lambda k: web_loses(0.0 if k == PROBE else 0.01))
    assert only_raised[PROBE + 2] < CAP and only_raised[-1] == 0.5


def evidence_from_start(scheme: str, frac: float) -> list[float]:
    """The query class's alpha over the second after a raise ``scheme`` makes in the run's
    first interval, web's idle queues losing ``frac``."""
    sw = told(2, scheme, at_cap=1)
    return [float(sw.step(**SMALL)[1])] + [float(sw.step(**web_loses(frac))[1])
                                           for _ in range(PROBE + 2)]


def test_evidence_a_raise_after_a_second_of_dt_is_judged_at_once() -> None:
    assert min(fresh_after_raise("oracle18-fresh", lambda k: web_loses(0.01))[:PROBE]) == CAP
    judged = fresh_after_raise("oracle18-evidence", lambda k: web_loses(0.01))
    assert min(judged[:PROBE]) < CAP  # stepped down before any probe, as `oracle18-rules` is
    assert judged == fresh_after_raise("oracle18-rules", lambda k: web_loses(0.01))


def test_evidence_a_raise_made_before_a_second_of_dt_waits_for_its_probe() -> None:
    alphas = evidence_from_start("oracle18-evidence", 0.01)
    assert alphas == evidence_from_start("oracle18-fresh", 0.01)
    assert [i for i, a in enumerate(alphas) if a != CAP] == [PROBE + 1]  # the probe itself


def test_quiet_harm_returns_the_class_to_alpha_p_and_no_burst_raises_it_for_the_hold() -> None:
    def after_harm(quiet: float) -> list[float]:
        sw = told(2, "oracle18-evidence", at_cap=1, quiet=quiet)
        for _ in range(10):
            sw.step(**web_loses(0.0))
        assert sw.step(**SMALL)[1] == CAP
        harmed = {"util": {0: 0.005, 1: 0.005}, "drops": {0: loss(0.005, 0.2), 1: 20_000},
                  "peak": {1: 60_000}}
        return [float(sw.step(**harmed)[1])] + [float(sw.step(**SMALL)[1])
                                                for _ in range(2 * hold)]

    hold = round(HOLD_S / DT)
    quiet = after_harm(1)
    assert set(quiet[:hold]) == {0.5}  # DT for HOLD_S, bursts or not
    assert quiet[hold] == CAP and quiet[hold + 1] == 0.5  # then one raise, and harm again
    stepped = after_harm(0)  # a level an interval, and the next burst raises it again
    assert stepped[:6] == [8.0, 4.0, 2.0, 1.0, 0.5, CAP] and stepped.count(CAP) > 5


def test_a_quiet_switch_that_is_not_0_or_1_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="oracle18-evidence: quiet must be 0 or 1"):
        told(2, "oracle18-evidence", quiet=0.5)


def test_without_the_busy_floor_a_small_loss_over_its_reference_on_a_busy_queue_is_harm() -> None:
    def web_busy(frac: float) -> dict:  # type: ignore[type-arg]
        return {"util": {0: 0.5}, "drops": {0: loss(0.5, frac)}}

    def before_probe(**switches: float) -> list[float]:
        sw = told(2, "oracle18-floor", at_cap=1, **switches)
        for _ in range(30):  # 0.02% lost under DT
            sw.step(**web_busy(0.0002))
        assert sw.step(**SMALL)[1] == CAP
        return [float(sw.step(**web_busy(0.0008))[1]) for _ in range(PROBE - 1)]  # four times

    assert set(before_probe()) == {CAP}  # below LOSS_MIN: never harm
    assert min(before_probe(busy_floor=0)) < CAP


def test_without_the_busy_floor_the_idle_queues_keep_theirs() -> None:
    def idle_after_raise(**switches: float) -> list[float]:
        sw = told(2, "oracle18-floor", at_cap=1, **switches)
        for _ in range(30):
            sw.step(**web_loses(0.0002))
        assert sw.step(**SMALL)[1] == CAP
        return [float(sw.step(**web_loses(0.0008))[1]) for _ in range(PROBE - 1)]

    assert idle_after_raise(busy_floor=0) == idle_after_raise() == [CAP] * (PROBE - 1)
    with pytest.raises(ValueError, match="oracle18-floor: busy_floor must be 0 or 1"):
        told(2, "oracle18-floor", busy_floor=2)


def since_raise(web_frac: float, **switches: float) -> list[float]:
    """The query class's alpha over the intervals before the first probe of a raise made
    after three seconds of DT in which web's busy queue lost 0.5%, web's busy queue losing
    ``web_frac`` under the raise."""
    sw = told(2, "oracle18-since", at_cap=1, **switches)
    for _ in range(30):
        sw.step(util={0: 0.5}, drops={0: loss(0.5, 0.005)})
    assert sw.step(**SMALL)[1] == CAP
    return [float(sw.step(util={0: 0.5}, drops={0: loss(0.5, web_frac)})[1])
            for _ in range(PROBE - 1)]


def test_since_a_raise_that_harms_is_stepped_down_in_its_first_interval() -> None:
    averaged = since_raise(0.03)  # six times the reference: the 2 s average needs intervals
    counted = since_raise(0.03, since=1)
    assert counted[0] < CAP and averaged[0] == CAP and min(counted) < min(averaged)


def test_since_a_loss_dt_met_keeps_the_raise_either_way() -> None:
    assert since_raise(0.006) == since_raise(0.006, since=1) == [CAP] * (PROBE - 1)


def test_since_quiet_returns_to_dt_at_once_and_counts_afresh_from_the_next_raise() -> None:
    sw = told(2, "oracle18-since", at_cap=1, since=1, quiet=1)
    for _ in range(30):
        sw.step(util={0: 0.5}, drops={0: loss(0.5, 0.005)})
    assert sw.step(**SMALL)[1] == CAP
    harmed = {"util": {0: 0.5}, "drops": {0: loss(0.5, 0.03)}}
    assert sw.step(**harmed)[1] == 0.5
    hold = round(HOLD_S / DT)
    burst = {"util": {0: 0.5, 1: 0.005}, "drops": {0: loss(0.5, 0.005), 1: 20_000},
             "peak": {1: 60_000}}
    after = [float(sw.step(**burst)[1]) for _ in range(hold + 1)]
    assert set(after[:hold - 1]) == {0.5} and after[-1] == CAP  # no raise for HOLD_S
    # the loss before DT's hold is not counted against the new raise
    assert [float(sw.step(util={0: 0.5}, drops={0: loss(0.5, 0.006)})[1])
            for _ in range(3)] == [CAP] * 3


def test_a_since_switch_that_is_not_0_or_1_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="oracle18-since: since must be 0 or 1"):
        told(2, "oracle18-since", since=3)


def memo(**switches: float) -> Switch:
    """`oracle18-memo` told the query class, after three seconds of DT in which web's busy
    queue lost 0.5%, with ``switches``."""
    sw = told(2, "oracle18-memo", **switches)
    for _ in range(30):
        sw.step(util={0: 0.5}, drops={0: loss(0.5, 0.005)})
    return sw


def raised_and_web_loses(frac: float, query_peak: float) -> dict:  # type: ignore[type-arg]
    """An interval under a raise: web's busy queue loses ``frac`` at a peak of 100 kB, the
    query queue peaks at ``query_peak`` bytes (of the 1 MB buffer)."""
    return {"util": {0: 0.5}, "drops": {0: loss(0.5, frac)},
            "peak": {0: 100_000, 1: query_peak}}


def test_memo_with_both_switches_off_it_writes_what_oracle18_since_writes() -> None:
    base = {"at_cap": 1.0, "quiet": 1.0, "busy_floor": 0.0, "since": 1.0}
    for seed in (1, 2):
        assert decide_alike(told(2, "oracle18-memo", memory=0, used=0),
                            told(2, "oracle18-since", **base), lossy_web(seed)) > 50


def test_memo_a_loss_while_the_raised_class_holds_what_dt_admits_is_not_the_raises() -> None:
    def first_intervals(query_peak: float, **switches: float) -> list[float]:
        sw = memo(**switches)
        assert sw.step(**SMALL)[1] == CAP
        return [float(sw.step(**raised_and_web_loses(0.03, query_peak))[1])
                for _ in range(3)]

    # 100 kB is under alpha_p (0.5) times the 0.8 MB left free: DT admits it
    assert first_intervals(100_000) == [CAP] * 3
    assert first_intervals(100_000, used=0)[0] == 0.5  # counted: six times the reference
    # 400 kB is more than 0.5 times the 0.5 MB left free: the raise is used, and harms
    assert first_intervals(400_000)[0] == 0.5


def test_memo_each_harm_in_a_row_doubles_the_hold_and_a_decay_clears_it() -> None:
    hold = round(HOLD_S / DT)
    burst = {"util": {0: 0.5, 1: 0.005}, "drops": {0: loss(0.5, 0.005), 1: 20_000},
             "peak": {1: 60_000}}

    def dt_held_after_harm(sw: Switch) -> int:
        """Intervals of DT after a harm, bursts arriving in each, until the next raise."""
        assert sw.step(**raised_and_web_loses(0.03, 400_000))[1] == 0.5
        n = 0
        while sw.step(**burst)[1] != CAP:
            n += 1
            assert n < 10 * hold
        return n

    sw = memo()
    assert sw.step(**SMALL)[1] == CAP
    def about(n: int) -> range:  # a hold of n intervals, ended one early or late by float time
        return range(n - 1, n + 2)

    held = [dt_held_after_harm(sw) for _ in range(3)]
    assert [h in about(hold * 2**k) for k, h in enumerate(held)] == [True] * 3
    no_memory = memo(memory=0)
    assert no_memory.step(**SMALL)[1] == CAP
    assert all(dt_held_after_harm(no_memory) in about(hold) for _ in range(3))
    # a raise that decays to alpha_p without harm: the next harm holds HOLD_S again
    quiet = {"util": {0: 0.5}, "drops": {0: loss(0.5, 0.005)}}
    decayed = [float(sw.step(**quiet)[1]) for _ in range(8 * hold)]  # a level per HOLD_S
    assert decayed[:2] == [CAP, CAP] and set(decayed[-2 * hold:]) == {0.5}
    assert sw.step(**SMALL)[1] == CAP
    assert dt_held_after_harm(sw) in about(hold)


def test_a_memo_switch_that_is_not_0_or_1_is_refused_by_name() -> None:
    for switch in ("memory", "used"):
        with pytest.raises(ValueError, match=f"oracle18-memo: {switch} must be 0 or 1"):
            told(2, "oracle18-memo", **{switch: 2})


QUIET = {"util": {0: 0.5}, "drops": {0: loss(0.5, 0.005)}}  # web's busy queue loses 0.5%


class Twinned:
    """`memo`'s switch under `oracle18-cf` beside a DT switch of its own: each interval the
    scheme is told the DT switch's estimates of its interval, then decides on its own."""

    def __init__(self, scheme: str = "oracle18-cf", **switches: float) -> None:
        self.sw = told(2, scheme, **switches)
        self.dt = told(2)
        self.seen: list = []  # type: ignore[type-arg]
        decide = self.dt.sch
        self.dt.sch = lambda e: (self.seen.append(e), decide(e))[1]  # type: ignore[method-assign]
        for _ in range(30):
            self.step(QUIET, QUIET)

    def step(self, run: dict, dt: dict) -> float:  # type: ignore[type-arg]
        """The query class's alpha after an interval of ``run``, DT having met ``dt``."""
        self.dt.step(**dt)
        self.sw.sch.tell_dt(self.seen[-1])
        return float(self.sw.step(**run)[1])


def test_cf_with_the_switch_off_it_writes_what_oracle18_memo_writes() -> None:
    for seed in (1, 2):
        assert decide_alike(told(2, "oracle18-cf", cf=0), told(2, "oracle18-memo"),
                            lossy_web(seed)) > 50
    assert told(2, "oracle18-cf").sch.tells_dt and not told(2, "oracle18-cf", cf=0).sch.tells_dt


def test_cf_a_loss_dt_meets_on_the_same_arrivals_keeps_the_raise_memo_steps_it_down() -> None:
    harmed = raised_and_web_loses(0.03, 400_000)  # used, six times memo's reference
    same = {"util": {0: 0.5}, "drops": {0: loss(0.5, 0.03)}}
    cf = Twinned()
    assert cf.step(SMALL, QUIET) == CAP
    assert [cf.step(harmed, same) for _ in range(5)] == [CAP] * 5
    alone = memo()
    assert alone.step(**SMALL)[1] == CAP
    assert alone.step(**harmed)[1] == 0.5


def test_cf_a_loss_dt_does_not_meet_returns_to_dt_at_once() -> None:
    cf = Twinned()
    assert cf.step(SMALL, QUIET) == CAP
    assert cf.step(raised_and_web_loses(0.03, 400_000), QUIET) == 0.5


def test_cf_no_interval_runs_as_dt_for_a_probe() -> None:
    def while_raised(**switches: float) -> list[float]:
        cf = Twinned(**switches)
        assert cf.step(SMALL, QUIET) == CAP
        return [cf.step(SMALL, QUIET) for _ in range(2 * round(PROBE_S / DT))]

    assert set(while_raised()) == {CAP}
    assert while_raised(cf=0).count(0.5) == len(PROBES)  # memo probes once a second


def test_shadow_is_cf_told_by_the_program_not_by_a_twin() -> None:
    """`oracle18-shadow` decides as `oracle18-cf` on the same told estimates; the harness
    tells it from the program's counter (its factory asks for ``--shadowDt``), not a twin."""
    from alphad.schemes._base import get

    harmed = raised_and_web_loses(0.03, 400_000)
    same = {"util": {0: 0.5}, "drops": {0: loss(0.5, 0.03)}}
    script = [(SMALL, QUIET), (harmed, same), (harmed, same), (harmed, QUIET), (SMALL, QUIET),
              *[(QUIET, QUIET)] * 40, (SMALL, QUIET), (harmed, QUIET)]
    cf, sh = Twinned("oracle18-cf"), Twinned("oracle18-shadow")
    out = [(cf.step(r, d), sh.step(r, d)) for r, d in script]
    assert all(a == b for a, b in out) and CAP in {a for a, _ in out} and len(set(out)) > 1
    assert not sh.sw.sch.tells_dt and getattr(get("oracle18-shadow"), "reads_shadow_dt", False)
    assert not getattr(get("oracle18-cf"), "reads_shadow_dt", False)


def test_shadow_factor_sets_the_loss_a_raise_may_cost_the_others() -> None:
    """A raise that costs the others three times DT's loss is stepped down at the default
    factor of 2 and kept at 4; the factor is a parameter of `oracle18-shadow` only."""
    harmed = raised_and_web_loses(0.03, 400_000)
    third = {"util": {0: 0.5}, "drops": {0: loss(0.5, 0.01)}}

    def run(**params: float) -> list[float]:
        sh = Twinned("oracle18-shadow", **params)
        assert sh.step(SMALL, QUIET) == CAP
        return [sh.step(harmed, third) for _ in range(5)]

    assert 0.5 in run() and run(safety=2) == run()
    assert run(safety=4) == [CAP] * 5
    with pytest.raises(ValueError, match="safety"):
        told(2, "oracle18-cf", safety=4)
