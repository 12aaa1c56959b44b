"""`auto37`: the probe `oracle18-memo` told every class, under its own name and with only
`auto18`'s parameters."""

from __future__ import annotations

import pytest
from test_auto import decide_alike
from test_auto18 import two_classes
from test_auto20 import has_auto18s_parameters
from test_oracle18 import lossy_web, told

import alphad.schemes.superseded  # noqa: F401  (registers the candidates)
from alphad.schemes import auto37
from alphad.schemes.oracle18 import ALL

ALPHA_P = 0.5  # two_classes' operator alpha
CAP = 16.0  # alpha_cap's default


BUILT_ON_IT = ["auto37", "auto38", "auto39"]  # the candidates with its fixed values


@pytest.mark.parametrize("scheme", BUILT_ON_IT)
def test_its_parameters_are_auto18s(scheme: str) -> None:
    has_auto18s_parameters(scheme)


@pytest.mark.parametrize("scheme", BUILT_ON_IT)
@pytest.mark.parametrize("key", ["classes", "memory", "used", "at_cap", "quiet", "since"])
def test_the_probes_switches_are_fixed_and_refused_by_name(scheme: str, key: str) -> None:
    with pytest.raises(ValueError, match=f"{scheme}: {key} is not a parameter .fixed at "
                                         f"{auto37.FIXED[key]:g}"):
        two_classes(scheme, **{key: 1})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_writes_what_the_probe_told_every_class_writes(seed: int) -> None:
    sw = two_classes("auto37")
    assert auto37.FIXED["classes"] == ALL
    assert decide_alike(sw, told(ALL, "oracle18-memo"), lossy_web(seed, n=600)) > 30
    assert sw.sch.harms >= 2  # web's losses tripped the safety rule: the hold doubled


def test_a_burst_in_either_class_raises_that_class_to_the_cap() -> None:
    for q in (0, 1):  # the web class too: no class is told
        sw = two_classes("auto37")
        for _ in range(30):  # a reference of three seconds of DT
            sw.step(util={0: 0.5})
        out = sw.step(util={q: 0.005}, drops={q: 20_000}, peak={q: 60_000})
        assert out[q] == CAP and out[1 - q] == ALPHA_P

