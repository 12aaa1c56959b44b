"""The candidate `auto8`: `auto` whose safety rule steps down at most once per ``hold``,
and nothing else."""

from __future__ import annotations

import random

from test_auto import Switch


def two_classes(scheme: str = "auto8", **params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  **params)


def harm_after_a_big_raise(scheme: str) -> list[float]:
    """The query class's alpha each interval: raised to the cap by a burst no alpha admits,
    then the web class's long flows lose five times their loss under DT, interval after
    interval."""
    sw = two_classes(scheme, hold=0.5)
    busy = {0: 0.4, 2: 0.4}
    for _ in range(5):  # under DT the web class's long flows lose 0.1%
        sw.step(util=busy, drops={0: 50_000, 2: 50_000})
    out = [sw.step(util={**busy, 1: 0.005}, drops={0: 50_000, 2: 50_000, 1: 400_000},
                   peak={1: 400_000})[1]]
    for _ in range(10):
        out.append(sw.step(util=busy, drops={0: 250_000, 2: 250_000})[1])
    return [float(a) for a in out]


def test_harm_steps_down_once_per_hold_not_every_interval() -> None:
    auto = harm_after_a_big_raise("auto")
    # the first lossy interval moves the average too little; then a step every interval
    assert auto[:7] == [16.0, 16.0, 8.0, 4.0, 2.0, 1.0, 0.5]
    auto8 = harm_after_a_big_raise("auto8")
    assert auto8[:3] == [16.0, 16.0, 8.0]  # the same first step
    assert auto8[3:7] == [8.0] * 4  # the average still shows 16: no step within the hold
    assert auto8[7] == 4.0  # a hold later, judged again at 8: one more step


def test_where_the_interval_is_the_hold_it_decides_as_auto() -> None:
    tick = 0.125  # s: an interval whose sums are exact, so t - last step is exactly a hold

    def levels(scheme: str, hold: float) -> list[float]:
        r = random.Random(3)
        sw = two_classes(scheme, hold=hold, interval=tick)
        busy = {0: 0.4, 2: 0.4}
        for _ in range(5):  # under DT the web class's long flows lose 0.1%
            sw.step(util=busy, drops={0: 50_000, 2: 50_000}, dt=tick)
        out = []
        for _ in range(200):  # bursts of every size, harm to the web class, quiet
            kind = r.random()
            if kind < 0.3:
                size = r.uniform(1e5, 4e5)
                step = {"util": {**busy, 1: 0.005}, "drops": {1: size / 2}, "peak": {1: size}}
            elif kind < 0.6:
                step = {"util": busy, "drops": {0: r.uniform(5e4, 4e5), 2: 5e4}}
            else:
                step = {"util": busy, "drops": {0: 5e4, 2: 5e4}}
            out.append(float(sw.step(**step, dt=tick)[1]))
        return out

    # with hold = the interval every harm may step down, as in `auto`
    assert levels("auto8", tick) == levels("auto", tick)
    # the same traffic with a longer hold: harm within a hold, and the two differ
    assert levels("auto8", 4 * tick) != levels("auto", 4 * tick)
