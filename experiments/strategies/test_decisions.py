"""``decisions`` in scenarios (a) and (b): the run the strategy benchmark makes, named."""

from __future__ import annotations

import pytest
from alphad_ns3.run import run

from experiments.strategies import decisions
from experiments.strategies import run as campaign


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
    with pytest.raises(SystemExit, match="--from: -1 must be a time in seconds"):
        decisions.main(["--from", "-1"])


def test_the_metrics_from_a_time_on_leave_out_what_came_before(tmp_path) -> None:  # type: ignore[no-untyped-def]
    spec = campaign.alphad(campaign.scen_c(1, 0.6), "auto18", 0.1, (0.5, 0.5))
    run(spec, tmp_path, timeout=600)
    whole, late = decisions.measured(str(tmp_path), 0.0), decisions.measured(str(tmp_path), 0.3)
    assert whole.startswith("from 0 s: queries timed out ") and late.startswith("from 0.3 s")
    assert whole.split(",")[1:] != late.split(",")[1:]  # fewer queries and flows counted
