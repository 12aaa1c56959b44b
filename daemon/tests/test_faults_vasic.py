"""Faults on the virtual ASIC through the SAI shim: every injectable SAI failure in
mid-run and at restore, wall-clock jumps, SIGINT/SIGTERM, and one daemon per libsai.
After each run every queue is back on its original profile and no clone is left."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from _fault_support import Watched, alphad, run_alphad, stop, wait_running
from test_failsafe import DEFAULT_SCN, alphas, vasic_config

from alphad.backends.sai import VasicBackend
from alphad.loop import Daemon
from alphad.sai.shim import find_library
from alphad.sai.vasic import inject_fault, profile_count

FAULTS = ["get_stats", "set_profile", "create_profile", "remove_profile", "set_queue",
          "get_attr"]


@pytest.mark.parametrize("kind", FAULTS)
def test_sai_failures_mid_run_and_at_restore(tmp_path: Path, kind: str) -> None:
    cfg = vasic_config(tmp_path)
    be = VasicBackend(cfg.backend.scenario, clock="manual")

    def check(d: Daemon) -> None:
        if d.calls in (30, 120):  # type: ignore[attr-defined]
            inject_fault(be._vasic, kind, 5)
        if d.calls == 199:  # type: ignore[attr-defined]
            inject_fault(be._vasic, kind, 2)  # still failing when the run ends: restore
        ks = np.array(alphas(be))
        assert ks.min() >= -8 and ks.max() <= 7

    d = Watched(cfg, be)
    d.check = check  # type: ignore[assignment]
    try:
        assert d.run(duration=0.2) == 0, kind
        assert d.stats.restored
        assert alphas(be) == [-1] * 128 and profile_count(be._vasic) == 1
    finally:
        inject_fault(be._vasic, kind, 0)
        be.close()


def test_wall_clock_jumps_do_not_disturb_the_loop(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop keeps time with the monotonic clock only: a wall clock stepping an hour
    back and forth (NTP, an operator) changes nothing."""
    cfg = vasic_config(tmp_path, interval="10ms").model_copy(
        update={"backend": vasic_config(tmp_path).backend.model_copy(
            update={"clock": "realtime"})})
    be = VasicBackend(cfg.backend.scenario, clock="realtime")
    real = time.time
    offset = [0.0]
    monkeypatch.setattr(time, "time", lambda: real() + offset[0])

    def check(d: Daemon) -> None:
        offset[0] = 3600.0 if d.calls % 2 else -3600.0  # type: ignore[attr-defined]

    d = Watched(cfg, be)
    d.check = check  # type: ignore[assignment]
    try:
        t0 = time.monotonic()
        assert d.run(duration=1.0) == 0
        took = time.monotonic() - t0
        assert 0.9 < took < 3.0
        assert 60 <= d.stats.intervals <= 101 and d.stats.failsafe_entries == 0
        assert alphas(be) == [-1] * 128 and profile_count(be._vasic) == 1
    finally:
        be.close()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signals_restore_within_a_second(tmp_path: Path, sig: int) -> None:
    p = tmp_path / "alphad.yaml"
    p.write_text(f"interval: 5ms\nscheme: abm\n"
                 "priorities: [{name: bulk, queues: [0, 1, 2, 4, 5, 6, 7], alpha: 0.5},"
                 " {name: query, queues: [3], alpha: 0.5}]\n"
                 f"backend: {{type: vasic, scenario: {DEFAULT_SCN}, clock: realtime}}\n"
                 "metrics: {enabled: false}\napi: {enabled: false}\n")
    proc = alphad("run", "-c", str(p), "--no-view", "--no-summary")
    wait_running(proc)
    time.sleep(0.5)
    rc, err, took = stop(proc, sig)
    assert rc == 128 + sig, err
    assert "restored=yes" in err and took < 1.0, (took, err)


