"""`alphad run` as a process: API startup errors, SIGHUP reload, PUT against a live loop."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from _obs_support import TOKEN, free_port, start_alphad, stop_alphad, wait_http, write_config

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _run(cfg: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "alphad.cli", "run", "-c", str(cfg),
                           "--no-view", "--no-summary", "--duration", "0.05", *args],
                          capture_output=True, text=True, timeout=60, env={**os.environ})


def test_api_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        cfg = write_config(tmp_path, api=f'listen: "127.0.0.1:{port}"')
        r = _run(cfg)
    assert r.returncode == 1
    assert f"api.listen 127.0.0.1:{port}: Address already in use" in r.stderr
    assert "Traceback" not in r.stderr


def test_token_file_errors_name_the_key(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, api=f'listen: "127.0.0.1:{free_port()}", '
                                     "token_file: secrets/none")
    r = _run(cfg)
    assert r.returncode == 2
    assert "api.token_file: cannot read" in r.stderr and "secrets/none" in r.stderr
    (tmp_path / "short").write_text("abc\n")
    cfg = write_config(tmp_path, api=f'listen: "127.0.0.1:{free_port()}", token_file: short')
    r = _run(cfg)
    assert r.returncode == 2 and "at least 16 characters" in r.stderr
    cfg = write_config(tmp_path, api=f"token: {TOKEN}, token_file: short")
    r = subprocess.run([sys.executable, "-m", "alphad.cli", "check-config", "-c", str(cfg)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "api: set either token or token_file" in r.stderr


def test_no_api_flag_and_token_file(tmp_path: Path) -> None:
    (tmp_path / "token").write_text(TOKEN + "\n")
    port = free_port()
    cfg = write_config(tmp_path, api=f'listen: "127.0.0.1:{port}", token_file: token')
    r = _run(cfg, "--no-api")
    assert r.returncode == 0, r.stderr


def test_sighup_rereads_the_file_and_keeps_running_on_a_bad_one(tmp_path: Path) -> None:
    port = free_port()
    cfg = write_config(tmp_path, clock="realtime", interval="10ms",
                       api=f'listen: "127.0.0.1:{port}", token: {TOKEN}')
    proc = start_alphad(cfg, "--log-level", "info")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/readyz", proc)

        def current() -> dict[str, object]:
            return httpx.get(f"{base}/v1/config", timeout=5).json()["config"]  # type: ignore

        def wait_for(key: str, value: object) -> None:
            t0 = time.monotonic()
            while current()[key] != value:
                assert time.monotonic() - t0 < 10, (key, current())
                time.sleep(0.05)

        cfg.write_text(cfg.read_text().replace("interval: 10ms", "interval: 20ms"))
        proc.send_signal(signal.SIGHUP)
        wait_for("interval", 0.02)
        st = httpx.get(f"{base}/v1/state", timeout=5).json()
        assert st["interval"] == 0.02 and st["stats"]["reconfigs"] == 1
        # A bad file: logged, the running configuration stays, the daemon runs on.
        cfg.write_text(cfg.read_text().replace("interval: 20ms", "interval: 5ms")
                       .replace("alpha: 0.5         # alpha_p of query", "alpha: -1"))
        proc.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert proc.poll() is None
        assert current()["interval"] == 0.02
        # PUT against the live loop: in effect when the call returns.
        r = httpx.put(f"{base}/v1/config", json={"interval": "30ms"}, headers=AUTH, timeout=10)
        assert r.status_code == 200 and r.json()["applied"] is True
        assert httpx.get(f"{base}/v1/state", timeout=5).json()["interval"] == 0.03
        m = httpx.get(f"{base}/metrics", timeout=5).text
        assert 'alphad_config_reloads_total{result="rejected",source="sighup",switch="switch"} ' \
               "1.0" in m
    finally:
        _, err = stop_alphad(proc)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "SIGHUP: invalid configuration" in err and "priorities[1].alpha" in err
    assert "restored=yes" in err


def test_check_config_reads_the_token_file(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, api="token_file: missing-token")
    r = subprocess.run([sys.executable, "-m", "alphad.cli", "check-config", "-c", str(cfg)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "api.token_file: cannot read" in r.stderr
    (tmp_path / "missing-token").write_text(TOKEN + "\n")
    r = subprocess.run([sys.executable, "-m", "alphad.cli", "check-config", "-c", str(cfg)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr
