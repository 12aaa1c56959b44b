"""The candidate `auto5`: `auto4` with a ceiling that the safety rule sets and hold lifts."""

from __future__ import annotations

from test_auto import Switch


def _harmed(scheme: str) -> tuple[Switch, list[float]]:
    """A query burst that no alpha admits raises query to the cap; web's long flows then
    lose 0.5% against 0.1% under DT: harm. The alphas of query after each later interval:
    a second such burst, a quiet interval, then a third burst after ``hold``."""
    sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                hold=0.3)
    busy = {0: 0.4, 3: 0.4}
    for _ in range(5):  # under DT both classes' long flows lose 0.1%
        sw.step(util=busy, drops={0: 50_000, 3: 50_000})
    big = {"util": {**busy, 1: 0.005}, "peak": {1: 400_000}}
    assert sw.step(**big, drops={0: 50_000, 3: 50_000, 1: 400_000})[1] == 16.0
    out = [float(sw.step(util=busy, drops={0: 250_000, 3: 50_000})[1])]  # harm
    out.append(float(sw.step(**big, drops={0: 50_000, 3: 50_000, 1: 400_000})[1]))
    for _ in range(3):  # 0.3 s without harm
        out.append(float(sw.step(util=busy, drops={0: 50_000, 3: 50_000})[1]))
    out.append(float(sw.step(**big, drops={0: 50_000, 3: 50_000, 1: 400_000})[1]))
    return sw, out


def test_a_step_down_by_the_safety_rule_caps_the_next_raises() -> None:
    _, auto4 = _harmed("auto4")
    _, auto5 = _harmed("auto5")
    assert auto4[:2] == [8.0, 16.0]  # auto4 climbs back to the cap at the next burst
    assert auto5[:2] == [8.0, 8.0]  # auto5 stays at the level it stepped down to


def test_each_hold_without_harm_lifts_the_ceiling_one_level() -> None:
    sw, out = _harmed("auto5")
    assert out[-1] == 16.0  # a hold later the burst may take the class to the cap again
    assert sw.sch.ceiling[1] == sw.sch.max_level[1]


def test_without_harm_it_decides_as_auto4() -> None:
    def run(scheme: str) -> list[float]:
        sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                    hold=0.3)
        return [float(sw.step(**({"util": {1: 0.005}, "peak": {1: 100_000 * (1 + i % 3)},
                                   "drops": {1: 30_000}} if i % 4 else {}))[1])
                for i in range(30)]

    assert run("auto5") == run("auto4")


def test_steps_down_within_hold_of_a_cut_leave_the_ceiling() -> None:
    sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme="auto5",
                hold=0.3)
    busy = {0: 0.4, 3: 0.4}
    for _ in range(5):
        sw.step(util=busy, drops={0: 50_000, 3: 50_000})
    big = {"util": {**busy, 1: 0.005}, "peak": {1: 400_000}}
    assert sw.step(**big, drops={0: 50_000, 3: 50_000, 1: 400_000})[1] == 16.0
    harm = {"util": busy, "drops": {0: 250_000, 3: 50_000}}
    assert [float(sw.step(**harm)[1]) for _ in range(2)] == [8.0, 4.0]  # the same harm
    assert sw.sch.ceiling[1] == 4  # level 4: alpha 0.5 * 2^4 = 8, set by the first step


def test_auto6_holds_its_level_while_the_averages_still_show_the_harm() -> None:
    def run(scheme: str) -> list[float]:
        sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                    hold=0.25)
        busy = {0: 0.4, 3: 0.4}
        for _ in range(5):
            sw.step(util=busy, drops={0: 50_000, 3: 50_000})
        big = {"util": {**busy, 1: 0.005}, "peak": {1: 400_000}}
        sw.step(**big, drops={0: 50_000, 3: 50_000, 1: 400_000})
        harm = {"util": busy, "drops": {0: 250_000, 3: 50_000}}
        return [float(sw.step(**harm)[1]) for _ in range(5)]

    assert run("auto5") == [8.0, 4.0, 2.0, 1.0, 0.5]  # a step every interval
    assert run("auto6") == [8.0, 8.0, 8.0, 4.0, 4.0]  # a step per hold (0.25 s)
