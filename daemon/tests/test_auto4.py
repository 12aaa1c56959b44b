"""The candidate `auto4`: `auto` with a test for starvation by strict priority, and nothing
else."""

from __future__ import annotations

import json

import pytest
from test_auto import Switch, burst
from test_auto_golden import _file, _levels

from alphad import schemes
from alphad.quantize import Quantizer


def two_classes(scheme: str = "auto4", **params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  **params)


def test_without_strict_priority_it_decides_as_auto() -> None:
    want = json.loads(_file("auto").read_text())
    for seed in ("0", "7", "13", "21", "34"):
        assert _levels(int(seed), "auto4") == want[seed], f"seed {seed}"


def test_a_queue_behind_busy_strict_priority_queues_is_starved_not_burst() -> None:
    def run(strict: tuple, scheme: str = "auto4") -> float:  # type: ignore[type-arg]
        sw = two_classes(scheme, strict=strict)
        # port 0: web's queue sends 40% of line rate, query's idle queue loses 8%
        out = sw.step(util={0: 0.4, 1: 0.005}, drops={1: 50_000}, peak={1: 200_000})
        return float(out[1])

    assert run(()) == 1.0  # no strict priority: a burst, raised at once as `auto` does
    assert run((0, 1)) == 0.5  # web is served first: query waited behind it
    assert run((0, 1), "auto") == 1.0  # `auto` reads it as a burst
    assert run((1, 0)) == 1.0  # query is served first: nothing starved it
    assert run((0, None)) == 0.5  # a class without a rank comes after every strict one
    quiet = two_classes(strict=(0, 1))  # web served first but nearly idle: a burst
    out = quiet.step(util={0: 0.05, 1: 0.005}, drops={1: 50_000}, peak={1: 200_000})
    assert out[1] == 1.0


def test_harm_steps_every_raised_class_down_one_level() -> None:
    sw = two_classes(hold=0.3)
    busy = {0: 0.4, 3: 0.4}
    for _ in range(5):  # under DT both classes' long flows lose 0.1%
        sw.step(util=busy, drops={0: 50_000, 3: 50_000})
    out = sw.step(util={**busy, 1: 0.005}, drops={0: 50_000, 3: 50_000, 1: 400_000},
                  peak={1: 400_000})
    assert out[1] == 16.0  # a burst no alpha admits: the cap, at the first burst
    assert sw.step(util=busy, drops={0: 250_000, 3: 50_000})[1] == 8.0  # harm: one down
    # and raised again by the next burst (no wait after a back-off)
    assert sw.step(**burst(1))[1] > 0.5


def test_parameters_are_checked_by_name() -> None:
    sw = two_classes()
    ctx = schemes.SchemeContext(sw.topo, sw.cl, Quantizer(), 0.1)
    with pytest.raises(ValueError, match=r"auto4: unknown parameter .idle_loss_min."):
        schemes.get("auto4")(ctx, {"idle_loss_min": 0.02})
    with pytest.raises(ValueError, match="auto4: alpha_cap must be a non-negative number"):
        schemes.get("auto4")(ctx, {"alpha_cap": float("inf")})
    with pytest.raises(ValueError, match="auto4: hold must be > 0"):
        schemes.get("auto4")(ctx, {"hold": 0})
