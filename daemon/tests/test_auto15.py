"""`auto15`: `auto14` whose safety rule weighs the other traffic's loss by its bytes."""

from __future__ import annotations

import pytest
from test_auto import Switch

# queues per port: 0 web, 1 query, 2 mice; port 0 is queues 0-2, port 1 queues 3-5
WEB, QUERY, MICE, WEB_IDLE = 0, 1, 2, 3


def three_classes(scheme: str = "auto15", **params):  # type: ignore[no-untyped-def]
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None),
                   ("mice", [2], 0.5, None)], queues=3, scheme=scheme, **params)


def traffic(mice_drop: float, web_drop: float, burst: bool = False) -> dict:  # type: ignore[type-arg]
    """Web busy on port 0 (62.5 MB an interval) and nearly idle on port 1 (11 MB), mice
    idle (0.5 MB); web's idle queue loses ``web_drop`` bytes, mice ``mice_drop``; with
    ``burst`` an incast overflows the idle query queue."""
    step: dict = {"util": {WEB: 0.5, WEB_IDLE: 0.09, MICE: 0.004, QUERY: 0.005},  # type: ignore[type-arg]
                  "drops": {WEB: 62_500, WEB_IDLE: web_drop, MICE: mice_drop},
                  "peak": {WEB: 100_000, WEB_IDLE: 50_000, MICE: 20_000}}
    if burst:
        step["drops"][QUERY] = 50_000
        step["peak"][QUERY] = 200_000
    return step


def run(scheme: str, mice_drop: float, web_drop: float) -> list[float]:
    """DT for 1 s (web's idle queue loses 0.1%, mice 0.1%), a burst raises the query
    class, then six intervals (less than hold: no decay) in which the other classes lose
    mice_drop, web_drop."""
    sw = three_classes(scheme, hold=1.0)
    for _ in range(10):
        sw.step(**traffic(500, 11_250))
    out = [sw.step(**traffic(500, 11_250, burst=True))[QUERY]]
    out += [sw.step(**traffic(mice_drop, web_drop))[QUERY] for _ in range(6)]
    return out


def test_noise_in_a_small_class_does_not_end_the_raise() -> None:
    # mice lose 0.4%, four times their loss under DT, on 4% of the other traffic's bytes
    assert run("auto14", 2_000, 11_250)[-1] == 0.5  # auto14 backs off on the mice
    kept = run("auto15", 2_000, 11_250)
    assert kept[0] == 1.0 and min(kept) == 1.0  # the weighted loss is 1.13 of DT's


def test_harm_to_most_of_the_other_traffic_ends_the_raise() -> None:
    # the web class's idle queue loses 0.4% of its 11 MB: the weighted loss is 3.9x DT's
    out, per_class = run("auto15", 500, 45_000), run("auto14", 500, 45_000)
    assert out[0] == 1.0 and out[-1] == 0.5
    # at most one interval after the per-class rule: the mice's unchanged loss dilutes it
    assert out.index(0.5) - per_class.index(0.5) in (0, 1)


def test_bad_parameters_name_the_key() -> None:
    with pytest.raises(ValueError, match="safety"):
        three_classes(safety=0.0)
