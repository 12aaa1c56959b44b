"""`oracle18`: `auto18` told which classes carry incast (a harness probe)."""

from __future__ import annotations

import numpy as np
import pytest
from test_auto import Switch
from test_auto20 import has_auto18s_parameters, writes_as_auto18_without_harm
from test_auto30 import two_classes

import alphad.schemes.superseded  # noqa: F401  (registers the probe)


def told(classes: float) -> Switch:
    """`two_classes`' switch (class 0 web, class 1 query) under `oracle18` told ``classes``."""
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme="oracle18",
                  classes=classes)


def test_told_every_class_it_writes_what_auto18_writes() -> None:
    writes_as_auto18_without_harm("oracle18")
    has_auto18s_parameters("oracle18")


def test_a_burst_raises_only_a_class_it_was_told_of() -> None:
    burst = {"util": {1: 0.005}, "drops": {1: 50_000}, "peak": {1: 200_000}}  # query's queue
    assert two_classes("oracle18").step(**burst)[1] > 0.5
    assert told(2).step(**burst)[1] > 0.5  # query is class 1
    told_web = told(1)
    assert told_web.step(**burst)[1] == 0.5
    web_burst = {"util": {0: 0.005}, "drops": {0: 50_000}, "peak": {0: 200_000}}
    assert told_web.step(**web_burst)[0] > 0.5


@pytest.mark.parametrize("mask", [0, 1.5, 256])
def test_a_mask_that_names_no_class_is_refused_by_name(mask: float) -> None:
    with pytest.raises(ValueError, match="oracle18: classes"):
        told(mask)


def test_without_the_idle_only_rule_a_busy_queue_of_the_raised_class_takes_the_raise() -> None:
    def query_alphas(scheme: str) -> np.ndarray:
        sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], scheme=scheme,
                    classes=2)
        # port 0's query queue overflows by a burst while port 1's query queue is busy
        return sw.step(util={1: 0.005, 3: 0.5}, drops={1: 50_000}, peak={1: 200_000})[[1, 3]]

    idle, busy = query_alphas("oracle18")
    assert idle > 0.5 and busy == 0.5
    idle_b, busy_b = query_alphas("oracle18-busy")
    assert idle_b == idle and busy_b == idle
