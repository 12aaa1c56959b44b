"""A receiving socket closed with data it has not read resets its connection, and the reset
reports an error close from inside ``Close()``; the harness must close it once, not again
from that report (which used to recurse until the stack overflowed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from alphad_ns3.analysis import load_run
from alphad_ns3.run import default_program, run
from alphad_ns3.scenario import DATA_DIR, RunSpec, Scenario

# Strict priority, DCTCP and incast in two of three classes: on this seed a receiver is
# closed with unread data in the third second.
RESETS = Scenario(leaves=3, spines=2, servers=11, link_rate="1Gbps",
                  buffer_per_port_per_gbps=16445.4, queues=3, sched="sp", tcp="dctcp",
                  load=0.44, cdf=str(DATA_DIR / "datamining.cdf"), ws_classes="0", qps=4.74,
                  request_frac=0.412, fanin=0, incast_classes="1,2", gen=3.0, drain=0.3,
                  seed=2, snd_buf=223790)


def test_a_receiver_reset_on_close_does_not_stop_the_run(tmp_path: Path) -> None:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    res = run(RunSpec(scenario=RESETS, scheme="dt", alphas=[4.0, 0.5, 0.25]), tmp_path / "r")
    flows = load_run(res.out).flows
    assert len(flows) > 100 and (flows["start_ns"] > 2.5e9).any()  # it ran to the end
