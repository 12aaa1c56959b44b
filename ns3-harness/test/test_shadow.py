"""A scheme whose factory sets ``reads_shadow_dt`` runs with the program's ``--shadowDt``
and is told, before each step, DT's estimates from its own run: the drops DT at the
operator's alphas would have admitted count as sent.

A probe that writes nothing is DT, so nothing is counted and what it is told equals what it
sees. A probe that raises the incast class is told losses no greater than its own, on the
same offered bytes, and smaller in some interval. Then `oracle18-shadow` co-simulates end to
end without a twin.
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
    """Writes the operator's alphas times ``raise`` on class 0; keeps what it was told."""

    name = "test-shadow-echo"

    def __init__(self, ctx: SchemeContext, params: Mapping[str, Any]) -> None:
        self.alpha = ctx.alpha_q.copy()
        self.alpha[ctx.topo.queue_index == 0] *= float(params.get("raise", 1.0))
        self.told: Estimates | None = None

    def tell_dt(self, est: Estimates) -> None:
        self.told = est

    def __call__(self, est: Estimates) -> np.ndarray:
        PAIRS.append((self.told, est))
        self.told = None
        return self.alpha.copy()


def _echo(ctx: SchemeContext, params: Mapping[str, Any]) -> _Echo:
    return _Echo(ctx, params)


_echo.reads_shadow_dt = True  # type: ignore[attr-defined]
register("test-shadow-echo", candidate=True)(_echo)


def spec(scheme: str, **params: float) -> RunSpec:
    return RunSpec(scenario=SCENARIO, scheme="alphad", alphas=(0.5,), alphad={
        "interval": "100ms", "scheme": scheme, "scheme_params": params,
        "priorities": [{"name": f"c{i}", "queues": [i], "alpha": 0.5} for i in range(2)],
        "quantize": {"mode": "pow2", "kmin": -8, "kmax": 7, "hysteresis": 0.25}})


@pytest.fixture(autouse=True)
def program() -> None:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")


def test_dt_is_told_its_own_estimates(tmp_path) -> None:  # type: ignore[no-untyped-def]
    PAIRS.clear()
    r = run(spec("test-shadow-echo"), tmp_path / "echo", timeout=600)
    assert "--shadowDt=1" in (tmp_path / "echo" / "argv.txt").read_text().split()
    assert r.summary["cosim"]["shadow_intervals"] == len(PAIRS) > 10
    lost = 0.0
    for told, own in PAIRS:
        assert told is not None
        for f in ("drop_delta", "tx_delta", "watermark", "free", "dt"):
            np.testing.assert_array_equal(getattr(told, f), getattr(own, f), err_msg=f)
        lost += float(own.drop_delta.sum())
    assert lost > 0  # the intervals compared include losses


def test_a_raise_is_told_the_drops_dt_would_have_admitted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    PAIRS.clear()
    run(spec("test-shadow-echo", **{"raise": 16.0}), tmp_path / "raised", timeout=600)
    fewer = 0
    for told, own in PAIRS:
        assert told is not None
        assert (told.drop_delta <= own.drop_delta).all()
        np.testing.assert_allclose(told.drop_delta + told.tx_delta, own.drop_delta + own.tx_delta)
        fewer += int((told.drop_delta < own.drop_delta).any())
    assert fewer > 0


def test_oracle18_shadow_co_simulates_without_a_twin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = run(spec("oracle18-shadow"), tmp_path / "shadow", timeout=600)
    cosim = r.summary["cosim"]
    assert cosim["shadow_intervals"] > 0 and cosim["scheme"] == "oracle18-shadow"
    assert "twin_intervals" not in cosim
