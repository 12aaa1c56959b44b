"""`auto19`: `auto18`, and busy queues make room while a class at its cap still overflows."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_auto import Switch

from alphad.docgen import _scheme_params
from alphad.schemes import auto19

WEB_BUSY = {"util": {0: 0.5}, "peak": {0: 100_000}}  # web's port-0 queue: sustained flows


def two_classes(scheme: str = "auto19", alpha: float = 2.0, **params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], alpha, None), ("query", [1], alpha, None)], scheme=scheme,
                  **params)


def big_burst(q: int = 1, web_drop: float = 0.0) -> dict:  # type: ignore[type-arg]
    """A burst on query queue q that no alpha admits (600 kB peak, 500 kB lost, of 1 MB),
    beside web's busy port-0 queue."""
    return {"util": {0: 0.5, q: 0.005}, "drops": {q: 500_000, 0: web_drop},
            "peak": {0: 100_000, q: 600_000}}


def test_busy_queues_step_down_while_a_class_at_its_cap_overflows() -> None:
    sw = two_classes(hold=0.5)
    out = sw.step(**big_burst())
    # the first burst raises the query class to its cap (2 x 8 = 16) on its idle queues;
    # nobody is cut yet: the class was not at its cap when the burst came
    np.testing.assert_array_equal(out, [2.0, 16.0, 2.0, 16.0])
    cut = [sw.step(**big_burst())[0] for _ in range(4)]
    assert cut == [1.0, 0.5, 0.25, 0.25]  # one level an interval, down to alpha_floor
    out = sw.step(**big_burst())
    assert out[2] == 2.0  # web's idle queue (short flows) keeps the operator's alpha
    assert out[1] == out[3] == 16.0
    # without bursts the busy queue comes back one level per hold (5 intervals), and all
    # the way once the query class has decayed to its operator's alpha
    back = [sw.step(**WEB_BUSY)[[0, 1]].tolist() for _ in range(16)]
    busy = [b for b, _ in back]
    assert busy == sorted(busy) and busy[-1] == 2.0 and back[-1][1] == 2.0
    assert [busy.count(a) for a in (0.25, 0.5, 1.0)] == [5, 5, 5]


def test_a_busy_queue_of_the_raised_class_is_cut_too_and_the_floor_is_per_class() -> None:
    sw = Switch([("web", [0], 0.25, None), ("query", [1], 2.0, None)], scheme="auto19")
    sw.step(**big_burst())
    step = {"util": {0: 0.5, 1: 0.005, 3: 0.5}, "drops": {1: 500_000},
            "peak": {0: 100_000, 1: 600_000, 3: 100_000}}  # query's port-1 queue is busy
    for _ in range(4):
        out = sw.step(**step)
    assert out[3] == 0.25  # query's busy queue: 2 cut three levels
    assert out[0] == 0.25  # web's alpha_p is already the floor: never cut
    assert out[1] == 16.0


def test_harm_to_busy_queues_undoes_the_cut_before_the_raise() -> None:
    sw = two_classes(hold=0.3)
    for _ in range(5):  # under DT web's busy queue loses 0.1%
        sw.step(**{**WEB_BUSY, "drops": {0: 62_500}})
    sw.step(**big_burst(web_drop=62_500))
    outs = [sw.step(**big_burst(web_drop=62_500)) for _ in range(3)]
    assert outs[-1][0] == 0.25
    # now web's sustained flows lose 1%: the cut comes back first, the raise stays
    harm = big_burst(web_drop=625_000)
    outs = [sw.step(**harm) for _ in range(3)]
    assert [o[0] for o in outs] == [0.5, 1.0, 2.0]
    assert all(o[1] == 16.0 for o in outs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_until_a_class_at_its_cap_overflows_it_is_auto18(seed: int) -> None:
    # busy web queues, and bursts one interval in ten that need one level: most raises
    # decay (hold: three intervals) before a run of bursts takes the class to its cap
    rng = random.Random(seed)
    a, b = two_classes(hold=0.3), two_classes("auto18", hold=0.3)
    raised = same = 0
    for _ in range(300):
        step = {"util": {0: 0.5 * rng.random(), 2: 0.5 * rng.random()}}
        if rng.random() < 0.1:
            q = rng.choice((1, 3))
            step = {"util": {**step["util"], q: 0.005}, "drops": {q: 50_000},
                    "peak": {q: rng.uniform(100_000, 400_000)}}
        out, ref = a.step(**step), b.step(**step)
        if a.sch.cut:  # the first cut: the busy web queues leave auto18's alpha
            assert (out <= ref).all() and (out[[0, 2]] < ref[[0, 2]]).any()
            break
        np.testing.assert_array_equal(out, ref)
        same += 1
        raised += bool(out[1] > 2.0 or out[3] > 2.0)
    assert same > 50 and raised > 10


def test_alpha_floor_is_a_documented_parameter() -> None:
    with pytest.raises(ValueError, match="auto19: alpha_floor must be > 0"):
        two_classes(alpha_floor=0)
    params = _scheme_params()["auto19"]
    assert sorted(params) == sorted(auto19.DEFAULTS) and len(params) == 7
    assert all(comment for _default, comment in params.values())
