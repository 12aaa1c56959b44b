"""A scheme that asks for DT's counterfactual (``tells_dt``) is told it from a twin
simulation of the same spec at the operator's alphas, read in step with the run.

The probe here writes nothing, so the run is DT too: on the same arrivals the twin's
estimates must equal the run's own, interval by interval, on every switch, losses
included. Then `oracle18-cf` co-simulates end to end with its twin.
"""

from __future__ import annotations

from typing import ClassVar

import pytest
from alphad.schemes._base import register
from alphad_ns3.run import run
from cosim_probes import Echo, Pairs, assert_told_own, require_program, spec


class _Echo(Echo):
    name = "test-twin-echo"
    tells_dt = True
    pairs: ClassVar[Pairs] = []


register("test-twin-echo", candidate=True)(_Echo)


@pytest.fixture(autouse=True)
def program() -> None:
    require_program()


def test_the_twin_tells_dts_estimates_of_the_same_interval(tmp_path) -> None:  # type: ignore[no-untyped-def]
    _Echo.pairs.clear()
    r = run(spec("test-twin-echo"), tmp_path / "echo", timeout=600)
    assert r.summary["cosim"]["twin_intervals"] == len(_Echo.pairs) > 10
    assert_told_own(_Echo.pairs)


def test_oracle18_cf_co_simulates_with_its_twin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = run(spec("oracle18-cf"), tmp_path / "cf", timeout=600)
    cosim = r.summary["cosim"]
    assert cosim["twin_intervals"] > 0 and cosim["scheme"] == "oracle18-cf"
    assert (tmp_path / "cf" / "twin-stderr.log").is_file()  # the twin's log, apart from the run's
    off = run(spec("oracle18-memo"), tmp_path / "memo", timeout=600)
    assert "twin_intervals" not in off.summary["cosim"]
