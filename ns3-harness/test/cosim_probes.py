"""What the tests of probes told DT's loss share: a small scenario, its spec and an echo
probe that records, per decision, what it was told beside what it saw."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pytest
from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext
from alphad_ns3.run import default_program
from alphad_ns3.scenario import RunSpec, Scenario

SCENARIO = Scenario(queues=2, load=0.4, qps=40.0, request_frac=0.5, ws_classes="1",
                    incast_classes="0", gen=0.6, drain=0.2, seed=3, link_rate="1Gbps")


Pairs = list[tuple[Estimates | None, Estimates]]  # (told, its own) per decision


class Echo:
    """Writes the operator's alphas, times ``raise`` on class 0; keeps (told, its own) per
    decision in its class's ``pairs``."""

    pairs: ClassVar[Pairs]

    def __init__(self, ctx: SchemeContext, params: Mapping[str, Any]) -> None:
        self.alpha = ctx.alpha_q.copy()
        self.alpha[ctx.topo.queue_index == 0] *= float(params.get("raise", 1.0))
        self.told: Estimates | None = None

    def tell_dt(self, est: Estimates) -> None:
        self.told = est

    def __call__(self, est: Estimates) -> np.ndarray:
        self.pairs.append((self.told, est))
        self.told = None
        return self.alpha.copy()


def spec(scheme: str, **params: float) -> RunSpec:
    return RunSpec(scenario=SCENARIO, scheme="alphad", alphas=(0.5,), alphad={
        "interval": "100ms", "scheme": scheme, "scheme_params": params,
        "priorities": [{"name": f"c{i}", "queues": [i], "alpha": 0.5} for i in range(2)],
        "quantize": {"mode": "pow2", "kmin": -8, "kmax": 7, "hysteresis": 0.25}})


def require_program() -> None:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")


def assert_told_own(pairs: Pairs) -> None:
    """Every decision was told estimates equal to its own, and some of them lost bytes."""
    lost = 0.0
    for told, own in pairs:
        assert told is not None
        for f in ("drop_delta", "tx_delta", "watermark", "free", "dt"):
            np.testing.assert_array_equal(getattr(told, f), getattr(own, f), err_msg=f)
        lost += float(own.drop_delta.sum())
    assert lost > 0  # the intervals compared include losses