def test_stop_signal_while_the_loop_holds_its_sleep_lock(tmp_path: Path) -> None:
    """A signal can arrive while the main thread is inside ``Event.wait`` holding the
    event's lock; the handler then runs on that thread. It must take no lock (an
    ``Event.set`` there deadlocked a daemon that then had to be killed), and it must
    still wake the loop's sleep at once."""
    cfg = vasic_config(tmp_path, interval="10ms")
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    d = Daemon(cfg, be)
    try:
        done = threading.Event()

        def handler_inside_the_lock() -> None:
            with d._stop._cond:  # type: ignore[attr-defined]  # as inside Event.wait
                d._on_signal(signal.SIGTERM, None)
            done.set()

        d._wake = os.pipe()
        t = threading.Thread(target=handler_inside_the_lock, daemon=True)
        t.start()
        assert done.wait(5), "the SIGTERM handler blocked on the loop's lock"
        assert d.stopping and d.signum == signal.SIGTERM
        t0 = time.monotonic()
        assert d._sleep(30.0) and time.monotonic() - t0 < 1.0
        # a stop from another thread (the HTTP API) wakes the same sleep
        d2 = Daemon(cfg, be)
        d2._wake = os.pipe()
        threading.Timer(0.1, d2.request_stop).start()
        t0 = time.monotonic()
        assert d2._sleep(30.0) and time.monotonic() - t0 < 5.0
        for fd in (*d._wake, *d2._wake):
            os.close(fd)
    finally:
        be.close()


def test_repeated_sigterm_at_random_moments_always_restores(tmp_path: Path) -> None:
    """SIGTERM at random points of a 1 ms loop (inside the sleep, a cycle, a write):
    every run exits 128+15 with the switch restored, none hangs."""
    p = tmp_path / "alphad.yaml"
    p.write_text("interval: 1ms\nscheme: abm\n"
                 "priorities: [{name: bulk, queues: [0, 1, 2, 4, 5, 6, 7], alpha: 0.5},"
                 " {name: query, queues: [3], alpha: 0.5}]\n"
                 f"backend: {{type: vasic, scenario: {DEFAULT_SCN}, clock: realtime}}\n"
                 "metrics: {enabled: false}\napi: {enabled: false}\n")
    rng = np.random.default_rng(7)
    for _ in range(6):
        proc = alphad("run", "-c", str(p), "--no-view", "--no-summary")
        wait_running(proc)
        time.sleep(float(rng.uniform(0.0, 0.3)))
        rc, err, took = stop(proc)
        assert rc == 128 + signal.SIGTERM and "restored=yes" in err, err
        assert took < 5.0, (took, err)


def test_one_daemon_per_libsai(tmp_path: Path) -> None:
    """Two processes loading the same vendor libsai would drive one ASIC: refused."""
    lib = find_library("sai-vasic")
    p = tmp_path / "alphad.yaml"
    p.write_text("interval: 10ms\nscheme: dt\n"
                 "priorities: [{name: all, queues: [0, 1, 2, 3, 4, 5, 6, 7], alpha: 0.5}]\n"
                 f"backend: {{type: sai, libsai: {lib}, profile: {{VASIC_SCENARIO: "
                 f"{DEFAULT_SCN}}}}}\n"
                 f"metrics: {{enabled: false}}\napi: {{enabled: false}}\n"
                 f"lock_dir: {tmp_path}/locks\n")
    first = alphad("run", "-c", str(p), "--no-view", "--no-summary")
    wait_running(first)
    try:
        second = run_alphad("run", "-c", str(p), "--no-view", "--no-summary", "--duration", "1")
        assert second.returncode == 1, second.stderr
        assert "refusing to start" in second.stderr and f"pid {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        rc, err, _ = stop(first)
    assert rc == 128 + signal.SIGTERM and "restored=yes" in err
    # the lock went with the process: a new daemon starts
    again = run_alphad("run", "-c", str(p), "--no-view", "--no-summary", "--duration", "0.2")
    assert again.returncode == 0, again.stderr
