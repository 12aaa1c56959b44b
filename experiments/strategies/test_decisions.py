"""``decisions`` in scenarios (a) and (b): the run the strategy benchmark makes, named."""

from __future__ import annotations

import pytest

from experiments.strategies import decisions


def test_a_config_names_the_scheme_its_interval_and_its_parameters() -> None:
    scheme, s = decisions.spec("a", "", "auto9[margin=1,loss_min=1]@100ms", 2)
    assert scheme == "auto9" and s.alphad is not None
    assert s.alphad["scheme"] == "auto9" and s.alphad["interval"] == "100000us"
    assert s.alphad["scheme_params"] == {"margin": 1.0, "loss_min": 1.0}
    assert s.scenario.seed == 2 and s.scenario.queues == 8  # (a): eight classes
    scheme, s = decisions.spec("b", "load0.6-req0.5", "auto31@1000ms", 1)
    assert scheme == "auto31" and s.alphad is not None and s.alphad["interval"] == "1e+06us"
    assert s.scenario.queues == 3 and s.scenario.load == 0.6 and s.scenario.request_frac == 0.5


def test_bad_input_is_a_named_error() -> None:
    with pytest.raises(SystemExit, match="expected dt, placebo, abm, static:B,O or scheme@"):
        decisions.spec("a", "", "auto18", 1)
    with pytest.raises(SystemExit, match="only co-simulated configs decide"):
        decisions.spec("a", "", "dt", 1)
    with pytest.raises(SystemExit, match="--variant: one of load0.4-req0.5"):
        decisions.spec("b", "load9", "auto18@100ms", 1)
    with pytest.raises(SystemExit, match="dt: not an auto-family scheme"):
        decisions.main(["--config", "dt@100ms"])
