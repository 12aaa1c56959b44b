"""`auto24`: `auto18` whose safety rule remembers the level that harmed."""

from __future__ import annotations

import numpy as np
from test_auto20 import has_auto18s_parameters, writes_as_auto18_without_harm
from test_auto21 import LOST, QUERY
from test_auto22 import HARM, learned, quiet

from alphad.schemes import auto18


def harmed(scheme: str = "auto24"):  # type: ignore[no-untyped-def]
    """A lost burst raises the query class to the cap; the web class then loses five
    times its loss under DT until the safety rule has stepped the class to alpha_p."""
    sw = learned(scheme)
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]
    out = [16.0]
    while out[-1] > 0.5:
        out.append(sw.step(util=QUERY, **HARM)[1])  # type: ignore[arg-type]
    return sw, out


def test_the_next_lost_burst_stops_below_the_level_that_harmed() -> None:
    sw, out = harmed()
    assert out[-5:] == [8.0, 4.0, 2.0, 1.0, 0.5]  # one level per interval, as auto18
    assert sw.sch.ceiling[1] == 0.0  # its last step was from level 1
    # a lost burst at once: no raise beyond the ceiling (auto18 takes the cap)
    assert sw.step(util=QUERY, **LOST)[1] == 0.5  # type: ignore[arg-type]
    old, _ = harmed("auto18")
    assert old.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]


def test_each_hold_without_harm_lifts_the_ceiling_one_level() -> None:
    sw, _ = harmed()
    t_harm = sw.sch.harm_t[1]
    while sw.t - t_harm < 2 * auto18.HOLD_S - 0.05:  # two HOLD_S without harm
        quiet(sw, 1)
    assert sw.step(util=QUERY, **LOST)[1] == 2.0  # type: ignore[arg-type]  # ceiling 0 + 2
    quiet(sw, int(10 * auto18.HOLD_S / 0.1))  # long enough: the cap again
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]


def test_a_fallback_forgets_the_ceiling() -> None:
    sw, _ = harmed()
    sw.step(util=QUERY, **LOST, dt=1.0)  # type: ignore[arg-type]  # a gap: stale telemetry
    assert sw.sch.ceiling == [np.inf, np.inf]
    assert sw.step(util=QUERY, **LOST)[1] == 16.0  # type: ignore[arg-type]


def test_without_harm_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("auto24")


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto24")
