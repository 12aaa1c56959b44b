"""--configs may add any registered scheme at an interval to a scenario's own configs."""

from __future__ import annotations

from experiments.strategies import run as campaign


def test_a_registered_scheme_at_an_interval_is_run_too() -> None:
    own = [("auto@100ms", "alphad", 0.1, ()), ("abm@100ms", "alphad", 0.1, ())]
    names = ["auto4@100ms", "dt@10ms", "auto@100ms", "auto", "nosuch@100ms", "auto4@1s",
             "abm@100ms", "abm@0.5ms"]
    assert campaign.with_extra(own, names) == [
        *own, ("auto4@100ms", "alphad", 0.1, ()), ("dt@10ms", "alphad", 0.01, ()),
        ("abm@0.5ms", "alphad", 0.0005, ())]  # a scenario's own abm@100ms runs once


def test_a_scheme_with_parameters_in_brackets_is_run_with_them() -> None:
    names = ["auto9[margin=1,safety=1000]@100ms", "auto9[margin=1]@1000ms", "nosuch[a=1]@100ms"]
    assert campaign.with_extra([], names) == [
        ("auto9[margin=1,safety=1000]@100ms", "alphad", 0.1, ()),
        ("auto9[margin=1]@1000ms", "alphad", 1.0, ())]
