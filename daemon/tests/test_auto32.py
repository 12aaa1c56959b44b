"""`auto32`: `auto18` whose safety rule judges a raise by the classes it does not raise."""

from __future__ import annotations

from test_auto20 import has_auto18s_parameters, writes_as_auto18_without_harm
from test_auto31 import backs_off, raise_then, three_classes


def test_the_loss_of_a_class_not_raised_backs_off_on_either_side() -> None:
    web_busy = {"drops": {0: 312_500}}  # web's busy queue: 0.5% lost
    bulk_idle = {"util": {2: 0.05}, "drops": {2: 40_000}, "peak": {2: 40_000}}  # 0.6%, idle
    for after in (web_busy, bulk_idle):
        assert backs_off("auto32", **after)
    sw = three_classes("auto32")
    raise_then(sw, **web_busy)
    assert sw.sch._harm() == [(1, 0)]  # web's busy queues: what the decisions log reports
    assert not backs_off("auto32")  # web and bulk as under DT


def test_the_raised_class_own_busy_queue_is_not_harm() -> None:
    # the query class's port-1 queue (4) carries sustained flows and loses 2%
    query_busy = {"util": {4: 0.5}, "drops": {4: 1_250_000}, "peak": {4: 100_000}}
    assert backs_off("auto18", **query_busy)
    assert not backs_off("auto32", **query_busy)


def test_a_burst_of_a_class_not_raised_still_backs_off() -> None:
    # bulk's port-0 queue (2), idle, loses 29% in a burst at each interval: its loss while
    # the query class is raised counts as harm here, where `auto31` raises bulk instead
    bulk_burst = {"util": {2: 0.005}, "drops": {2: 250_000}, "peak": {2: 300_000}}
    assert backs_off("auto32", **bulk_burst)
    assert not backs_off("auto31", **bulk_burst)


def test_without_harm_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto32")
    has_auto18s_parameters("auto32")
