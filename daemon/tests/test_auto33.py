"""`auto33`: `auto32` whose safety rule reads only the idle queues of the classes it does
not raise. What it shares with `auto31` and `auto32` is tested there."""

from __future__ import annotations

from test_auto20 import has_auto18s_parameters, writes_as_auto18_without_harm
from test_auto31 import backs_off, raise_then, three_classes


def test_a_busy_queue_loss_of_a_class_not_raised_is_not_harm() -> None:
    web_busy = {"drops": {0: 312_500}}  # web's busy queue: 0.5% lost
    assert backs_off("auto32", **web_busy)
    assert not backs_off("auto33", **web_busy)
    sw = three_classes("auto33")
    raise_then(sw, **web_busy)
    assert sw.sch._harm() == []


def test_an_idle_queue_loss_of_a_class_not_raised_backs_off() -> None:
    bulk_idle = {"util": {2: 0.05}, "drops": {2: 40_000}, "peak": {2: 40_000}}  # 0.6%, idle
    bulk_burst = {"util": {2: 0.005}, "drops": {2: 250_000}, "peak": {2: 300_000}}
    for after in (bulk_idle, bulk_burst):
        assert backs_off("auto33", **after)
    assert not backs_off("auto33")  # web and bulk as under DT


def test_without_harm_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto33")
    has_auto18s_parameters("auto33")
