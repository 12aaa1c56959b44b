"""`auto18`: `auto9` whose raise is exactly DT's admission rule, S / (F - S)."""

from __future__ import annotations

import numpy as np
import pytest
from test_auto import Switch, burst, web_and_bursts

from alphad.docgen import _scheme_params
from alphad.schemes import auto18


def two_classes(scheme: str = "auto18", **params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                  **params)


@pytest.mark.parametrize("key,value", [("margin", 1.25), ("hold", 0.5), ("safety", 1000),
                                       ("loss_min", 0.01)])
def test_fixed_keys_are_refused_by_name(key: str, value: float) -> None:
    with pytest.raises(ValueError, match=f"auto18: {key} is not a parameter .fixed at "
                                         f"{auto18.FIXED[key]:g}; parameters: alpha_cap"):
        two_classes(**{key: value})


def test_each_parameter_is_documented() -> None:
    # the configuration reference gives every parameter its comment and unit
    params = _scheme_params()["auto18"]
    assert sorted(params) == ["alpha_cap", "burst_frac", "idle_util"]
    assert all(comment for _default, comment in params.values())


def test_the_raise_is_what_the_burst_needed() -> None:
    # buffer B = 1 MB, alpha_p 0.5. A burst of S = peak + drops = 250 kB needed
    # S / (B - S) = 1/3, under alpha_p: the raise is the one more level (alpha 1), as with
    # auto9's margin 1.25 (312.5 / 687.5 = 0.45). At S = 450 kB: 450 / 550 = 0.82, still
    # level 1; with the margin 562.5 / 437.5 = 1.29, level 2 (alpha 2).
    a, b = two_classes(), two_classes("auto9")
    assert a.step(**burst(1, size=200_000))[1] == b.step(**burst(1, size=200_000))[1] == 1.0
    a, b = two_classes(), two_classes("auto9")
    assert a.step(**burst(1, size=350_000, dropped=100_000))[1] == 1.0
    assert b.step(**burst(1, size=350_000, dropped=100_000))[1] == 2.0


@pytest.mark.parametrize("seed,web_busy", [(1, False), (2, True), (3, True)])
def test_it_is_auto9_with_its_fixed_values(seed: int, web_busy: bool) -> None:
    # on random traffic with bursts, busy queues and the safety rule, interval by interval
    a = two_classes()
    b = two_classes("auto9", margin=1.0, hold=auto18.HOLD_S, safety=auto18.SAFETY,
                    loss_min=auto18.LOSS_MIN)
    raised = 0
    for step in web_and_bursts(seed, web_busy=web_busy):
        out = a.step(**step)
        np.testing.assert_array_equal(out, b.step(**step))
        raised += bool((out > 0.5).any())
    assert raised > 50  # the traffic exercises the raises


def test_a_stale_sample_falls_back_to_dt() -> None:
    sw = two_classes()
    assert sw.step(**burst(1))[1] == 1.0
    out = sw.step(dt=1.0)  # ten intervals without a sample
    np.testing.assert_array_equal(out, np.full(4, 0.5))
    # the history is gone: the next burst starts from alpha_p again
    assert sw.step(**burst(3))[3] == 1.0
