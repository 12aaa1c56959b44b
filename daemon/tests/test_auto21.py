"""`auto21`: `auto18` that raises and backs off to the level that absorbed the bursts."""

from __future__ import annotations

from test_auto20 import has_auto18s_parameters, two_classes

from alphad.schemes import auto18

WEB = {0: 100_000}  # the web class's busy queue, its peak
BASE = {0: 62_500}  # what it drops each interval under DT: 0.1% of what it sends
LOST = {"drops": {**BASE, 1: 500_000}, "peak": {**WEB, 1: 900_000}, "pool": 1e6}
# An absorbed burst: a 500 kB peak beside 400 kB of free buffer needed 1.25 = 0.5 * 2^2
# (level 2, alpha 2) and lost nothing.
ABSORBED = {"drops": BASE, "peak": {**WEB, 1: 500_000}, "pool": 600_000}
QUERY = {0: 0.5, 1: 0.005}  # web busy, the query queue idle


def raised_then_absorbed(scheme: str):  # type: ignore[no-untyped-def]
    """DT's loss learned, a burst that no alpha admits (the cap), then five absorbed."""
    sw = two_classes(scheme)
    for _ in range(30):
        sw.step(util={0: 0.5}, drops=BASE, peak=WEB)
    out = [sw.step(util=QUERY, **LOST)[1]]  # type: ignore[arg-type]
    out += [sw.step(util=QUERY, **ABSORBED)[1] for _ in range(5)]  # type: ignore[arg-type]
    return sw, out


def test_a_lost_burst_raises_to_the_level_that_absorbed_not_to_the_cap() -> None:
    runs = {}
    for scheme in ("auto18", "auto21"):
        sw, out = raised_then_absorbed(scheme)
        assert out[0] == 16.0 and all(a == 16.0 for a in out)  # the cap: no alpha admits it
        for _ in range(150):  # quiet: both decay to alpha_p
            a = sw.step(util={0: 0.5}, drops=BASE, peak=WEB)[1]
        assert a == 0.5
        runs[scheme] = (sw, sw.step(util=QUERY, **LOST)[1])  # type: ignore[arg-type]
    assert runs["auto18"][1] == 16.0
    sw, a = runs["auto21"]
    assert sw.sch.absorbed[1] == 2.0 and a == 2.0
    # a burst lost at the absorbing level forgets it: the raise is auto18's again
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]
    assert sw.sch.absorbed[1] == 0.0


def harm(sw, n: int = 40) -> list[tuple[float, float]]:  # type: ignore[no-untyped-def]
    """Web loses 0.5% while queries arrive with small peaks: (time, the query alpha)."""
    return [(sw.t, sw.step(util=QUERY, drops={0: 312_500}, peak={**WEB, 1: 20_000})[1])
            for _ in range(n)]


def test_the_safety_rule_holds_at_the_absorbing_level_until_harm_lasts_hold() -> None:
    slow = harm(raised_then_absorbed("auto18")[0])
    sw = raised_then_absorbed("auto21")[0]
    fast = harm(sw)
    first = next(i for i, (_, a) in enumerate(fast) if a < 16.0)
    assert slow[first][1] == fast[first][1] == 8.0  # the same back-off above the level
    held = [t for t, a in fast if a == 2.0]
    assert slow[first + 2][1] == fast[first + 2][1] == 2.0
    assert slow[first + 3][1] == 1.0  # auto18 goes on down
    # auto21 holds alpha 2 until the harm has lasted HOLD_S, then goes on down and the
    # absorbing level follows it
    assert held[-1] - fast[first][0] >= auto18.HOLD_S - 0.15
    assert len(held) > 10 and fast[-1][1] == 0.5
    assert sw.sch.absorbed[1] == 0.0


def test_brief_harm_does_not_step_below_the_absorbing_level() -> None:
    sw = raised_then_absorbed("auto21")[0]
    out = [a for _, a in harm(sw, 12)]
    assert min(out) == 2.0 and sw.sch.harm_start is not None
    # web back to its DT loss: its average falls below the harm within HOLD_S of the
    # first harm, the run of harm ends, and the class never left alpha 2
    after = []
    while sw.sch.harm_start is not None and len(after) < 40:
        after.append(sw.step(util=QUERY, drops=BASE, peak={**WEB, 1: 20_000})[1])
    assert sw.sch.harm_start is None and set(after) == {2.0}
    assert sw.sch.absorbed[1] == 2.0


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto21")
