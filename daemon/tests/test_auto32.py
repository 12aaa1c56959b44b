"""`auto32`: `auto18` whose safety rule judges a raise by the classes it does not raise.
What it shares with `auto31` is tested there."""

from __future__ import annotations

from test_auto20 import has_auto18s_parameters, writes_as_auto18_without_harm
from test_auto31 import backs_off


def test_a_burst_of_a_class_not_raised_still_backs_off() -> None:
    # bulk's port-0 queue (2), idle, loses 29% in a burst at each interval: its loss while
    # the query class is raised counts as harm here, where `auto31` raises bulk instead
    bulk_burst = {"util": {2: 0.005}, "drops": {2: 250_000}, "peak": {2: 300_000}}
    assert backs_off("auto32", **bulk_burst)
    assert not backs_off("auto31", **bulk_burst)


def test_without_harm_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto32")
    has_auto18s_parameters("auto32")
