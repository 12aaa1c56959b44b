"""The TCP send buffer (``snd_buf``, the program's ``--sndBuf``): a bound on what a flow
keeps in flight and queued in its host, the part Linux's TCP small queues play.

A flow whose send buffer holds ``B`` bytes has at most ``B`` bytes unacknowledged, so it
cannot move more than ``B`` per round trip; without the bound nothing but the network
limits its window.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from alphad_ns3.analysis import load_run
from alphad_ns3.run import default_program, run
from alphad_ns3.scenario import RunSpec, Scenario

SND_BUF = 4096  # bytes: at most 4096 B per base RTT of 80 us, about 410 Mb/s
TINY = Scenario(leaves=2, spines=1, servers=4, link_rate="1Gbps", queues=2, tcp="dctcp",
                load=0.6, ws_classes="0", incast_classes="1", qps=0.0, gen=0.06, drain=0.06, seed=3)
BIG = 100_000  # bytes: flows long enough to reach their steady rate


def _rates(out: Path) -> list[float]:
    """Bits per second of every finished flow of at least BIG bytes."""
    flows = load_run(out).flows
    big = flows[(flows["size"] >= BIG) & (flows["end_ns"] >= 0)]
    return [float(r) for r in big["size"] * 8 / (big["fct_ns"] * 1e-9)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    base = tmp_path_factory.mktemp("sndbuf")
    out = {}
    for name, scen in (("unbounded", TINY), ("bounded", TINY.model_copy(
            update={"snd_buf": SND_BUF}))):
        out[name] = run(RunSpec(scenario=scen, scheme="dt"), base / name).out
    return out


def test_the_bound_caps_each_flow_at_one_buffer_per_round_trip(runs: dict[str, Path]) -> None:
    cap = SND_BUF * 8 / TINY.base_rtt
    unbounded, bounded = _rates(runs["unbounded"]), _rates(runs["bounded"])
    assert unbounded and bounded
    assert max(unbounded) > cap  # the network alone lets big flows run faster
    assert max(bounded) <= cap


def test_the_bound_is_recorded_and_validated(runs: dict[str, Path], tmp_path: Path) -> None:
    params = json.loads((runs["bounded"] / "summary.json").read_text())["params"]
    assert params["snd_buf"] == SND_BUF
    bad = subprocess.run([str(default_program()), "--sndBuf=100", f"--out={tmp_path}"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode != 0 and "sndBuf" in bad.stderr
    with pytest.raises(ValueError, match="snd_buf"):
        Scenario(snd_buf=100)
