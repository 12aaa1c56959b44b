"""`auto14`: `auto9` that raises only once DT has run for ``hold``."""

from __future__ import annotations

import numpy as np
import test_auto
from test_auto import burst, decide_alike, web_and_bursts


def two_classes(scheme: str = "auto14", **params):  # type: ignore[no-untyped-def]
    return test_auto.two_classes(scheme=scheme, **params)


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
    a, b = two_classes(hold=0.3), two_classes("auto9", hold=0.3)
    for _ in range(3):  # both run DT for hold first
        np.testing.assert_array_equal(a.step(util={0: 0.5}), b.step(util={0: 0.5}))
    assert decide_alike(a, b, web_and_bursts(14)) > 50  # the traffic raises
