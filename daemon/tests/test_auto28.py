"""`auto28`: `auto18` that returns a class to alpha_p while its bursts overflow the cap."""

from __future__ import annotations

import numpy as np
from test_auto import web_and_bursts
from test_auto20 import has_auto18s_parameters, two_classes
from test_auto21 import BASE, LOST, QUERY, WEB

from alphad.schemes import auto18

# A burst on the query queue that loses 40% of what it was offered under DT, and one that
# loses a tenth of that (absorbed in part: the raise paid).
LOST_AT_DT = {"drops": {**BASE, 1: 500_000}, "peak": {**WEB, 1: 900_000}, "pool": 1e6}
LESS = {"drops": {**BASE, 1: 25_000}, "peak": {**WEB, 1: 900_000}, "pool": 1e6}
QUIET = {"drops": BASE, "peak": WEB}


def raised(scheme: str, util: dict[int, float] = QUERY):  # type: ignore[no-untyped-def]
    """DT's loss learned, then a burst that no alpha admits: the query class at the cap."""
    sw = two_classes(scheme)
    for _ in range(30):
        sw.step(util={0: 0.5}, **QUIET)  # type: ignore[arg-type]
    assert sw.step(util=util, **LOST_AT_DT)[1] == 16.0  # type: ignore[arg-type]
    return sw


def test_a_burst_lost_at_the_cap_as_under_dt_returns_the_class_to_alpha_p() -> None:
    new, old = raised("auto28"), raised("auto18")
    assert new.step(util=QUERY, **LOST_AT_DT)[1] == 0.5  # type: ignore[arg-type]
    assert old.step(util=QUERY, **LOST_AT_DT)[1] == 16.0  # type: ignore[arg-type]
    # its bursts keep overflowing: no raise while they arrive within HOLD_S of each other
    for _ in range(40):
        assert new.step(util=QUERY, **LOST_AT_DT)[1] == 0.5  # type: ignore[arg-type]


def test_a_raise_that_cut_the_class_loss_stays() -> None:
    new, old = raised("auto28"), raised("auto18")
    for _ in range(10):  # still a burst at the cap, at a tenth of its loss under DT
        assert new.step(util=QUERY, **LESS)[1] == old.step(util=QUERY, **LESS)[1] == 16.0  # type: ignore[arg-type]


def test_the_bar_lifts_after_hold_without_a_burst() -> None:
    sw = raised("auto28")
    sw.step(util=QUERY, **LOST_AT_DT)  # type: ignore[arg-type]
    assert sw.sch.barred[1]
    t_last = sw.t
    while sw.sch.barred[1]:  # quiet: no burst
        assert sw.step(util={0: 0.5}, **QUIET)[1] == 0.5  # type: ignore[arg-type]
    assert auto18.HOLD_S - 1e-6 < sw.t - t_last < auto18.HOLD_S + 0.1 + 1e-6  # an interval: 0.1 s
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]  # auto18's raise


def test_a_burst_on_a_queue_below_the_cap_is_not_evidence() -> None:
    sw = raised("auto28", util={**QUERY, 3: 0.5})
    # the burst hits the query queue of port 1 (queue 3), which was busy, and so at
    # alpha_p, when the raise was written: its loss says nothing of the cap
    burst3 = {"drops": {**BASE, 3: 500_000}, "peak": {**WEB, 3: 900_000}, "pool": 1e6}
    out = sw.step(util={0: 0.5, 1: 0.005, 3: 0.005}, **burst3)  # type: ignore[arg-type]
    assert not sw.sch.barred[1] and out[1] == 16.0


def test_it_writes_what_auto18_writes_until_a_class_is_barred() -> None:
    for seed in (1, 2, 3):
        a, b = two_classes("auto28"), two_classes("auto18")
        raised = 0
        for step in web_and_bursts(seed):
            out = a.step(**step)
            if any(a.sch.barred):
                break
            np.testing.assert_array_equal(out, b.step(**step))
            raised += bool((out > 0.5).any())
        assert raised > 3
    has_auto18s_parameters("auto28")


def test_auto29s_bar_outlasts_quiet_and_lifts_on_a_burst_a_level_below_the_cap_admits() -> None:
    sw = raised("auto29")
    sw.step(util=QUERY, **LOST_AT_DT)  # type: ignore[arg-type]
    assert sw.sch.barred[1]
    for _ in range(3 * round(auto18.HOLD_S / 0.1)):  # quiet three times HOLD_S: still barred
        sw.step(util={0: 0.5}, **QUIET)  # type: ignore[arg-type]
    assert sw.sch.barred[1]
    assert sw.step(util=QUERY, **LOST_AT_DT)[1] == 0.5  # type: ignore[arg-type]  # no alpha admits it
    assert sw.sch.barred[1]
    # a 300 kB burst beside 700 kB free: level 0 of 0.5 admits it below the cap; it lifts the
    # bar, and the next lost burst raises the class as auto18 does
    small = {"drops": {**BASE, 1: 20_000}, "peak": {**WEB, 1: 300_000}, "pool": 300_000}
    assert sw.step(util=QUERY, **small)[1] == 0.5  # type: ignore[arg-type]
    assert not sw.sch.barred[1]
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]


def test_auto29_writes_what_auto28_writes_until_a_bar() -> None:
    for seed in (1, 2):
        a, b = two_classes("auto29"), two_classes("auto28")
        raised = 0
        for step in web_and_bursts(seed):
            out = a.step(**step)
            np.testing.assert_array_equal(out, b.step(**step))
            raised += bool((out > 0.5).any())
            if any(a.sch.barred):
                break
        assert raised > 3 and a.sch.barred == b.sch.barred
    has_auto18s_parameters("auto29")
