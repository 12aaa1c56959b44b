"""The candidate `auto7`: `auto` whose raise for a burst no alpha admits stops at the first
level, and nothing else."""

from __future__ import annotations

import random

import numpy as np
from test_auto import Switch, burst


def two_classes(scheme: str = "auto7", **params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  **params)


def test_a_burst_no_alpha_admits_raises_one_level_not_to_the_cap() -> None:
    # S = 800 kB in a 1 MB pool: 1.25 S >= B, no alpha admits it
    big = burst(1, size=400_000, dropped=400_000)
    assert two_classes("auto").step(**big)[1] == 16.0  # `auto`: the cap
    sw = two_classes()
    assert sw.step(**big)[1] == 1.0  # `auto7`: the first level, 2 alpha_p
    assert sw.step(**big)[1] == 1.0  # and no further however often it comes
    # a burst an alpha admits still raises to what it needed: S = 600 kB -> 0.5 * 2^3
    assert sw.step(**burst(1, size=400_000, dropped=200_000))[1] == 4.0
    assert sw.step(**big)[1] == 4.0  # an unadmitted burst never lowers a raise


def test_peaks_no_alpha_admits_keep_no_raise() -> None:
    sw = two_classes(hold=0.3)
    assert sw.step(**burst(1))[1] == 1.0
    # idle peaks of 850 kB without loss: more than the pool could ever admit
    levels = [sw.step(util={1: 0.005}, peak={1: 850_000})[1] for _ in range(10)]
    assert levels[-1] == 0.5  # decayed after the hold, as with no peaks at all
    held = two_classes("auto", hold=0.3)
    held.step(**burst(1))
    assert held.step(util={1: 0.005}, peak={1: 850_000})[1] == 1.0
    assert [held.step(util={1: 0.005}, peak={1: 850_000})[1] for _ in range(10)][-1] == 1.0


def test_it_decides_as_auto_where_every_burst_is_admitted() -> None:
    r = random.Random(5)
    a, b = two_classes("auto", hold=0.3), two_classes(hold=0.3)
    for _ in range(300):  # bursts of at most 400 kB in a 1 MB pool, web loss, quiet
        kind = r.random()
        if kind < 0.3:
            step = burst(1 + 2 * int(r.random() * 2), size=r.uniform(1e5, 3e5),
                         dropped=r.uniform(1e4, 1e5))
        elif kind < 0.5:
            step = {"util": {0: 0.4, 2: 0.4}, "drops": {0: r.uniform(0, 4e5)}}
        else:
            step = {"util": {0: 0.4, 1: 0.005}, "peak": {1: r.uniform(0, 3e5)}}
        assert np.array_equal(a.step(**step), b.step(**step))
