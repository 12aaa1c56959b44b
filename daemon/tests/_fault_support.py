"""Shared by the fault-injection tests: a daemon that runs a check after every cycle
(a failed read included), and alphad as a process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from alphad.loop import Daemon

ROOT = Path(__file__).resolve().parents[2]


class Watched(Daemon):
    """The daemon with ``check(self)`` after every cycle; ``calls`` counts cycles."""

    check: Callable[[Daemon], None] | None = None
    calls = 0

    def cycle(self) -> None:
        try:
            super().cycle()
        finally:
            self.calls += 1
            if self.check is not None:
                self.check(self)


def alphad(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "alphad.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def run_alphad(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "alphad.cli", *args], capture_output=True,
                          text=True, timeout=timeout)


def wait_running(p: subprocess.Popen[str], timeout: float = 30) -> list[str]:
    """Read stderr until the loop runs (signal handlers installed); the lines read."""
    assert p.stderr is not None
    lines = []
    deadline = time.monotonic() + timeout
    for line in p.stderr:
        lines.append(line)
        if "running: backend" in line:
            return lines
        if time.monotonic() > deadline:
            break
    p.kill()
    raise AssertionError("alphad did not start:\n" + "".join(lines))


def wait_until(cond: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if cond():
                return
        except Exception:
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def stop(p: subprocess.Popen[str], sig: int = signal.SIGTERM, timeout: float = 15
         ) -> tuple[int, str, float]:
    """Signal, wait; (exit code, remaining stderr, seconds from signal to exit)."""
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    return int(p.returncode), err, time.monotonic() - t0
