"""`auto20`: `auto18` that falls back to DT for HOLD_S when a raise harms."""

from __future__ import annotations

from test_auto import Switch, decide_alike, web_and_bursts

from alphad.schemes import auto18


def two_classes(scheme: str = "auto20"):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme)


def raise_then_harm(sw: Switch) -> list[float]:
    """Under DT web loses 0.1% on its busy queue; a burst that no alpha admits raises the
    query class to the cap; then web loses 0.5% while queries still arrive."""
    web = {0: 100_000}
    for _ in range(30):
        sw.step(util={0: 0.5}, drops={0: 62_500}, peak=web)
    out = [sw.step(util={0: 0.5, 1: 0.005}, drops={0: 62_500, 1: 500_000},
                   peak={**web, 1: 900_000}, pool=1e6)[1]]
    for _ in range(12):
        out.append(sw.step(util={0: 0.5, 1: 0.005}, drops={0: 312_500}, peak=web)[1])
    return out


def test_harm_returns_the_raise_to_alpha_p_at_once() -> None:
    slow, fast = raise_then_harm(two_classes("auto18")), raise_then_harm(two_classes())
    assert slow[0] == fast[0] == 16.0  # the cap: no alpha admits the burst
    first = next(i for i, a in enumerate(fast) if a < 16.0)
    assert fast[first] == 0.5 and all(a == 0.5 for a in fast[first:])  # DT in one step
    assert slow[first] == 8.0  # auto18: one level down at the same decision
    assert sum(a > 0.5 for a in slow) > sum(a > 0.5 for a in fast)


def test_no_raise_for_hold_after_harm() -> None:
    sw = two_classes()
    out = raise_then_harm(sw)
    assert out[-1] == 0.5
    t_harm = sw.sch.dt_until - auto18.HOLD_S
    assert 0 < t_harm < sw.t
    # bursts keep arriving: no raise until hold has passed since the harm, then one
    levels = []
    while sw.t < t_harm + auto18.HOLD_S + 0.25:
        levels.append((sw.t + 0.1, sw.step(util={0: 0.5, 1: 0.005},
                                           drops={0: 62_500, 1: 500_000},
                                           peak={0: 100_000, 1: 900_000}, pool=1e6)[1]))
    assert all(a == 0.5 for t, a in levels if t < t_harm + auto18.HOLD_S - 1e-9)
    assert levels[-1][1] == 16.0


def writes_as_auto18_without_harm(scheme: str) -> None:
    """The web queues lose nothing: the safety rule never fires, and ``scheme`` writes what
    `auto18` writes on random intervals with bursts."""
    for seed in (1, 2):
        assert decide_alike(two_classes(scheme), two_classes("auto18"), web_and_bursts(seed)) > 50


def has_auto18s_parameters(scheme: str) -> None:
    """``scheme`` takes `auto18`'s parameters with their defaults, and its fixed hold."""
    sw = two_classes(scheme)
    assert {k: sw.sch.p[k] for k in auto18.DEFAULTS} == auto18.DEFAULTS
    assert sw.sch.p["hold"] == auto18.HOLD_S


def test_without_harm_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto20")


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto20")
