"""`auto11`: `auto9` whose raise lowers the queues that do not take it to ``room_alpha``."""

from __future__ import annotations

import random

import numpy as np
from test_auto import Switch


def three_classes(scheme: str = "auto11", **params):  # type: ignore[no-untyped-def]
    # per port (0, 1): queue 0 class "bulk" at 8, queue 1 "query" at 0.5, queue 2 "low" at 0.25
    return Switch([("bulk", [0], 8.0, None), ("query", [1], 0.5, None),
                   ("low", [2], 0.25, None)], queues=3, scheme=scheme, **params)


def test_a_raise_lowers_the_other_classes_above_room_alpha_and_decay_restores_them() -> None:
    sw = three_classes(hold=0.3)
    out = sw.step(util={0: 0.6, 1: 0.005, 4: 0.005}, drops={1: 50_000}, peak={1: 200_000})
    assert out[1] > 0.5 and out[4] == out[1]  # the query class is raised on its idle queues
    assert out[0] == out[3] == 1.0  # bulk, at 8, makes room down to 1
    assert out[2] == out[5] == 0.25  # a class below room_alpha is untouched
    # a busy queue of the raised class does not take the raise and is not lowered below 0.5
    out = sw.step(util={0: 0.6, 1: 0.5, 4: 0.005})
    assert out[1] == 0.5 and out[4] > 0.5
    # without bursts the raise decays; with it every queue goes back to its operator alpha
    for _ in range(40):
        out = sw.step(util={0: 0.6})
    np.testing.assert_array_equal(out, [8.0, 0.5, 0.25] * 2)


def test_stale_telemetry_returns_every_queue_to_its_operator_alpha() -> None:
    sw = three_classes()
    sw.step(util={0: 0.6, 1: 0.005}, drops={1: 50_000}, peak={1: 200_000})
    out = sw.step(util={0: 0.6}, dt=1.0)  # a gap of ten intervals
    np.testing.assert_array_equal(out, [8.0, 0.5, 0.25] * 2)


def test_room_alpha_above_every_operator_alpha_is_auto9() -> None:
    rng = random.Random(11)
    a, b = three_classes(hold=0.3, room_alpha=64.0), three_classes("auto9", hold=0.3)
    lowered = 0
    c = three_classes(hold=0.3)
    for _ in range(300):
        step: dict = {"util": {q: (0.6 if q % 3 == 0 else 0.005) * rng.random()  # type: ignore[type-arg]
                               for q in range(6)}}
        if rng.random() < 0.3:
            q = rng.choice([1, 2, 4, 5])
            step["drops"] = {q: rng.choice([20_000.0, 100_000.0, 300_000.0])}
            step["peak"] = {q: step["drops"][q] * 3}
        out = a.step(**step)
        np.testing.assert_array_equal(out, b.step(**step))
        lowered += bool((c.step(**step)[[0, 3]] < 8.0).any())
    assert lowered > 50  # the default room_alpha acts on the same traffic
