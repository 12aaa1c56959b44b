"""The candidate `auto2`: the rules where it differs from `auto`, on hand-made intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_auto import Switch, burst


def two_classes(**params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme="auto2", **params)


def test_a_raise_adds_at_most_raise_step_levels() -> None:
    sw = two_classes(raise_step=2)
    # no alpha admits 1.25 S >= B: `auto` goes to the cap (16); here two levels a raise
    assert sw.step(**burst(1, size=400_000, dropped=400_000))[1] == 2.0
    assert sw.step(**burst(1, size=400_000, dropped=400_000))[1] == 8.0
    assert sw.step(**burst(1, size=400_000, dropped=400_000))[1] == 16.0
    one = two_classes(raise_step=1)
    assert one.step(**burst(1, size=400_000, dropped=400_000))[1] == 1.0
    # what the burst needed is still the target when it is within the step
    assert two_classes(raise_step=2).step(**burst(1))[1] == 1.0


def test_a_short_flow_loss_below_the_idle_floor_is_not_harm() -> None:
    def run(scheme: str, **params) -> float:  # type: ignore[no-untyped-def]
        sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                    hold=0.3, **params)
        for _ in range(5):  # under DT the web class's idle queue loses nothing
            sw.step(util={0: 0.05})
        assert sw.step(**burst(1))[1] == 1.0
        for _ in range(4):  # the raise holds; web's short flows lose 1.5% (93.75 of 6250 kB)
            out = sw.step(util={0: 0.05, 1: 0.005}, drops={0: 93_750}, peak={1: 350_000})
        return float(out[1])

    assert run("auto2") == 1.0  # below the 2% floor: not harm
    assert run("auto2", idle_loss_min=0.005) == 0.5
    assert run("auto") == 0.5  # `auto`'s floor on idle queues is loss_min, 0.1%


def test_the_others_loss_is_pooled_across_classes() -> None:
    prios = [("web", [0], 0.5, None), ("query", [1], 0.5, None), ("bulk", [2], 0.5, None)]

    def run(scheme: str) -> float:
        sw = Switch(prios, queues=3, scheme=scheme, hold=0.3)
        busy = {3: 0.4, 5: 0.4}  # port 1: web and bulk
        for _ in range(5):  # under DT both classes' long flows lose 0.1%
            sw.step(util=busy, drops={3: 50_000, 5: 50_000})
        assert sw.step(util={**busy, 1: 0.005}, drops={3: 50_000, 5: 50_000, 1: 50_000},
                       peak={1: 200_000})[1] == 1.0
        # web loses 0.35% while bulk loses none: pooled, 0.175%, under twice DT's 0.1%
        for _ in range(4):
            out = sw.step(util={**busy, 1: 0.005}, drops={3: 175_000}, peak={1: 350_000})
        return float(out[1])

    assert run("auto") == 0.5  # judged class by class, web's loss backs the raise off
    assert run("auto2") == 1.0


def test_loss_every_class_sees_is_no_class_burst() -> None:
    def run(web_drop: float, **params) -> list[float]:  # type: ignore[no-untyped-def]
        sw = two_classes(**params)
        # both classes' idle queues lose: query 50 of 625 kB (8%), web web_drop of 625 kB
        out = sw.step(util={1: 0.005, 2: 0.005}, drops={1: 50_000, 2: web_drop},
                      peak={1: 200_000, 2: 200_000})
        return [float(out[1]), float(out[2])]

    assert run(50_000) == [0.5, 0.5]  # the same share: neither class is raised
    assert run(20_000) == [1.0, 0.5]  # query loses 2.5x web's 3.2%: query is raised
    assert run(50_000, contrast=1.0) == [1.0, 1.0]  # contrast 1: any burst counts


def test_the_raised_class_own_long_flows_are_not_the_others_harm() -> None:
    def run(lossy: int) -> float:
        sw = two_classes(hold=0.3)
        busy = {0: 0.4, 3: 0.4}  # web's long flows on port 0, query's on port 1
        for _ in range(5):  # under DT both lose 0.1% of 50 MB
            sw.step(util=busy, drops={0: 50_000, 3: 50_000})
        assert sw.step(util={**busy, 1: 0.005}, drops={0: 50_000, 3: 50_000, 1: 50_000},
                       peak={1: 200_000})[1] == 1.0
        for _ in range(4):  # now queue `lossy` loses 0.5%
            out = sw.step(util={**busy, 1: 0.005}, drops={0: 50_000, 3: 50_000, lossy: 250_000},
                          peak={1: 350_000})
        return float(out[1])

    assert run(3) == 1.0  # the raised query class's own long flows: not harm
    assert run(0) == 0.5  # web's long flows: harm, the raise backs off


def test_the_dt_reference_decays_once_per_quiet_interval() -> None:
    sw = two_classes(hold=1.0)  # w = 0.1 s / 1 s per interval
    sw.step(util={0: 0.4}, drops={0: 50_000})  # web's long flows lose 50 kB under DT
    for _ in range(3):  # nothing lost: the average and the DT reference decay by 1 - w
        sw.step(util={0: 0.4})
    sch = sw.sch
    assert sch.base is not sch.loss
    assert math.isclose(sch.base[1][0], 50_000 * 0.9 ** 3)
    assert math.isclose(sch.loss[1][0], 50_000 * 0.9 ** 3)


def test_a_queue_behind_busy_strict_priority_queues_is_starved_not_burst() -> None:
    def run(strict: tuple) -> float:  # type: ignore[type-arg]
        sw = two_classes(strict=strict)
        # port 0: web's queue sends 40% of line rate, query's idle queue loses 8%
        return float(sw.step(util={0: 0.4, 1: 0.005}, drops={1: 50_000}, peak={1: 200_000})[1])

    assert run(()) == 1.0  # no strict priority: a burst, query is raised
    assert run((0, 1)) == 0.5  # web is served first: query waited behind it
    assert run((1, 0)) == 1.0  # query is served first: nothing starved it
    assert run((0, None)) == 0.5  # a class without a rank comes after every strict one


def test_strict_ranks_order_the_classes() -> None:
    from pydantic import ValidationError

    from alphad.config import PriorityConfig
    from alphad.model import Classes

    cl = Classes(names=("a", "b", "c"), alpha_p=np.ones(3), prio=np.zeros(0, dtype=np.int32),
                 group=np.arange(3), strict=(1, None, 0))
    assert cl.ahead().tolist() == [[False, True, False], [False, False, False],
                                   [True, True, False]]
    assert not Classes(names=("a",), alpha_p=np.ones(1), prio=np.zeros(0, dtype=np.int32),
                       group=np.arange(1)).ahead().any()
    with pytest.raises(ValidationError, match="strict"):
        PriorityConfig(name="a", queues=[0], strict=-1)


def test_a_class_the_safety_rule_stepped_down_is_not_raised_again_for_hold() -> None:
    sw = two_classes(hold=0.3)
    busy = {0: 0.4, 3: 0.4}  # web's long flows on port 0, query's on port 1
    for _ in range(5):  # under DT both lose 0.1%
        sw.step(util=busy, drops={0: 50_000, 3: 50_000})
    query_burst = {"util": {**busy, 1: 0.005}, "peak": {1: 200_000}}
    assert sw.step(**query_burst, drops={0: 50_000, 3: 50_000, 1: 50_000})[1] == 1.0
    # web's long flows now lose 0.5%: harm, query steps down while its bursts go on
    after = [float(sw.step(**query_burst, drops={0: 250_000, 3: 50_000, 1: 50_000})[1])
             for _ in range(6)]
    assert after[:3] == [0.5, 0.5, 0.5]  # no retry within hold of the back-off
    assert max(after[3:]) > 0.5  # then bursts raise it again
