"""`auto35`: `auto34` whose safety rule judges a raise once its reference stands for one
probe of DT."""

from __future__ import annotations

import numpy as np
from test_auto import DT, decide_alike, two_classes, web_and_bursts
from test_auto20 import has_auto18s_parameters
from test_auto34 import after_raise
from test_oracle18 import SMALL, web_loses

from alphad.schemes.auto34 import PROBE_INTERVALS as EVERY


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto35")


def test_without_harm_it_writes_what_auto34_writes() -> None:
    for seed in (1, 2):  # web loses nothing: the rule never fires
        assert decide_alike(two_classes(scheme="auto35"), two_classes(scheme="auto34"),
                            web_and_bursts(seed)) > 50


def test_a_raise_after_a_probes_worth_of_dt_is_judged_at_once() -> None:
    # ten intervals of DT (one probe's worth at 100 ms: EVERY intervals) before the raise
    assert EVERY * DT == 1.0
    waits = after_raise("auto34", lambda k: web_loses(0.01))
    assert min(waits[:EVERY - 1]) == waits[0] > 0.5
    judged = after_raise("auto35", lambda k: web_loses(0.01))
    assert judged[0] > 0.5 and min(judged[:EVERY - 1]) == 0.5
    assert judged == after_raise("auto18", lambda k: web_loses(0.01))


def test_a_raise_in_the_first_interval_waits_for_its_probe() -> None:
    def first(scheme: str) -> list[float]:
        sw = two_classes(scheme=scheme)
        return [float(sw.step(**SMALL)[1])] + [float(sw.step(**web_loses(0.01))[1])
                                               for _ in range(EVERY + 1)]

    alphas = first("auto35")
    assert alphas == first("auto34")
    raised = alphas[0]
    assert raised > 0.5 and [i for i, a in enumerate(alphas) if a != raised] == [EVERY - 1]


def test_at_1s_a_reference_stands_for_two_seconds_of_dt() -> None:
    burst = {"util": {1: 0.005}, "drops": {1: 300_000}, "peak": {1: 300_000}}
    web = {"util": {0: 0.005}, "drops": {0: 20_000}}  # web's idle queue loses 7%

    def after_dt(scheme: str, dt_s: int) -> list[float]:
        sw = two_classes(scheme=scheme, interval=1.0)
        for _ in range(dt_s):
            sw.step(util={0: 0.005, 2: 0.005}, drops={2: 100}, dt=1.0)
        return [float(sw.step(**burst, dt=1.0)[1])] + [
            float(sw.step(**web, dt=1.0)[1]) for _ in range(4)]

    # the interval of the burst ran as DT too: with one before it, two seconds
    assert after_dt("auto35", 1)[:3] == [2.0, 1.0, 0.5]
    assert np.min(after_dt("auto34", 1)[:3]) > 0.5
    assert after_dt("auto35", 0) == after_dt("auto34", 0)
