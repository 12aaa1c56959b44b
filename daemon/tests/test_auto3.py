"""The candidate `auto3`: `auto` with the scheduler and retry rules, on hand-made intervals."""

from __future__ import annotations

import pytest
from test_auto import Switch, burst

from alphad import schemes
from alphad.quantize import Quantizer
from alphad.schemes.auto import Auto
from alphad.schemes.auto3 import ABLATIONS, Auto3


def two_classes(**params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme="auto3",
                  **params)


def test_a_burst_counts_when_its_class_had_one_within_hold() -> None:
    sw = two_classes(hold=0.3)
    assert sw.step(**burst(1))[1] == 0.5  # a first burst predicts nothing
    assert sw.step(**burst(1))[1] == 1.0  # a second within hold: raised as `auto` does
    auto = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], hold=0.3)
    assert auto.step(**burst(1))[1] == 1.0
    late = two_classes(hold=0.3)
    late.step(**burst(1))
    for _ in range(3):
        late.step()
    assert late.step(**burst(1))[1] == 0.5  # 0.4 s after the first: it counts anew


def test_a_queue_behind_busy_strict_priority_queues_is_starved_not_burst() -> None:
    def run(strict: tuple) -> float:  # type: ignore[type-arg]
        sw = two_classes(strict=strict)
        # port 0: web's queue sends 40% of line rate, query's idle queue loses 8%, twice
        for _ in range(2):
            out = sw.step(util={0: 0.4, 1: 0.005}, drops={1: 50_000}, peak={1: 200_000})
        return float(out[1])

    assert run(()) == 1.0  # no strict priority: a burst, query is raised
    assert run((0, 1)) == 0.5  # web is served first: query waited behind it
    assert run((1, 0)) == 1.0  # query is served first: nothing starved it
    assert run((0, None)) == 0.5  # a class without a rank comes after every strict one
    quiet = two_classes(strict=(0, 1))  # web served first but nearly idle: a burst
    for _ in range(2):
        out = quiet.step(util={0: 0.05, 1: 0.005}, drops={1: 50_000}, peak={1: 200_000})
    assert out[1] == 1.0


def test_a_class_the_safety_rule_stepped_down_is_not_raised_again_for_hold() -> None:
    def run(scheme: str) -> list[float]:
        sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                    hold=0.3)
        busy = {0: 0.4, 3: 0.4}  # web's long flows on port 0, query's on port 1
        for _ in range(5):  # under DT both lose 0.1%
            sw.step(util=busy, drops={0: 50_000, 3: 50_000})
        query_burst = {"util": {**busy, 1: 0.005}, "peak": {1: 200_000}}
        for _ in range(2 if scheme == "auto3" else 1):  # `auto3` raises on the second
            out = sw.step(**query_burst, drops={0: 50_000, 3: 50_000, 1: 50_000})
        assert out[1] == 1.0
        # web's long flows now lose 0.5%: harm, query steps down while its bursts go on
        return [float(sw.step(**query_burst, drops={0: 250_000, 3: 50_000, 1: 50_000})[1])
                for _ in range(6)]

    after = run("auto3")
    assert after[:3] == [0.5, 0.5, 0.5]  # no retry within hold of the back-off
    assert max(after[3:]) > 0.5  # then bursts raise it again
    assert run("auto")[1] == 1.0  # `auto` raises again the next interval


def test_the_idle_floor_is_loss_min_and_not_a_parameter() -> None:
    sw = two_classes()
    ctx = schemes.SchemeContext(sw.topo, sw.cl, Quantizer(), 0.1)
    with pytest.raises(ValueError, match="idle_loss_min"):
        schemes.get("auto3")(ctx, {"idle_loss_min": 0.02})


def test_harm_sends_a_raised_class_straight_back_to_alpha_p() -> None:
    def run(scheme: str) -> float:
        sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                    hold=0.3)
        busy = {0: 0.4, 3: 0.4}
        for _ in range(5):  # under DT both classes' long flows lose 0.1%
            sw.step(util=busy, drops={0: 50_000, 3: 50_000})
        # a burst no alpha admits (twice for `auto3`): the class goes to the cap
        for _ in range(2 if scheme == "auto3" else 1):
            out = sw.step(util={**busy, 1: 0.005}, drops={0: 50_000, 3: 50_000, 1: 400_000},
                          peak={1: 400_000})
        assert out[1] == 16.0
        # web's long flows lose 0.5%: harm
        return float(sw.step(util=busy, drops={0: 250_000, 3: 50_000})[1])

    assert run("auto3") == 0.5
    assert run("auto") == 8.0  # one level down


def test_each_ablation_variant_drops_one_rule_only() -> None:
    first = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)],
                   scheme="auto3-no-recurrence", hold=0.3)
    assert first.step(**burst(1))[1] == 1.0  # the first burst raises, as under `auto`
    for rule, hook in ABLATIONS.items():
        variant = schemes.get(f"auto3-no-{rule}")
        sw = two_classes()
        made = variant(schemes.SchemeContext(sw.topo, sw.cl, Quantizer(), 0.1), {})
        differ = [h for h in ABLATIONS.values()
                  if getattr(type(made), h) is not getattr(Auto3, h)]
        assert differ == [hook]
        assert getattr(type(made), hook) is getattr(Auto, hook)
