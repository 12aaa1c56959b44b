"""`auto23`: `auto22` that raises only once the safety rule's reference covers HOLD_S."""

from __future__ import annotations

import numpy as np
from test_auto20 import two_classes
from test_auto21 import LOST, QUERY
from test_auto22 import HARM, learned, quiet

from alphad.schemes import auto18


def test_no_raise_and_no_floor_before_hold_of_dt() -> None:
    sw = two_classes("auto23")
    early = [sw.step(util=QUERY, **LOST)[1] for _ in range(19)]  # type: ignore[arg-type]
    assert set(early) == {0.5} and sw.sch.floor == [0.0, 0.0]  # 1.9 s: no reference yet
    quiet(sw, 1)
    assert sw.t >= auto18.HOLD_S
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]  # auto18's raise
    assert sw.sch.floor[1] == 1.0
    # auto22 raises at once, and learns a floor from the first interval
    old = two_classes("auto22")
    assert old.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]


def test_with_its_reference_it_writes_what_auto22_writes() -> None:
    a, b = learned("auto23"), learned("auto22")
    steps = ([{"util": QUERY, **LOST}] + [{"util": {0: 0.5}, "drops": {0: 62_500},
                                           "peak": {0: 100_000}}] * 150
             + [{"util": QUERY, **LOST}] * 3 + [{"util": QUERY, **HARM}] * 12)
    for s in steps:
        np.testing.assert_array_equal(a.step(**s), b.step(**s))  # type: ignore[arg-type]
    assert a.sch.floor == b.sch.floor
