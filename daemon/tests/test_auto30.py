"""`auto30`: `auto18` that raises no class served after busy strict-priority traffic."""

from __future__ import annotations

import numpy as np
from test_auto import Switch, web_and_bursts
from test_auto20 import has_auto18s_parameters


def two_classes(scheme: str = "auto30", strict: tuple = ()):  # type: ignore[no-untyped-def,type-arg]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  strict=strict)


def first_burst(strict: tuple, web: dict[int, float], scheme: str = "auto30") -> float:  # type: ignore[type-arg]
    """The query class's alpha after a burst on port 0's query queue (queue 1), web's queues
    sending ``web`` of line rate."""
    sw = two_classes(scheme, strict)
    return float(sw.step(util={**web, 1: 0.005}, drops={1: 50_000}, peak={1: 200_000})[1])


def test_a_class_served_after_a_busy_class_on_any_port_is_not_raised() -> None:
    other_port = {2: 0.4}  # web busy on port 1 only; port 0 has its line rate to spare
    assert first_burst((0, 1), other_port) == 0.5  # web served first and busy: no raise
    assert first_burst((0, 1), other_port, "auto4") > 0.5  # a port-local test raises it
    assert first_burst((0, 1), other_port, "auto18") > 0.5
    assert first_burst((1, 0), other_port) > 0.5  # query served first: raised
    assert first_burst((0, None), other_port) == 0.5  # no rank: after every strict class
    assert first_burst((0, 1), {0: 0.05, 2: 0.05}) > 0.5  # web idle everywhere: a burst
    assert first_burst((), other_port) > 0.5  # no strict priority: auto18's raise


def test_without_strict_priority_it_writes_what_auto18_writes() -> None:
    for seed in (1, 2):
        a, b = two_classes(), two_classes("auto18")
        raised = 0
        for step in web_and_bursts(seed, web_busy=True):
            out = a.step(**step)
            np.testing.assert_array_equal(out, b.step(**step))
            raised += bool((out > 0.5).any())
        assert raised > 3
    has_auto18s_parameters("auto30")


def test_under_strict_priority_no_burst_beside_busy_web_raises_the_query_class() -> None:
    a, b = two_classes(strict=(0, 1)), two_classes("auto18", strict=(0, 1))
    n_a = n_b = 0
    for step in web_and_bursts(3, web_busy=True):  # web's port-0 queue at 50% with each burst
        n_a += bool((a.step(**step) > 0.5).any())
        n_b += bool((b.step(**step) > 0.5).any())
    assert n_a == 0 < n_b
