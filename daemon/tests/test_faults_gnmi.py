
"""Faults on a switch reached through gNMI (the virtual switch and its gNMI server):
the server stalled (SIGSTOP) and restarted under a running daemon, and the switch's
clock stepping backwards and forwards. The daemon survives, holds the baseline while
it cannot see, resumes, and at the end CONFIG_DB and APPL_DB are byte-identical."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _fault_support import Watched
from test_gnmi import Pki, ServerFactory, Switch, gnmi_server, pki, stop_proc, switch, wait_for
from test_gnmi import write_users as users_file
from test_gnmi_e2e import backend_yaml, clones

from alphad.backends import open_backend
from alphad.config import parse_config
from alphad.loop import Daemon

_ = (gnmi_server, pki, switch)
BASE_K = "3"


def _server(switch: Switch, tmp: Path, port: int) -> subprocess.Popen[bytes]:
    log = open(tmp / f"gnmi-{time.monotonic_ns()}.log", "wb")
    p = subprocess.Popen([sys.executable, "-m", "alphad_vswitch_gnmi.cli", "--insecure",
                          "--redis", switch.redis.address, "--listen", f"127.0.0.1:{port}",
                          "--min-sample-interval", "100ms", "--credentials",
                          str(users_file(tmp / "users.json")), "--state-dir", str(tmp)],
                         stdout=log, stderr=subprocess.STDOUT)
    log.close()
    return p


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_server_stalled_then_restarted_under_the_daemon(switch: Switch, tmp_path: Path) -> None:
    before = switch.dump()
    port = _free_port()
    srv = [_server(switch, tmp_path, port)]
    cfg = parse_config(backend_yaml(port, None, tmp_path, stall_intervals=3))
    wait_for(lambda: _connects(port), 15, "the gNMI server")
    be = open_backend(cfg.backend)
    seen: dict[str, Any] = {"baseline": False}

    def check(d: Daemon) -> None:
        if d.failsafe:
            if "cont" in seen and set(clones(switch).values()) == {BASE_K}:
                seen["baseline"] = True  # the server answers again: baseline written
        elif "cont" in seen and "failsafe_at" in seen:
            seen.setdefault("resumed_at", time.monotonic())

    def faults(d: Daemon) -> None:
        try:
            wait_for(lambda: clones(switch) and set(clones(switch).values()) != {BASE_K}, 20,
                     "alphad to change alphas")
            srv[0].send_signal(signal.SIGSTOP)  # connection up, nothing arrives
            seen["stop"] = time.monotonic()
            wait_for(lambda: "failsafe_at" in seen, 10, "the fail-safe")
            srv[0].send_signal(signal.SIGCONT)
            seen["cont"] = time.monotonic()
            wait_for(lambda: "resumed_at" in seen, 20, "the scheme to resume")
            stop_proc(srv[0])  # restart the server under the running daemon
            srv[0] = _server(switch, tmp_path, port)
            seen["restarted"] = time.monotonic()
            wait_for(lambda: d.stats.intervals > seen.setdefault("n", d.stats.intervals) + 10,
                     20, "cycles after the restart")
        finally:
            d.request_stop()

    d = Watched(cfg, be)
    d.check = check  # type: ignore[assignment]
    set_failsafe = d.set_failsafe

    def on_failsafe(active: bool, reason: str = "") -> None:
        if active:
            seen.setdefault("failsafe_at", time.monotonic())
        set_failsafe(active, reason)

    d.set_failsafe = on_failsafe  # type: ignore[method-assign]
    th = threading.Thread(target=faults, args=(d,), daemon=True)
    th.start()
    try:
        assert d.run(duration=60) == 0
    finally:
        th.join(10)
        be.close()
        for p in srv:
            p.send_signal(signal.SIGCONT)
    try:
        # stall detection (0.3 s) + 3 failed reads, after a Set in flight at the SIGSTOP
        # has timed out (set_timeout 3 s)
        assert seen["failsafe_at"] - seen["stop"] < 3.0 + 2.0
        assert seen["baseline"], "the baseline was not written once the server answered"
        assert "restarted" in seen and d.stats.restored
        assert not d.failsafe  # 10 good intervals after the restart: managing again
        assert switch.dump()[0] == before[0]
        wait_for(lambda: switch.dump() == before, 5, "APPL_DB back too")
    finally:
        stop_proc(srv[0])


def _connects(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class _SteppedClock:
    """The server module's ``time`` with a wall clock that can be stepped (an NTP step
    on the switch); monotonic time is untouched."""

    def __init__(self) -> None:
        self.offset_ns = 0

    def time_ns(self) -> int:
        return time.time_ns() + self.offset_ns

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def test_switch_clock_steps_back_and_forward(switch: Switch, gnmi_server: ServerFactory,
                                             pki: Pki, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import alphad_vswitch_gnmi.server as server_mod

    clock = _SteppedClock()
    monkeypatch.setattr(server_mod, "time", clock)
    s = gnmi_server()
    before = switch.dump()
    cfg = parse_config(backend_yaml(s.port, pki, tmp_path))
    be = open_backend(cfg.backend)
    ev: dict[str, int] = {}

    def check(d: Daemon) -> None:
        i = d.calls  # type: ignore[attr-defined]
        if i == 10:
            clock.offset_ns = -3600 * 10**9  # one hour back: no rate across it, no fail-safe
            ev["back"] = d.stats.failsafe_entries
        if i == 20:
            ev["after_back"] = d.stats.failsafe_entries
            clock.offset_ns = 0  # and one hour forward: a jump, the telemetry is distrusted
        if d.failsafe:
            ev.setdefault("forward_failsafe_at", i)
        if i == 40:
            ev["resumed"] = int(not d.failsafe)
            d.request_stop()
        for k in clones(switch).values():
            assert -7 <= int(k) <= 3

    d = Watched(cfg, be)
    d.check = check  # type: ignore[assignment]
    try:
        assert d.run(duration=30) == 0
    finally:
        be.close()
    assert ev["back"] == ev["after_back"] == 0
    assert 20 < ev["forward_failsafe_at"] <= 25
    assert ev["resumed"] == 1 and d.stats.failsafe_entries == 1
    assert switch.dump()[0] == before[0]
    wait_for(lambda: switch.dump() == before, 5, "APPL_DB back too")
