"""`auto13`: `auto9` with `auto4`'s test for starvation by strict priority."""

from __future__ import annotations

import numpy as np
import pytest
import test_auto
from test_auto import decide_alike, web_and_bursts


def two_classes(scheme: str = "auto13", **params):  # type: ignore[no-untyped-def]
    return test_auto.two_classes(scheme=scheme, **params)


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
    a, b = two_classes(hold=0.3), two_classes("auto9", hold=0.3)
    assert decide_alike(a, b, web_and_bursts(13, web_busy=True)) > 50  # the traffic raises
    # the same traffic under strict priority (web first) is decided otherwise
    sp = two_classes(hold=0.3, strict=(0, 1))
    with pytest.raises(AssertionError):
        decide_alike(sp, two_classes("auto9", hold=0.3), web_and_bursts(13, web_busy=True))
