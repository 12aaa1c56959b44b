"""`auto13`: `auto9` with `auto4`'s test for starvation by strict priority."""

from __future__ import annotations

import random

import numpy as np
from test_auto import Switch, burst


def two_classes(scheme: str = "auto13", **params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  **params)


def test_a_queue_behind_busy_strict_priority_queues_is_starved_not_burst() -> None:
    def run(strict: tuple, scheme: str = "auto13") -> np.ndarray:  # type: ignore[type-arg]
        sw = two_classes(scheme, strict=strict)
        # port 0: web's queue sends 40% of line rate, query's idle queue loses 8%
        return sw.step(util={0: 0.4, 1: 0.005, 3: 0.4}, drops={1: 50_000}, peak={1: 200_000})

    out = run(())
    assert out[1] == 1.0 and out[3] == 0.5  # a burst: the idle query queue only (auto9)
    assert (run((0, 1)) == 0.5).all()  # web is served first: query waited behind it
    assert run((0, 1), "auto9")[1] == 1.0  # `auto9` reads it as a burst
    assert run((1, 0))[1] == 1.0  # query is served first: nothing starved it


def test_without_strict_priority_it_decides_as_auto9() -> None:
    rng = random.Random(13)
    a, b = two_classes(hold=0.3), two_classes("auto9", hold=0.3)
    raised = 0
    for _ in range(300):
        step: dict = {"util": {q: (0.5 if q % 2 == 0 else 0.005) * rng.random()  # type: ignore[type-arg]
                               for q in range(4)}}
        if rng.random() < 0.3:
            step.update(burst(rng.choice([1, 3]), size=rng.choice([100_000.0, 400_000.0]),
                              dropped=rng.choice([20_000.0, 200_000.0])))
            step["util"][0] = 0.5  # the web class busy beside the burst
        out = a.step(**step)
        np.testing.assert_array_equal(out, b.step(**step))
        raised += bool((out[[1, 3]] > 0.5).any())
    assert raised > 50  # the traffic raises
