"""`auto22`: `auto18` that raises to, and stays on, one level above the level that lost a
burst."""

from __future__ import annotations

from test_auto20 import has_auto18s_parameters, two_classes
from test_auto21 import ABSORBED, BASE, LOST, QUERY, WEB

HARM = {"drops": {0: 312_500}, "peak": {**WEB, 1: 20_000}}  # web loses 0.5%: five times DT
SMALL = {"drops": BASE, "peak": {**WEB, 1: 20_000}}  # queries that fit alpha_p, web at DT


def learned(scheme: str = "auto22"):  # type: ignore[no-untyped-def]
    """Three seconds of DT: the web class's loss under DT learned."""
    sw = two_classes(scheme)
    for _ in range(30):
        sw.step(util={0: 0.5}, drops=BASE, peak=WEB)
    return sw


def quiet(sw, n: int) -> list[float]:  # type: ignore[no-untyped-def]
    return [sw.step(util={0: 0.5}, drops=BASE, peak=WEB)[1] for _ in range(n)]


def climbed():  # type: ignore[no-untyped-def]
    """The first lost burst (the cap), decay to alpha_p, then three lost bursts."""
    sw = learned()
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]
    assert quiet(sw, 150)[-1] == 0.5  # no peaks: decay below the floor
    assert sw.sch.floor[1] == 1.0  # one above the level that lost it
    return sw, [sw.step(util=QUERY, **LOST)[1] for _ in range(3)]  # type: ignore[arg-type]


def test_a_later_lost_burst_raises_one_level_above_the_level_that_lost_it() -> None:
    sw, climb = climbed()
    assert climb == [1.0, 2.0, 4.0] and sw.sch.floor[1] == 3.0
    old = learned("auto18")  # auto18 goes back to the cap each time
    old.step(util=QUERY, **LOST)  # type: ignore[arg-type]
    quiet(old, 150)
    assert [old.step(util=QUERY, **LOST)[1] for _ in range(2)] == [16.0, 16.0]  # type: ignore[arg-type]


def test_decay_stays_on_the_floor_while_the_class_peaks_beyond_alpha_p() -> None:
    sw, _ = climbed()
    # peaks that need alpha 2 (auto18's decay would step to it): held at the floor, 4
    assert {sw.step(util=QUERY, **ABSORBED)[1] for _ in range(60)} == {4.0}  # type: ignore[arg-type]
    # no peak beyond alpha_p for HOLD_S: decay goes on, and the floor stays for a raise
    assert quiet(sw, 150)[-1] == 0.5 and sw.sch.floor[1] == 3.0
    assert sw.step(util=QUERY, **LOST)[1] == 4.0  # type: ignore[arg-type]


def test_harm_the_levels_in_force_cause_steps_below_the_floor() -> None:
    sw, _ = climbed()
    out = [sw.step(util=QUERY, **HARM)[1] for _ in range(12)]  # type: ignore[arg-type]
    assert out[0] == 4.0 and out[-1] == 0.5  # one level per interval once it shows
    first = next(i for i, a in enumerate(out) if a < 4.0)
    assert out[first:first + 3] == [2.0, 1.0, 0.5] and sw.sch.floor[1] == 0.0


def test_harm_only_the_average_holds_does_not_step_below_the_floor() -> None:
    sw, _ = climbed()
    out = []
    while not out or out[-1] == 4.0:  # the harm until the safety rule steps down once
        out.append(sw.step(util=QUERY, **HARM)[1])  # type: ignore[arg-type]
    assert out[-1] == 2.0 and sw.sch.floor[1] == 2.0
    # web back at its DT loss: the average still calls it harm, the loss since the step
    # does not; the class stays
    after = sw.step(util=QUERY, **SMALL)[1]  # type: ignore[arg-type]
    assert sw.sch._harm_now and after == 2.0


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto22")
