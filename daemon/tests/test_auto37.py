"""`auto37`: the probe `oracle18-memo` told every class, under its own name and with only
`auto18`'s parameters."""

from __future__ import annotations

import pytest
from test_auto import DT, Switch, decide_alike
from test_auto20 import has_auto18s_parameters
from test_oracle18 import SMALL, loss, lossy_web, raised_and_web_loses

import alphad.schemes.superseded  # noqa: F401  (registers the candidates)
from alphad.schemes import auto37
from alphad.schemes.auto18 import HOLD_S

ALPHA_P = 0.5  # the switches' operator alpha
CAP = 16.0  # alpha_cap's default


def two_classes(scheme: str = "auto37", **params: float) -> Switch:
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], ALPHA_P, None), ("query", [1], ALPHA_P, None)],
                  scheme=scheme, **params)


def probe() -> Switch:
    return two_classes("oracle18-memo", classes=255)


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto37")


@pytest.mark.parametrize("key", ["classes", "memory", "used", "at_cap", "quiet", "since"])
def test_the_probes_switches_are_fixed_and_refused_by_name(key: str) -> None:
    with pytest.raises(ValueError, match=f"auto37: {key} is not a parameter .fixed at "
                                         f"{auto37.FIXED[key]:g}"):
        two_classes(**{key: 1})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_writes_what_the_probe_told_every_class_writes(seed: int) -> None:
    # web's losses trip the safety rule: raises, harms and doubled holds alike
    assert decide_alike(two_classes(), probe(), lossy_web(seed, n=600)) > 30


def test_a_burst_in_either_class_raises_that_class_to_the_cap() -> None:
    for q in (0, 1):  # the web class too: no class is told
        sw = two_classes()
        for _ in range(30):  # a reference of three seconds of DT
            sw.step(util={0: 0.5})
        out = sw.step(util={q: 0.005}, drops={q: 20_000}, peak={q: 60_000})
        assert out[q] == CAP and out[1 - q] == ALPHA_P


def test_a_harm_holds_dt_for_hold_s_then_twice_that() -> None:
    hold = round(HOLD_S / DT)
    burst = {"util": {0: 0.5, 1: 0.005}, "drops": {0: loss(0.5, 0.005), 1: 20_000},
             "peak": {1: 60_000}}
    sw = two_classes()
    for _ in range(30):
        sw.step(util={0: 0.5}, drops={0: loss(0.5, 0.005)})
    assert sw.step(**SMALL)[1] == CAP
    held = []
    for _ in range(2):
        assert sw.step(**raised_and_web_loses(0.03, 400_000))[1] == ALPHA_P
        n = 0
        while sw.step(**burst)[1] != CAP:
            n += 1
            assert n < 10 * hold
        held.append(n)
    about = [range(k * hold - 1, k * hold + 2) for k in (1, 2)]  # one early or late: float time
    assert [h in r for h, r in zip(held, about, strict=True)] == [True] * 2
