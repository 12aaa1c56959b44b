"""`auto17`: `auto9` whose safety rule keeps a class below the level whose raise harmed."""

from __future__ import annotations

from test_auto import burst, decide_alike, web_and_bursts
from test_auto9 import two_classes

WEB = {0: 100_000}  # the web class's busy queue: 62.5 MB sent an interval


def harmed(scheme: str) -> list[float]:  # type: ignore[no-untyped-def]
    """Query alphas of a switch whose raise of the query class cost the web class its loss
    under DT five times over, then bursts: right after the back-off, then after quiet
    intervals: 0.5 s and 0.8 s after the harm (hold 0.3 s)."""
    sw = two_classes(scheme, hold=0.3)
    for _ in range(5):  # under DT the web class loses 0.1%
        sw.step(util={0: 0.5}, drops={0: 62_500}, peak=WEB)
    out = [sw.step(util={0: 0.5, 1: 0.005}, drops={0: 62_500, 1: 50_000},
                   peak={**WEB, 1: 200_000})[1]]
    while out[-1] > 0.5 and len(out) < 8:  # the web class loses 0.5%: harm
        out.append(sw.step(util={0: 0.5, 1: 0.005}, drops={0: 312_500}, peak=WEB)[1])
    big = burst(1, size=400_000, dropped=400_000)  # no alpha admits it: the cap, 16
    out.append(sw.step(**big)[1])
    for _ in range(3):
        sw.step()
    out.append(sw.step(**big)[1])
    for _ in range(2):
        sw.step()
    out.append(sw.step(**big)[1])
    return out


def test_after_harm_a_burst_does_not_retake_the_level_that_harmed() -> None:
    mine, ref = harmed("auto17"), harmed("auto9")
    assert mine[0] == ref[0] == 1.0 and mine[-4] == ref[-4] == 0.5  # raised, backed off
    assert ref[-3] == 16.0  # auto9: the next burst takes the cap again
    assert mine[-3] == 0.5  # auto17: the level that harmed was 1; its ceiling is 0
    assert mine[-2] == 1.0  # one hold without harm: one level
    assert mine[-1] == 2.0  # 0.8 s after the harm: two holds, two levels


def test_without_harm_it_decides_as_auto9() -> None:
    a, b = two_classes("auto17"), two_classes("auto9")
    assert decide_alike(a, b, web_and_bursts(7)) > 50
