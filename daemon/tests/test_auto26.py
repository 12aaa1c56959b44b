"""`auto26`, `auto18` that leaves the queues sending at line rate the buffer their peaks
needed, and `auto27`, whose evidence of it lasts HOLD_S."""

from __future__ import annotations

from test_auto20 import has_auto18s_parameters, two_classes, writes_as_auto18_without_harm
from test_auto21 import BASE, LOST

from alphad.schemes import auto18

# web's queue on port 1 at line rate, its peak 100 kB at alpha 0.5: it needed 200 kB free
# (on port 0 it sends half of line rate, beside the queries)
LINE = {0: 0.5, 2: 0.95, 1: 0.005}
WEB = {0: 100_000, 2: 100_000}


def learned(scheme: str):  # type: ignore[no-untyped-def]
    sw = two_classes(scheme)
    for _ in range(30):
        sw.step(util={0: 0.5, 2: 0.95}, drops=BASE, peak=WEB, pool=500_000)
    return sw


def test_no_raise_while_a_queue_at_line_rate_has_no_room_left() -> None:
    # the burst leaves the pool full at its peak (free 0): web's peak has no room
    new, old = learned("auto26"), learned("auto18")
    assert new.step(util=LINE, **LOST)[1] == 0.5  # type: ignore[arg-type]
    assert old.step(util=LINE, **LOST)[1] == 16.0  # type: ignore[arg-type]


def test_a_raise_where_the_queue_at_line_rate_keeps_its_room() -> None:
    # 300 kB free at the pool's peak, of which web's peak needed 200 kB: auto18's raise
    lost = {**LOST, "pool": 700_000}
    new, old = learned("auto26"), learned("auto18")
    assert new.step(util=LINE, **lost)[1] == old.step(util=LINE, **lost)[1] == 16.0  # type: ignore[arg-type]
    # web below line rate: its peak is not protected, whatever the free buffer
    sw = learned("auto26")
    assert sw.step(util={0: 0.5, 2: 0.5, 1: 0.005}, **LOST)[1] == 16.0  # type: ignore[arg-type]


def test_a_raise_returns_to_alpha_p_once_a_queue_at_line_rate_has_no_room() -> None:
    sw = learned("auto26")
    assert sw.step(util={0: 0.5, 2: 0.5, 1: 0.005}, **LOST)[1] == 16.0  # type: ignore[arg-type]
    # web reaches line rate while the raised queries hold the pool: every class at alpha_p
    out = sw.step(util=LINE, drops=BASE, peak={**WEB, 1: 800_000}, pool=1e6)
    assert list(out) == [0.5, 0.5, 0.5, 0.5]
    old = learned("auto18")
    old.step(util={0: 0.5, 2: 0.5, 1: 0.005}, **LOST)
    assert old.step(util=LINE, drops=BASE, peak={**WEB, 1: 800_000}, pool=1e6)[1] == 16.0
    # and, with room again, a lost burst raises the class as before
    assert sw.step(util=LINE, **{**LOST, "pool": 700_000})[1] == 16.0  # type: ignore[arg-type]


def test_without_harm_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto26")  # web below line rate: never protected


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto26")


def test_auto27_raises_nothing_for_hold_after_a_queue_at_line_rate_had_no_room() -> None:
    sw = learned("auto27")
    assert sw.step(util=LINE, **LOST)[1] == 0.5  # type: ignore[arg-type]  # no room: as auto26
    t_full = sw.t
    room = {**LOST, "pool": 700_000}  # room again, bursts keep arriving
    levels = [(sw.t + 0.1, sw.step(util=LINE, **room)[1]) for _ in range(25)]  # type: ignore[arg-type]
    assert all(a == 0.5 for t, a in levels if t - t_full < auto18.HOLD_S - 1e-9)
    assert levels[-1][1] == 16.0  # HOLD_S later: auto18's raise
    new = learned("auto26")  # auto26 raises at the first interval with room
    new.step(util=LINE, **LOST)  # type: ignore[arg-type]
    assert new.step(util=LINE, **room)[1] == 16.0  # type: ignore[arg-type]


def test_auto27_without_harm_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto27")
    has_auto18s_parameters("auto27")
