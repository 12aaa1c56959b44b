"""Metric definitions on a hand-written run directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alphad_ns3.analysis import gain, load_run, metrics, percentile

FLOWS = """id,kind,query,src,dst,cls,size,start_ns,end_ns,fct_ns,ideal_ns,slowdown,drop_pkts,drop_bytes,rto
0,ws,-1,0,4,1,50000,0,200000,200000,100000,2,0,0,0
1,ws,-1,0,4,1,20000,0,-1,-1,100000,nan,3,4200,1
2,ws,-1,1,5,2,2000000,0,3000000,3000000,2000000,1.5,0,0,0
3,incast,0,4,0,3,10000,100000,300000,200000,100000,2,0,0,0
4,incast,0,5,0,3,10000,100000,500000,400000,100000,4,2,2800,1
5,incast,1,4,1,3,10000,200000,400000,200000,100000,2,0,0,0
"""
QUERIES = """id,dst,cls,start_ns,end_ns,qct_ns,flows,bytes,drop_pkts
0,0,3,100000,500000,400000,2,20000,2
1,1,3,200000,400000,200000,1,10000,0
"""
BUFFER = """t_ns,switch,occupancy_bytes
0,leaf0,100
1000,leaf0,300
5000000,leaf0,1000
"""


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    (tmp_path / "flows.csv").write_text(FLOWS)
    (tmp_path / "queries.csv").write_text(QUERIES)
    (tmp_path / "buffer.csv").write_text(BUFFER)
    summary = {"sim_seconds": 0.001, "run_wall_seconds": 0.5, "events": 1000, "gen_end_s": 0.002,
               "params": {"start_s": 0.0}, "uplink_utilisation": [0.4, 0.6],
               "switches": [{"name": "leaf0", "pool_bytes": 1000}]}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    return tmp_path


def test_metrics(run_dir: Path) -> None:
    m = metrics(load_run(run_dir))
    assert m["short_n"] == 2 and m["short_unfinished"] == 1 and m["short_rto_flows"] == 1
    # the unfinished short flow is censored at the run's end: 1e6 ns / 1e5 ns = 10
    assert m["short_slowdown_p50"] == pytest.approx(6.0)
    assert m["long_n"] == 1 and m["long_slowdown_p50"] == pytest.approx(1.5)
    assert m["incast_drop_bytes"] == 2800 and m["ws_drop_bytes"] == 4200
    assert m["incast_rto_flows"] == 1
    assert m["queries"] == 2 and m["burst_absorption"] == pytest.approx(0.5)
    assert m["qct_ms_mean"] == pytest.approx(0.3)
    # buffer samples inside [start, gen_end] only: 100 and 300 of a 1000-byte pool
    assert m["buffer_occupancy_mean"] == pytest.approx(0.2)
    assert m["uplink_utilisation"] == pytest.approx(0.5)
    assert m["sim_speed"] == pytest.approx(0.002)
    assert m["events_per_second"] == pytest.approx(2000)


def test_pooling_two_runs(run_dir: Path) -> None:
    r = load_run(run_dir)
    m = metrics([r, r])
    assert m["runs"] == 2 and m["short_n"] == 4 and m["queries"] == 4


def test_percentile_and_gain() -> None:
    assert percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert percentile([], 99) != percentile([], 99)  # NaN
    assert gain(16.0, 100.0) == pytest.approx(0.84)
    assert gain(150.0, 100.0) == pytest.approx(-0.5)
