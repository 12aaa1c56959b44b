"""`auto14`: `auto9` that raises only once DT has run for ``hold``."""

from __future__ import annotations

import random

import numpy as np
from test_auto import Switch, burst


def two_classes(scheme: str = "auto14", **params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  **params)


def test_no_raise_before_dt_has_run_for_hold() -> None:
    sw, ref = two_classes(hold=0.5), two_classes("auto9", hold=0.5)
    assert ref.step(**burst(1))[1] == 1.0  # auto9 raises at the first burst
    out = [sw.step(**burst(1))[1] for _ in range(6)]
    assert out[:4] == [0.5] * 4  # 0.1 .. 0.4 s of DT: no reference over hold yet
    assert out[4] > 0.5  # 0.5 s: raised


def test_a_fallback_starts_the_wait_again() -> None:
    sw = two_classes(hold=0.3)
    for _ in range(3):
        sw.step()
    assert sw.step(**burst(1))[1] > 0.5
    sw.step(dt=1.0)  # a gap of ten intervals: plain DT, history forgotten
    assert sw.step(**burst(1))[1] == 0.5
    sw.step()
    assert sw.step(**burst(1))[1] > 0.5


def test_after_the_wait_it_decides_as_auto9() -> None:
    rng = random.Random(14)
    a, b = two_classes(hold=0.3), two_classes("auto9", hold=0.3)
    for _ in range(3):  # both run DT for hold first
        np.testing.assert_array_equal(a.step(util={0: 0.5}), b.step(util={0: 0.5}))
    raised = 0
    for _ in range(300):
        step: dict = {"util": {q: (0.5 if q % 2 == 0 else 0.005) * rng.random()  # type: ignore[type-arg]
                               for q in range(4)}}
        if rng.random() < 0.3:
            step.update(burst(rng.choice([1, 3]), size=rng.choice([100_000.0, 400_000.0]),
                              dropped=rng.choice([20_000.0, 200_000.0])))
        out = a.step(**step)
        np.testing.assert_array_equal(out, b.step(**step))
        raised += bool((out[[1, 3]] > 0.5).any())
    assert raised > 50
