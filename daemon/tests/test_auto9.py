"""The default scheme `auto9`: `auto` whose raise reaches only the class's idle queues."""

from __future__ import annotations

import random

import numpy as np
from test_auto import Switch


def two_classes(scheme: str = "auto9", **params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  **params)


def test_a_raise_skips_the_class_queues_that_were_busy() -> None:
    sw = two_classes()
    # a burst on queue 1 while queue 3 (same class, other port) carries a long flow
    out = sw.step(util={1: 0.005, 3: 0.6}, drops={1: 50_000}, peak={1: 200_000})
    assert out[1] == 1.0  # the idle queue gets the raise
    assert out[3] == 0.5  # the busy one stays at alpha_p
    assert out[0] == out[2] == 0.5
    # next interval the long flow has ended: queue 3 is idle and raised with its class
    out = sw.step(util={1: 0.005, 3: 0.005})
    assert out[1] == out[3] == 1.0
    # and a queue that turns busy while the class is raised goes back to alpha_p
    out = sw.step(util={1: 0.5})
    assert (out[1], out[3]) == (0.5, 1.0)
    auto = two_classes("auto")
    auto.step(util={1: 0.005, 3: 0.6}, drops={1: 50_000}, peak={1: 200_000})
    assert auto.step(util={1: 0.5})[1] == 1.0  # `auto` raises every queue of the class


def test_idle_queues_decide_as_auto() -> None:
    # random bursts on queues that stay idle: the class's levels are auto's
    rng = random.Random(7)
    a, b = two_classes(hold=0.3), two_classes("auto", hold=0.3)
    raised = 0
    for _ in range(300):
        step: dict = {"util": {q: 0.005 * rng.random() for q in range(4)}}  # type: ignore[type-arg]
        if rng.random() < 0.3:
            q = rng.randrange(4)
            step["drops"] = {q: rng.choice([20_000.0, 100_000.0, 300_000.0])}
            step["peak"] = {q: step["drops"][q] * 3}
        out = a.step(**step)
        np.testing.assert_array_equal(out, b.step(**step))
        raised += bool((out > 0.5).any())
    assert raised > 100  # the traffic exercises the raises
