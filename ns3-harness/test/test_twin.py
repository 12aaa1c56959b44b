"""A scheme that asks for DT's counterfactual (``tells_dt``) is told it from a twin
simulation of the same spec at the operator's alphas, read in step with the run.

The probe here writes nothing, so the run is DT too: on the same arrivals the twin's
estimates must equal the run's own, interval by interval, on every switch, losses
included. Then `oracle18-cf` co-simulates end to end with its twin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, register
from alphad_ns3.run import default_program, run
from alphad_ns3.scenario import RunSpec, Scenario

SCENARIO = Scenario(queues=2, load=0.4, qps=40.0, request_frac=0.5, ws_classes="1",
                    incast_classes="0", gen=0.6, drain=0.2, seed=3, link_rate="1Gbps")
PAIRS: list[tuple[Estimates | None, Estimates]] = []  # (told, its own) per decision


class _Echo:
    """Writes the operator's alphas; keeps what it was told beside what it saw."""

    name = "test-twin-echo"
    tells_dt = True

    def __init__(self, ctx: SchemeContext, params: Mapping[str, Any]) -> None:
        self.alpha = ctx.alpha_q.copy()
        self.told: Estimates | None = None

    def tell_dt(self, est: Estimates) -> None:
        self.told = est

    def __call__(self, est: Estimates) -> np.ndarray:
        PAIRS.append((self.told, est))
        self.told = None
        return self.alpha.copy()


register("test-twin-echo", candidate=True)(_Echo)


def spec(scheme: str) -> RunSpec:
    return RunSpec(scenario=SCENARIO, scheme="alphad", alphas=(0.5,), alphad={
        "interval": "100ms", "scheme": scheme,
        "priorities": [{"name": f"c{i}", "queues": [i], "alpha": 0.5} for i in range(2)],
        "quantize": {"mode": "pow2", "kmin": -8, "kmax": 7, "hysteresis": 0.25}})


@pytest.fixture(autouse=True)
def program() -> None:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")


def test_the_twin_tells_dts_estimates_of_the_same_interval(tmp_path) -> None:  # type: ignore[no-untyped-def]
    PAIRS.clear()
    r = run(spec("test-twin-echo"), tmp_path / "echo", timeout=600)
    assert r.summary["cosim"]["twin_intervals"] == len(PAIRS) > 10
    assert all(told is not None for told, _ in PAIRS)
    lost = 0.0
    for told, own in PAIRS:
        assert told is not None
        for f in ("drop_delta", "tx_delta", "watermark", "free", "dt"):
            np.testing.assert_array_equal(getattr(told, f), getattr(own, f), err_msg=f)
        lost += float(own.drop_delta.sum())
    assert lost > 0  # the intervals compared include losses


def test_oracle18_cf_co_simulates_with_its_twin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = run(spec("oracle18-cf"), tmp_path / "cf", timeout=600)
    cosim = r.summary["cosim"]
    assert cosim["twin_intervals"] > 0 and cosim["scheme"] == "oracle18-cf"
    assert (tmp_path / "cf" / "twin-stderr.log").is_file()  # the twin's log, apart from the run's
    off = run(spec("oracle18-memo"), tmp_path / "memo", timeout=600)
    assert "twin_intervals" not in off.summary["cosim"]
