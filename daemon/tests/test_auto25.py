"""`auto25`: `auto20` whose wait after harm doubles with each harm in a row."""

from __future__ import annotations

from test_auto20 import (
    has_auto18s_parameters,
    raise_then_harm,
    two_classes,
    writes_as_auto18_without_harm,
)
from test_auto21 import LOST, QUERY
from test_auto22 import HARM, learned, quiet

from alphad.schemes import auto18, auto25

STEP = 0.1  # s: the test switch's interval


def wait_after_harm(sw) -> float:  # type: ignore[no-untyped-def]
    """Bursts keep arriving with web at its DT loss: seconds from the harm's decision to
    the next raise."""
    t0 = sw.t
    while sw.step(util=QUERY, **LOST)[1] == 0.5:  # type: ignore[arg-type]
        assert sw.t - t0 < 200, "never raised again"
    return sw.t - t0


def harm(sw) -> None:  # type: ignore[no-untyped-def]
    """Web loses five times its DT loss until the safety rule fires."""
    n = sw.sch.harms
    while sw.sch.harms == n:
        sw.step(util=QUERY, **HARM)  # type: ignore[arg-type]


def test_harm_returns_the_raise_to_alpha_p_at_once() -> None:
    out = raise_then_harm(two_classes("auto25"))
    assert out[0] == 16.0
    first = next(i for i, a in enumerate(out) if a < 16.0)
    assert all(a == 0.5 for a in out[first:])  # DT in one step, as auto20


def test_each_harm_in_a_row_doubles_the_wait() -> None:
    sw = learned("auto25")
    waits = []
    for n in range(1, 4):
        assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]
        harm(sw)
        assert sw.sch.harms == n
        waits.append(wait_after_harm(sw))
    hold = auto18.HOLD_S
    for w, expect in zip(waits, (hold, 2 * hold, 4 * hold), strict=True):
        assert expect <= w < expect + 2 * STEP
    old = learned("auto20")  # auto20 waits HOLD_S each time
    for _ in range(3):
        old.step(util=QUERY, **LOST)  # type: ignore[arg-type]
        n = old.sch.dt_until
        while old.sch.dt_until == n:
            old.step(util=QUERY, **HARM)  # type: ignore[arg-type]
        assert hold <= wait_after_harm(old) < hold + 2 * STEP


def test_the_wait_stops_doubling_at_its_longest() -> None:
    sw = learned("auto25")
    for _ in range(auto25.MAX_DOUBLINGS + 3):
        sw.step(util=QUERY, **LOST)  # type: ignore[arg-type]
        harm(sw)
        w = wait_after_harm(sw)
    longest = auto18.HOLD_S * 2 ** auto25.MAX_DOUBLINGS
    assert longest <= w < longest + 2 * STEP


def test_a_raise_that_holds_without_harm_ends_the_row() -> None:
    sw = learned("auto25")
    for _ in range(2):
        sw.step(util=QUERY, **LOST)  # type: ignore[arg-type]
        harm(sw)
        wait_after_harm(sw)  # the raise is in force again
    assert sw.sch.harms == 2
    n = 0
    while sw.sch.harms:  # the class keeps bursting, web at its DT loss
        assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]
        n += 1
    assert auto18.HOLD_S - STEP <= n * STEP <= auto18.HOLD_S + STEP
    harm(sw)
    assert auto18.HOLD_S <= wait_after_harm(sw) < auto18.HOLD_S + 2 * STEP  # the first wait


def test_a_fallback_forgets_the_row() -> None:
    sw = learned("auto25")
    sw.step(util=QUERY, **LOST)  # type: ignore[arg-type]
    harm(sw)
    wait_after_harm(sw)
    harm(sw)
    assert sw.sch.harms == 2 and sw.sch.dt_until > sw.t
    sw.step(util=QUERY, **LOST, dt=1.0)  # type: ignore[arg-type]  # a gap: stale telemetry
    assert sw.sch.harms == 0
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]


def test_quiet_traffic_is_not_raised() -> None:
    sw = learned("auto25")
    assert set(quiet(sw, 50)) == {0.5}


def test_without_harm_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto25")


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto25")
