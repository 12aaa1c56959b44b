"""`auto36`: `auto25` whose safety rule judges the loss since a raise began, over the
intervals it was used in, and which raises only once its reference stands for REF_S of DT."""

from __future__ import annotations

from test_auto import DT, Switch, decide_alike, two_classes, web_and_bursts
from test_auto20 import has_auto18s_parameters
from test_oracle18 import SMALL, loss, raised_and_web_loses

import alphad.schemes.superseded  # noqa: F401  (registers the candidates)
from alphad.schemes.auto18 import HOLD_S
from alphad.schemes.auto36 import REF_S

ALPHA_P = 0.5  # two_classes' operator alpha
DT_INTERVALS = round(REF_S / DT)  # intervals of DT the reference needs before a raise


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto36")


def warmed(scheme: str, web_loss: float = 0.0) -> Switch:
    """`two_classes` under ``scheme`` after three seconds of DT in which web's busy queue
    lost ``web_loss`` of what it was offered."""
    sw = two_classes(scheme=scheme)
    for _ in range(30):
        sw.step(util={0: 0.5}, drops={0: loss(0.5, web_loss)} if web_loss else None)
    return sw


def test_once_its_reference_stands_without_harm_it_writes_what_auto25_writes() -> None:
    for seed in (1, 2):  # web loses nothing: neither rule fires
        assert decide_alike(warmed("auto36"), warmed("auto25"), web_and_bursts(seed)) > 50


def test_no_raise_before_the_reference_stands_for_a_second_of_dt() -> None:
    sw, ref = two_classes(scheme="auto36"), two_classes(scheme="auto25")
    assert ref.step(**SMALL)[1] > ALPHA_P  # `auto25` raises on the run's first interval
    assert sw.step(**SMALL)[1] == ALPHA_P
    first = [float(sw.step(**SMALL)[1]) for _ in range(DT_INTERVALS)]
    assert first.index(max(first)) in (DT_INTERVALS - 2, DT_INTERVALS - 1)  # float time
    assert max(first) > ALPHA_P and min(first) == ALPHA_P


def test_a_loss_since_the_raise_is_judged_at_once_where_the_average_waits() -> None:
    def after_raise(scheme: str, frac: float) -> list[float]:
        sw = warmed(scheme, web_loss=0.005)
        assert sw.step(**SMALL)[1] > ALPHA_P
        return [float(sw.step(**raised_and_web_loses(frac, 400_000))[1]) for _ in range(5)]

    # web's busy queue loses 1.5% where DT lost 0.5%: three times its reference
    assert after_raise("auto36", 0.015)[0] == ALPHA_P
    assert min(after_raise("auto25", 0.015)) > ALPHA_P  # the average has not moved enough
    assert min(after_raise("auto36", 0.008)) > ALPHA_P  # under twice the reference: no harm


def test_a_loss_while_the_raised_queue_holds_what_dt_admits_is_not_the_raises() -> None:
    def after_raise(query_peak: float) -> list[float]:
        sw = warmed("auto36", web_loss=0.005)
        assert sw.step(**SMALL)[1] > ALPHA_P
        return [float(sw.step(**raised_and_web_loses(0.03, query_peak))[1]) for _ in range(3)]

    # 100 kB is under alpha_p (0.5) times the 0.8 MB left free: DT admits it
    assert min(after_raise(100_000)) > ALPHA_P
    assert after_raise(400_000)[0] == ALPHA_P  # more than DT admits: the raise's, and harm


def test_harm_holds_dt_for_hold_s_then_twice_that() -> None:
    hold = round(HOLD_S / DT)
    burst = {"util": {0: 0.5, 1: 0.005}, "drops": {0: loss(0.5, 0.005), 1: 20_000},
             "peak": {1: 60_000}}
    sw = warmed("auto36", web_loss=0.005)
    held = []
    for _ in range(2):
        assert sw.step(**SMALL)[1] > ALPHA_P  # a raise (the second: the one the burst began)
        assert sw.step(**raised_and_web_loses(0.03, 400_000))[1] == ALPHA_P
        n = 0
        while sw.step(**burst)[1] == ALPHA_P:
            n += 1
            assert n < 10 * hold
        held.append(n)
    about = [range(k * hold - 1, k * hold + 2) for k in (1, 2)]  # one early or late: float time
    assert [h in r for h, r in zip(held, about, strict=True)] == [True] * 2
