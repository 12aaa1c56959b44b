"""`auto31`: `auto18` whose safety rule judges a raise by the classes it leaves alone; and
what it shares with `auto32`, which judges every class that is not raised (and with
`auto33`, `auto32` on idle queues only)."""

from __future__ import annotations

import pytest
from test_auto import Switch
from test_auto20 import has_auto18s_parameters, writes_as_auto18_without_harm


def three_classes(scheme: str = "auto31"):  # type: ignore[no-untyped-def]
    # port p's queues 3p, 3p+1, 3p+2: classes "web", "query", "bulk"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None),
                   ("bulk", [2], 0.5, None)], queues=3, scheme=scheme)


def raise_then(sw: Switch, **after: dict) -> list[float]:  # type: ignore[type-arg]
    """Under DT web and bulk lose 0.1% on their busy queues (0 on port 0, 5 on port 1); a
    burst that no alpha admits raises the query class to the cap on port 0's query queue
    (1); then, for twelve intervals, the queues lose what ``after`` says. Returns that
    query queue's alpha (idle, so it takes the raise) after each interval from the raise on."""
    base = {"util": {0: 0.5, 5: 0.5}, "drops": {0: 62_500, 5: 62_500},
            "peak": {0: 100_000, 5: 100_000}}
    for _ in range(30):
        sw.step(**base)
    out = [sw.step(util={**base["util"], 1: 0.005}, drops={**base["drops"], 1: 500_000},
                   peak={**base["peak"], 1: 900_000}, pool=1e6)[1]]
    step = {k: {**base[k], **after.get(k, {})} for k in base}
    for _ in range(12):
        out.append(sw.step(**step)[1])
    return out


def backs_off(scheme: str, **after: dict) -> bool:  # type: ignore[type-arg]
    out = raise_then(three_classes(scheme), **after)
    assert out[0] == 16.0  # the cap: no alpha admits the burst
    return min(out) < 16.0


@pytest.mark.parametrize("scheme", ["auto31", "auto32"])
def test_the_loss_of_a_class_left_alone_backs_off_on_either_side(scheme: str) -> None:
    web_busy = {"drops": {0: 312_500}}  # web's busy queue: 0.5% lost
    bulk_idle = {"util": {2: 0.05}, "drops": {2: 40_000}, "peak": {2: 40_000}}  # 0.6%, idle
    for after in (web_busy, bulk_idle):
        assert backs_off(scheme, **after) and backs_off("auto18", **after)
    sw = three_classes(scheme)
    raise_then(sw, **web_busy)
    assert sw.sch._harm() == [(1, 0)]  # web's busy queues: what the decisions log reports
    assert not backs_off(scheme) and not backs_off("auto18")  # web and bulk as under DT


@pytest.mark.parametrize("scheme", ["auto31", "auto32", "auto33"])
def test_the_raised_class_own_busy_queue_is_not_harm(scheme: str) -> None:
    # the query class's port-1 queue (4) carries sustained flows and loses 2%
    query_busy = {"util": {4: 0.5}, "drops": {4: 1_250_000}, "peak": {4: 100_000}}
    assert backs_off("auto18", **query_busy)
    assert not backs_off(scheme, **query_busy)


def test_a_burst_of_a_class_left_alone_raises_it_instead_of_backing_off() -> None:
    # bulk's port-0 queue (2), idle, loses 29% in a burst at each interval
    bulk_burst = {"util": {2: 0.005}, "drops": {2: 250_000}, "peak": {2: 300_000}}
    assert backs_off("auto18", **bulk_burst)
    assert not backs_off("auto31", **bulk_burst)
    sw = three_classes()
    raise_then(sw, **bulk_burst)
    assert sw.sch.level[2] > 0  # bulk raised by its own bursts


def test_without_harm_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto31")
    has_auto18s_parameters("auto31")
