"""CI scenario: milliseconds of the ABM §4.4 setting (40% web-search, incast of 75% of
the buffer, flows spread over the 8 queues), every run with the same seed.

What must hold:
- exact ABM drops fewer incast bytes than DT;
- alphad co-simulated (scheme abm, continuous alpha) at an interval of one RTT reproduces
  the per-queue part of ABM (`abm-core`: n_p and gamma refreshed every RTT), the only part
  a per-queue alpha on DT hardware can express — and so does NOT land between DT and
  exact ABM here: the per-queue factors shrink the bursting queue's threshold, and ABM's
  advantage comes from the per-packet first-RTT term (see doc/harness.md);
- the DT steady state alpha B / (1 + k alpha) is checked by the ns-3 TestSuites (ctest).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from alphad_ns3.analysis import load_run, metrics
from alphad_ns3.run import RunResult, default_program, run
from alphad_ns3.scenario import RunSpec, Scenario

SCENARIO = Scenario(gen=0.01, drain=0.02, qps=150.0, seed=1)
ALPHAD = {
    "interval": "80us",  # one base RTT
    "scheme": "abm",
    "priorities": [{"name": f"q{i}", "queues": [i], "alpha": 0.5} for i in range(8)],
    "quantize": {"mode": "continuous", "hysteresis": 0.0},
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    base = tmp_path_factory.mktemp("ci")
    specs = {
        "dt": RunSpec(scenario=SCENARIO, scheme="dt"),
        "abm": RunSpec(scenario=SCENARIO, scheme="abm"),
        "abm-core": RunSpec(scenario=SCENARIO, scheme="abm-core"),
        "alphad": RunSpec(scenario=SCENARIO, scheme="alphad", alphad=ALPHAD),
    }

    def go(item: tuple[str, RunSpec]) -> tuple[str, RunResult]:
        name, spec = item
        return name, run(spec, base / name, timeout=600)

    with ThreadPoolExecutor(2) as ex:
        done = dict(ex.map(go, specs.items()))
    return {name: {"m": metrics(load_run(r.out)), "summary": r.summary, "out": r.out}
            for name, r in done.items()}


def test_same_workload_in_every_run(results: dict[str, dict]) -> None:
    flows = {n: r["m"]["flows"] for n, r in results.items()}
    queries = {n: r["m"]["queries"] for n, r in results.items()}
    assert len(set(flows.values())) == 1, flows
    assert len(set(queries.values())) == 1 and queries["dt"] >= 5, queries


def test_exact_abm_drops_fewer_incast_bytes_than_dt(results: dict[str, dict]) -> None:
    dt = results["dt"]["m"]["incast_drop_bytes"]
    abm = results["abm"]["m"]["incast_drop_bytes"]
    assert dt > 0
    assert abm < dt, (abm, dt)


def test_alphad_at_one_rtt_reproduces_the_per_queue_scheme(results: dict[str, dict]) -> None:
    core = results["abm-core"]["m"]["incast_drop_bytes"]
    alphad = results["alphad"]["m"]["incast_drop_bytes"]
    assert alphad == pytest.approx(core, rel=0.15)
    cosim = results["alphad"]["summary"]["cosim"]
    assert cosim["intervals"] >= int(0.03 / 80e-6) - 1  # one exchange per RTT
    assert cosim["writes"] > 0


def test_cosimulation_logs_every_alpha_it_writes(results: dict[str, dict]) -> None:
    """alphas.csv holds one row per alpha the co-simulated daemon wrote, in time order, on
    the simulated switches' queues; exact runs have none."""
    rows = [line.split(",") for line in
            (results["alphad"]["out"] / "alphas.csv").read_text().splitlines()]
    assert rows[0] == ["t_s", "switch", "port", "queue", "alpha"]
    body = rows[1:]
    assert len(body) == results["alphad"]["summary"]["cosim"]["writes"] > 0
    t = [float(r[0]) for r in body]
    assert t == sorted(t) and 0 < t[0] and t[-1] <= SCENARIO.gen + SCENARIO.drain
    switches = {sw["name"]: sw["ports"] for sw in results["alphad"]["summary"]["switches"]}
    for _, sw, port, queue, alpha in body:
        assert sw in switches and 0 <= int(port) < switches[sw] and 0 <= int(queue) < 8
        assert float(alpha) > 0
    assert len({(r[1], r[2], r[3]) for r in body}) > 1
    assert not (results["abm"]["out"] / "alphas.csv").exists()


def test_per_queue_alpha_cannot_reach_exact_abm(results: dict[str, dict]) -> None:
    """Where the co-simulated daemon lands relative to DT and exact ABM (the issue's
    'between DT and exact ABM' does not hold for a per-queue alpha in this setting)."""
    m = {n: r["m"]["incast_drop_bytes"] for n, r in results.items()}
    assert m["alphad"] > m["abm"]
    assert m["abm-core"] > m["abm"]


def test_outputs_are_consistent(results: dict[str, dict]) -> None:
    for name, r in results.items():
        m = r["m"]
        assert m["short_n"] > 0, name
        assert m["short_slowdown_p50"] >= 0.9, name  # no flow beats its ideal FCT
        assert 0 <= m["burst_absorption"] <= 1, name
        assert 0 < m["buffer_occupancy_mean"] < 1, name
        assert r["summary"]["events"] > 0 and r["summary"]["run_wall_seconds"] > 0


def test_bad_scenarios_name_the_field(tmp_path: Path) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="load"):
        Scenario(load=1.5)
    with pytest.raises(ValidationError, match="fanin"):
        Scenario(fanin=20)
    with pytest.raises(ValidationError, match="ws_classes"):
        Scenario(ws_classes="0-9")
    with pytest.raises(ValidationError, match="alphas: 3 values for 8 classes"):
        RunSpec(alphas=(0.5, 1.0, 2.0))
    with pytest.raises(Exception, match="priorities"):
        RunSpec(scheme="alphad", alphad={"interval": "1ms", "priorities": []})
