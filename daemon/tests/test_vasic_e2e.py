"""End to end on the virtual ASIC through libalphad-sai (real C libraries)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from alphad.backends import FatalBackendError
from alphad.backends.sai import VasicBackend
from alphad.config import parse_config
from alphad.loop import Daemon
from alphad.metrics import Metrics
from alphad.sai.vasic import profile_count
from alphad.summary import replay_static

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SCN = ROOT / "configs" / "scenarios" / "default.scn"


def config(tmp: Path, scheme: str = "abm", clock: str = "manual", interval: str = "1ms",
           scenario: Path = DEFAULT_SCN, extra: str = ""):  # type: ignore[no-untyped-def]
    text = textwrap.dedent(f"""
        interval: {interval}
        scheme: {scheme}
        priorities:
          - {{name: bulk, queues: [0, 1, 2, 4, 5, 6, 7], alpha: 0.5}}
          - {{name: query, queues: [3], alpha: 0.5}}
        backend: {{type: vasic, scenario: {scenario}, clock: {clock}}}
        metrics: {{enabled: false}}
        """) + extra
    p = tmp / "alphad.yaml"
    p.write_text(text)
    return p, parse_config(text, str(p), tmp)


def test_topology_of_default_scenario() -> None:
    be = VasicBackend(DEFAULT_SCN, clock="manual")
    try:
        t = be.topology()
        assert t.n == 128 and t.n_ports == 16
        assert t.buffer_bytes == pytest.approx(9.6 * 1024 * 16 * 10, rel=1e-3)
        assert np.all(t.port_speed_bps == 10e9)
        assert be.original_k.tolist() == [-1] * 128
        be.advance(0.01)
        s = be.sample()
        assert s.t == pytest.approx(0.01)
        assert s.watermark[0] > 0 and s.tx_bytes[0] > 0  # greedy queue 0 of port 0
    finally:
        be.close()


def test_abm_cuts_incast_drops_against_static_dt(tmp_path: Path) -> None:
    """The issue's 'done when': alphad cuts the virtual switch's incast drops."""
    _, cfg = config(tmp_path, "abm", interval="1ms")
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    try:
        d = Daemon(cfg, be, Metrics())
        assert d.run(duration=1.0) == 0
        live = be.totals()
        assert d.stats.writes > 0 and d.stats.restored
        # Restored exactly: every queue on its original alpha, no leftover profile.
        assert [be._s.get_log2_alpha(i) for i in range(be.topology().n)] == [-1] * 128
        assert profile_count(be._vasic) == 1
    finally:
        be.close()
    base = replay_static(cfg.backend, live["model_ns"])
    assert live["incast_offered_bytes"] == base.incast_offered > 0  # same traffic
    assert live["incast_dropped_bytes"] < 0.5 * base.incast_dropped
    # Long flows keep their throughput (open-loop sources: within 2%).
    assert live["greedy_delivered_bytes"] == pytest.approx(base.greedy_delivered, rel=0.02)


def test_dt_scheme_writes_nothing_when_switch_already_matches(tmp_path: Path) -> None:
    _, cfg = config(tmp_path, "dt")
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    try:
        d = Daemon(cfg, be)
        d.run(duration=0.05)
        assert d.stats.intervals == 50 and d.stats.writes == 0
    finally:
        be.close()


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "alphad.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ})


def test_cli_run_manual_prints_summary(tmp_path: Path) -> None:
    p, _ = config(tmp_path)
    r = _cli("run", "-c", str(p), "--duration", "0.2", "--no-view")
    assert r.returncode == 0, r.stderr
    assert "incast bytes dropped" in r.stdout and "static DT" in r.stdout
    assert "restored=yes" in r.stderr


def test_cli_bad_libsai_path(tmp_path: Path) -> None:
    p, _ = config(tmp_path)
    text = p.read_text().replace("clock: manual}", f"clock: manual, libsai: {tmp_path}/x.so}}")
    p.write_text(text)
    r = _cli("run", "-c", str(p), "--duration", "0.1")
    assert r.returncode == 1
    assert "cannot open backend vasic" in r.stderr and "x.so" in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_malformed_scenario(tmp_path: Path) -> None:
    scn = tmp_path / "bad.scn"
    scn.write_text("switch ports=4 queues=8\ngreedy port=9 queue=0 rate_gbps=10\n")
    p, _ = config(tmp_path, scenario=scn)
    r = _cli("run", "-c", str(p), "--duration", "0.1")
    assert r.returncode == 1
    assert "bad.scn:2" in r.stderr and "Traceback" not in r.stderr


def test_open_failure_is_fatal_backend_error(tmp_path: Path) -> None:
    scn = tmp_path / "bad.scn"
    scn.write_text("swtich ports=4\n")
    with pytest.raises(FatalBackendError) as ei:
        VasicBackend(scn, clock="manual")
    assert "bad.scn:1" in str(ei.value)


def test_sigterm_restores_within_a_second(tmp_path: Path) -> None:
    p, _ = config(tmp_path, clock="realtime", interval="5ms")
    proc = subprocess.Popen([sys.executable, "-m", "alphad.cli", "run", "-c", str(p),
                             "--no-view", "--no-summary", "--log-level", "info"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    for line in proc.stderr:  # wait until the loop runs (signal handlers installed)
        if "running: backend vasic" in line or time.monotonic() > deadline:
            break
    time.sleep(0.5)
    assert proc.poll() is None, proc.communicate()
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "restored=yes" in err
    assert elapsed < 1.0, elapsed
