"""`auto12`: `auto9` whose safety rule sends the raised classes back to alpha_p for ``hold``."""

from __future__ import annotations

import random

import numpy as np
from test_auto import Switch, burst

WEB = {0: 100_000}  # the web class's busy queue's peak


def raised_to_four(scheme: str, hold: float):  # type: ignore[no-untyped-def]
    """A switch whose query class (alpha 0.5) a big burst raised to 4 or more, with the web
    class's loss under DT (0.1%) as the safety rule's reference."""
    sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                hold=hold)
    for _ in range(5):
        sw.step(util={0: 0.5}, drops={0: 62_500}, peak=WEB)
    out = sw.step(util={0: 0.5, 1: 0.005}, drops={0: 62_500, 1: 300_000},
                  peak={**WEB, 1: 400_000})
    assert out[1] >= 4.0
    sw.raised = out[1]
    return sw


def harm(sw) -> np.ndarray:  # type: ignore[no-untyped-def]
    """An interval in which the web class loses 2.5% and the query class bursts again."""
    return sw.step(util={0: 0.5, 1: 0.005}, drops={0: 1_562_500, 1: 300_000},
                   peak={**WEB, 1: 400_000})


def test_harm_sends_the_raise_back_to_alpha_p_and_blocks_it_for_hold() -> None:
    sw = raised_to_four("auto12", hold=0.5)
    ref = raised_to_four("auto9", hold=0.5)
    out, out9 = harm(sw), harm(ref)
    assert out[1] == out[3] == 0.5  # back to the operator's alpha at once
    assert out9[1] == ref.raised / 2  # auto9: one level down
    # the query class keeps bursting: no raise within hold (0.5 s, five intervals) ...
    levels = [sw.step(util={0: 0.5, 1: 0.005}, drops={0: 62_500, 1: 300_000},
                      peak={**WEB, 1: 400_000})[1] for _ in range(6)]
    assert levels[:4] == [0.5] * 4
    assert max(levels[4:]) > 0.5  # ... and raised again after it


def test_without_harm_it_decides_as_auto9() -> None:
    rng = random.Random(12)
    prios = [("web", [0], 0.5, None), ("query", [1], 0.25, None)]
    a = Switch(prios, scheme="auto12", hold=0.3, safety=1e9)
    b = Switch(prios, scheme="auto9", hold=0.3, safety=1e9)
    raised = 0
    for _ in range(300):
        step: dict = {"util": {q: (0.5 if q % 2 == 0 else 0.005) * rng.random()  # type: ignore[type-arg]
                               for q in range(4)}}
        if rng.random() < 0.3:
            step.update(burst(rng.choice([1, 3]), size=rng.choice([100_000.0, 400_000.0]),
                              dropped=rng.choice([20_000.0, 200_000.0])))
        out = a.step(**step)
        np.testing.assert_array_equal(out, b.step(**step))
        raised += bool((out[[1, 3]] > 0.25).any())
    assert raised > 50  # the traffic raises


def test_stale_telemetry_forgets_the_block() -> None:
    sw = raised_to_four("auto12", hold=10.0)
    harm(sw)
    sw.step(util={0: 0.5}, dt=1.0)  # a gap of ten intervals: plain DT, history forgotten
    out = sw.step(**burst(1, size=400_000, dropped=300_000))
    assert out[1] > 0.5
