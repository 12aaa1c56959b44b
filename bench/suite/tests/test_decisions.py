"""``decisions``: an auto-family config's run again, with its state after each decision."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from alphad import schemes
from alphad.controller import build_classes
from alphad.estimate import Estimator
from alphad.model import Sample, Topology
from alphad.quantize import Quantizer
from alphad.schemes.auto18 import Auto18
from alphad.schemes.auto22 import Auto22
from alphad_ns3.run import default_program

from bench.suite.__main__ import main
from bench.suite.decisions import Decision, decisions, logged, summary
from bench.suite.scenarios import suite


def test_the_summary_counts_firings_zero_references_own_bursts_and_steps_below_a_floor(
        ) -> None:
    log = [Decision(0, 1.0, (0, 0), (0, 5), None, False, (), False),
           Decision(0, 2.0, (0, 5), (0, 4), (0, 1), True, (0,), True, (0,)),  # above its floor
           Decision(0, 3.0, (0, 1), (0, 0), (0, 1), True, (0,), False),  # below it
           Decision(1, 3.0, (0, 2, 0), (0, 1, 0), None, True, (0, 2), True, (2,), True)]
    assert summary(log) == ("4 decisions with a class raised, the safety rule fired in 3, "
                            "2 of them on zero references only, 1 with a busy queue's loss "
                            "among the trips, 1 on tripped classes that "
                            "each had a burst of their own, 1 steps below a floor on "
                            "its firings")


def test_a_real_run_is_logged_and_the_scheme_restored(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    call, backs_off = Auto22.__call__, Auto22._backs_off
    short = min(suite(), key=lambda s: s.cost)  # the cheapest scenario bursts early
    log = decisions(short.name, "auto22@100ms", 1, gen=0.5)
    assert Auto22.__call__ is call and Auto22._backs_off is backs_off
    assert log and all(any(d.before) or any(d.after) for d in log)
    assert all(d.floor_before is not None and len(d.before) == short.classes for d in log)
    first = log[0]
    assert not any(first.before) and any(first.after)  # the first raise
    with logged("auto22") as again:
        pass
    assert again == [] and Auto22.__call__ is call
    with logged("auto18"):  # a scheme that inherits both: nothing is left on its class
        pass
    assert "_backs_off" not in Auto18.__dict__ and "__call__" not in Auto18.__dict__
    assert main(["decisions", short.name, "dt"]) == 2
    assert "only co-simulated configs decide" in capsys.readouterr().err
    assert main(["decisions", "nope", "auto22@1s"]) == 2


def test_a_missing_ns3_program_is_a_named_error(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ALPHAD_NS3_BIN", "/nonexistent/alphad-ns3-sim")
    assert main(["decisions", "s21", "auto22@1s", "--gen", "12"]) == 2
    assert "the ns-3 program is not built (run `make ns3`)" in capsys.readouterr().err


def test_runs_the_snapshot_of_the_program_with_its_own_library(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prog = default_program()
    if not prog.is_file():
        pytest.fail(f"{prog} is missing: build it with `make ns3`")
    copy = tmp_path / "old"  # a program kept out of its build tree, as for an older harness
    copy.mkdir()
    for f in (prog, prog.parent / "libalphad-ns3.so"):
        shutil.copy2(f, copy / f.name)
    monkeypatch.setenv("ALPHAD_NS3_BIN", str(copy / prog.name))
    monkeypatch.setenv("ALPHAD_SUITE_CACHE", str(tmp_path / "cache"))
    short = min(suite(), key=lambda s: s.cost)
    assert decisions(short.name, "auto22@100ms", 1, gen=0.5)
    launchers = list((tmp_path / "cache" / "bin").glob("*/alphad-ns3-sim"))
    assert len(launchers) == 1 and (launchers[0].parent / "libalphad-ns3.so").is_file()


@pytest.mark.parametrize(("scheme", "params", "hook"), [
    ("oracle18-memo", {"classes": 2, "used": 0}, "_since_backs_off"),
    ("auto36", {}, "_harmed_since")])
def test_a_firing_on_the_loss_since_the_raise_is_logged_and_the_hook_removed(
        scheme: str, params: dict[str, float], hook: str) -> None:
    topo = Topology(ports=("Ethernet0",), port_speed_bps=np.array([10e9]),
                    queue_port=np.zeros(2, dtype=np.int32),
                    queue_index=np.arange(2, dtype=np.int32), buffer_bytes=1e6)
    cl = build_classes(topo, [("web", [0], 0.5, None), ("query", [1], 0.5, None)])
    est = Estimator(topo, cl)
    tx, dr = np.zeros(2, dtype=np.uint64), np.zeros(2, dtype=np.uint64)
    sent = 0.5 * 10e9 / 8 * 0.1  # web, busy at half of line rate, in one interval

    def sample(t: float, web_loss: float, query: tuple[float, float] = (0.0, 0.0),
               query_peak: float = 1.0) -> Sample:
        tx[0] += np.uint64(sent)
        tx[1] += np.uint64(query[0])
        dr[0] += np.uint64(web_loss * sent)
        dr[1] += np.uint64(query[1])
        wm = np.array([100_000.0, max(query[1], query_peak)])
        return Sample(t=t, watermark=wm, tx_bytes=tx.copy(), tx_packets=tx.copy(),
                      drop_bytes=dr.copy(), drop_packets=dr.copy(), alpha=np.full(2, 0.5),
                      pool_watermark=float(wm.sum()))

    cls = type(schemes.get(scheme)(schemes.SchemeContext(topo, cl, Quantizer(), 0.1), params))
    own = cls.__dict__.get(hook)  # the scheme's own test, or none where it inherits it
    with logged(scheme) as log:
        sch = schemes.get(scheme)(schemes.SchemeContext(topo, cl, Quantizer(), 0.1), params)
        est.update(sample(0.0, 0.0))
        for k in range(1, 31):  # three seconds of DT, web losing 0.5%
            sch(est.update(sample(k / 10, 0.005)))
        assert sch(est.update(sample(3.1, 0.005, (600_000, 20_000))))[1] > 0.5  # a burst
        # web loses six times its reference while the query queue holds more than DT admits
        assert sch(est.update(sample(3.2, 0.03, query_peak=400_000)))[1] == 0.5
    assert cls.__dict__.get(hook) is own  # restored, or removed
    fired = [d for d in log if d.fired]
    assert len(fired) == 1 and fired[0].tripped == (0,) and fired[0].busy
    assert fired[0].before[0] == 0 and fired[0].before[1] > 0 and fired[0].after == (0, 0)
