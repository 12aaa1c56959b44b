"""Replay of traces recorded by the ns-3 harness (format: TRACE_FORMAT.md).

Every ``tests/data/*.csv`` is replayed: the trace must agree with the exact formula it
claims to implement, and the P4 model must agree with that formula on >= 99% of the
packets. When no trace has been committed yet the test is reported as skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from p4ref.replay import replay
from p4ref.trace import read_trace

TRACES = sorted((ROOT / "tests" / "data").glob("*.csv"))


@pytest.mark.skipif(not TRACES, reason="no ns-3 traces committed under tests/data yet")
@pytest.mark.parametrize("path", TRACES, ids=[p.name for p in TRACES])
def test_ns3_trace(path: Path) -> None:
    tr = read_trace(path)
    assert tr.meta.get("source") != "synthetic", "tests/data holds ns-3 traces only"
    rep = replay(tr)
    print(rep.text())
    assert rep.rate("exact vs recorded") >= 0.999
    assert rep.rate("model vs exact(gamma=1/active)") >= 0.99
