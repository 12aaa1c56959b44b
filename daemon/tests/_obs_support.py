"""Shared by the observability tests: configs, free ports, a real alphad process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "configs" / "scenarios" / "default.scn"
TOKEN = "test-token-0123456789abcdef"
OUTPUT = ROOT / "test-output"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(tmp: Path, clock: str = "manual", interval: str = "1ms",
                 api: str | None = None, metrics: str = "enabled: false",
                 name: str = "alphad.yaml", extra: str = "") -> Path:
    """A commented config on the default scenario (comments must survive write-back)."""
    api = api if api is not None else f'listen: "127.0.0.1:{free_port()}", token: {TOKEN}'
    text = f"""\
# alphad test configuration
interval: {interval}   # control interval
scheme: abm            # dt | abm | fb

priorities:
  - name: bulk
    queues: [0, 1, 2, 4, 5, 6, 7]
    alpha: 0.5         # alpha_p of bulk
  - name: query
    queues: [3]
    alpha: 0.5         # alpha_p of query

backend:
  type: vasic
  scenario: {SCENARIO}
  clock: {clock}
  compare_dt: false

metrics: {{{metrics}}}
api: {{{api}}}
{extra}"""
    p = tmp / name
    p.write_text(text)
    return p


def start_alphad(cfg: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "alphad.cli", "run", "-c", str(cfg), "--no-view",
         "--no-summary", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ})


def wait_http(url: str, proc: subprocess.Popen[str], timeout: float = 20.0) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if proc.poll() is not None:
            raise AssertionError(f"alphad exited early: {proc.communicate()}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} did not answer 200 within {timeout} s")


def stop_alphad(proc: subprocess.Popen[str]) -> tuple[str, str]:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()
