"""`auto16`: `auto9` whose unadmitted burst is raised to what it needs beside an empty pool."""

from __future__ import annotations

import test_auto
from test_auto import burst, decide_alike, web_and_bursts


def two_classes(scheme: str = "auto16", **params):  # type: ignore[no-untyped-def]
    return test_auto.two_classes(scheme=scheme, **params)


def crowded(sw, size: float = 100_000, dropped: float = 70_000):  # type: ignore[no-untyped-def]
    """A burst on query queue 1 while web's queue 0 holds 800 kB of the 1 MB pool."""
    step = burst(1, size=size, dropped=dropped)
    step["util"][0] = 0.5
    step["peak"][0] = 800_000
    return sw.step(**step, pool=900_000)


def test_an_unadmitted_burst_takes_what_it_needs_beside_an_empty_pool() -> None:
    sw, ref = two_classes(), two_classes("auto9")
    # S = 170 kB beside 100 kB free (+100 kB its own): 1.25 S >= F + W, no alpha admits it
    assert crowded(ref)[1] == 16.0  # auto9: the cap
    out = crowded(sw)
    # beside an empty pool 1.25 S / (B - 1.25 S) = 0.27 < 0.5: at least one level
    assert out[1] == 1.0
    assert crowded(sw)[1] == 2.0  # it recurs: one more level
    big = crowded(two_classes(), size=400_000, dropped=200_000)[1]
    assert big == 4.0  # 1.25 S = 750 kB: 750 / 250 = 3 = 0.5 * 6, three levels at once


def test_a_burst_no_pool_admits_still_takes_the_cap() -> None:
    sw = two_classes()
    assert sw.step(**burst(1, size=400_000, dropped=400_000))[1] == 16.0  # 1.25 S >= B


def test_an_admitted_burst_is_raised_as_by_auto9() -> None:
    a, b = two_classes(), two_classes("auto9")
    assert decide_alike(a, b, web_and_bursts(7)) > 50  # bursts beside idle web queues
