# ruff: noqa: F811 - fixtures imported from test_sonic_backend are parameters of the tests
"""Faults on a SONiC switch (a real redis-server loaded with the shipped config_db.json,
counters written by the test as syncd's flex counters would): redis-server killed and
restarted mid-run, counter resets, wraps and garbage, a port's counters vanishing,
SIGKILL of the daemon, a second daemon. After every scenario the switch's CONFIG_DB
buffer configuration is byte for byte the original."""

from __future__ import annotations

import logging
import signal
from pathlib import Path

import numpy as np
import pytest
from _fault_support import Watched, alphad, run_alphad, stop, wait_running, wait_until
from test_sonic_backend import Switch, cfg, server, switch  # noqa: F401 - fixtures

from alphad.backends.sonic import SonicBackend
from alphad.config import parse_config
from alphad.loop import Daemon

BASE_K = "3"  # dynamic_th of egress_lossy_profile in the shipped config_db.json


def config_text(server, tmp: Path, interval: str = "20ms", extra: str = "") -> str:  # type: ignore[no-untyped-def]
    return (f"interval: {interval}\nscheme: abm\n"
            "priorities:\n  - {name: bulk, queues: [0, 1, 2, 5, 6], alpha: 0.5, "
            "allow_lower: true}\n"
            "quantize: {kmin: -7, kmax: 3}\n"
            f"backend:\n  type: sonic\n  redis: '{server.address}'\n"
            f"  database_config: {tmp}/absent.json\n  journal: {tmp}/state/journal.json\n"
            "  timeout: 0.3\n"
            f"metrics: {{enabled: false}}\napi: {{enabled: false}}\nlock_dir: {tmp}/locks\n"
            + extra)


def clones(sw: Switch) -> dict[str, str]:
    c = sw.config_db
    return {k: c.hget(k, "dynamic_th") for k in c.scan_iter(match="BUFFER_PROFILE|alphad_*")}


class Counters:
    """Cumulative queue counters written to COUNTERS_DB, one step per interval."""

    def __init__(self, sw: Switch, be: SonicBackend) -> None:
        self.sw = sw
        self.oids = [q.oid for q in be.disc.queues]
        self.tx = np.zeros(len(self.oids), dtype=np.uint64)

    def write(self, step: int = 1_000_000, wm: int = 200_000) -> None:
        self.tx += np.uint64(step)
        pipe = self.sw.counters_db.pipeline(transaction=False)
        for oid, tx in zip(self.oids, self.tx.tolist(), strict=True):
            pipe.hset(f"COUNTERS:{oid}", mapping={
                "SAI_QUEUE_STAT_BYTES": tx, "SAI_QUEUE_STAT_PACKETS": tx // 1500,
                "SAI_QUEUE_STAT_DROPPED_BYTES": 0, "SAI_QUEUE_STAT_DROPPED_PACKETS": 0,
                "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": wm})
        pipe.execute()


@pytest.mark.parametrize("how", ["sigkill", "sigterm"])
def test_redis_killed_and_restarted_mid_run(switch: Switch, server, tmp_path: Path,
                                            how: str) -> None:
    before = switch.dump()
    conf = parse_config(config_text(server, tmp_path), "t", tmp_path)
    be = SonicBackend(conf.backend)
    ev: dict[str, int] = {}

    def check(d: Daemon) -> None:
        i = d.calls  # type: ignore[attr-defined]
        if i == 10:
            assert clones(switch) and set(clones(switch).values()) != {BASE_K}
            if how == "sigkill":
                assert server.proc is not None
                server.proc.kill()  # no RDB saved: CONFIG_DB comes back from config_db.json
                server.proc.wait()
                server.proc = None
            else:
                server.stop()  # saves the RDB: the clones come back with Redis
            ev["down"] = i
        if "down" in ev and d.failsafe and "failsafe" not in ev:
            ev["failsafe"] = i
        if i == ev.get("down", -99) + 10:
            server.start()
            if how == "sigkill":
                switch.load()  # SONiC reloads its configuration into the new CONFIG_DB
            ev["up"] = i
        if "up" in ev and i > ev["up"] and "baseline" not in ev and d.failsafe:
            # back on the switch, still in the fail-safe: every clone is on the original
            ev["baseline"] = int(set(clones(switch).values()) <= {BASE_K})
        if "up" in ev and not d.failsafe and "resumed" not in ev:
            ev["resumed"] = i
        if i == ev.get("up", -99) + 20:
            d.request_stop()

    d = Watched(conf, be)
    d.check = check  # type: ignore[assignment]
    try:
        assert d.run(duration=30) == 0
    finally:
        be.close()
    assert ev["failsafe"] <= ev["down"] + 3  # within error_intervals failed reads
    assert ev["baseline"] == 1
    assert ev["up"] < ev["resumed"] <= ev["up"] + 5
    assert d.stats.read_errors >= 9 and d.stats.restored
    assert set(clones(switch).values()) == set() and switch.dump() == before


def test_counter_resets_wraps_garbage_and_a_vanishing_port(
        switch: Switch, server, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    before = switch.dump()
    conf = parse_config(config_text(server, tmp_path), "t", tmp_path)
    be = SonicBackend(conf.backend)
    ctr = Counters(switch, be)
    ctr.write()
    port0 = [(q.oid, f"{q.port}:{q.queue}") for q in be.disc.queues if q.port == "Ethernet0"]
    saved: dict[str, dict[str, str]] = {}
    ev: dict[str, object] = {}

    def check(d: Daemon) -> None:
        i = d.calls  # type: ignore[attr-defined]
        if i == 20:
            ctr.tx[:] = 1000  # counters cleared (sonic-clear queuecounters, reboot)
        elif i == 30:
            ctr.tx[:] = np.uint64(2**64 - 400_000)  # the next step wraps
        elif i == 40:
            assert not d.failsafe and d.stats.implausible == 0
            ctr.tx[7] += np.uint64(2**60)  # garbage: no switch sends that
        elif i == 60:  # Ethernet0's counters vanish (port removed), then come back
            c = switch.counters_db
            for oid, name in port0:
                saved[name] = {"oid": oid, **c.hgetall(f"COUNTERS:{oid}")}
                c.delete(f"COUNTERS:{oid}")
                c.hdel("COUNTERS_QUEUE_NAME_MAP", name)
        elif i == 70:
            c = switch.counters_db
            for name, h in saved.items():
                c.hset("COUNTERS_QUEUE_NAME_MAP", name, h["oid"])
        if d.failsafe and "failsafe_at" not in ev:
            ev["failsafe_at"] = i
            ev["clones"] = set(clones(switch).values())
        ks = {int(v) for v in clones(switch).values()}
        assert not ks or (min(ks) >= -7 and max(ks) <= 3)  # never outside [kmin, kmax]
        if i == 90:
            d.request_stop()
        elif not (60 <= i < 70):
            ctr.write()
        else:  # the port is gone: its counters are not written
            ctr.write()
            c = switch.counters_db
            for oid, _ in port0:
                c.delete(f"COUNTERS:{oid}")

    d = Watched(conf, be)
    d.check = check  # type: ignore[assignment]
    try:
        with caplog.at_level(logging.WARNING):
            assert d.run(duration=30) == 0
    finally:
        be.close()
    assert ev["failsafe_at"] == 41  # the interval that read the garbage
    assert ev["clones"] == {BASE_K}  # ... wrote the baseline back in that same interval
    assert d.stats.implausible >= 1 and d.stats.failsafe_entries == 1
    assert d.stats.read_errors == 0 and d.stats.intervals == 90
    assert "implausible telemetry: queue" in caplog.text
    assert "queue counter fields missing" in caplog.text  # the vanished port, logged
    assert "Traceback" not in caplog.text
    assert d.stats.restored and switch.dump() == before


def test_sigkill_lock_restore_and_signals_through_the_cli(switch: Switch, server,
                                                          tmp_path: Path) -> None:
    before = switch.dump()
    yml = tmp_path / "alphad.yaml"
    yml.write_text(config_text(server, tmp_path, interval="50ms"))
    args = ("run", "-c", str(yml), "--no-view", "--no-summary")

    p = alphad(*args)
    wait_running(p)
    wait_until(lambda: clones(switch), 10, "clones")
    # a second daemon on the same switch, and a restore under a running daemon: refused
    r = run_alphad(*args)
    assert r.returncode == 1 and "already manages this switch" in r.stderr, r.stderr
    assert f"pid {p.pid}" in r.stderr and "Traceback" not in r.stderr
    r = run_alphad("restore", "-c", str(yml))
    assert r.returncode == 1 and "refusing to restore" in r.stderr
    assert clones(switch)  # nothing was touched by either
    # SIGKILL: the switch keeps alphad's profiles; `alphad restore` reconciles the journal
    p.kill()
    p.communicate()
    assert switch.dump() != before
    r = run_alphad("restore", "-c", str(yml))
    assert r.returncode == 0, r.stderr
    assert switch.dump() == before
    # SIGKILL, then a restarted daemon reconciles at start
    p = alphad(*args)
    wait_running(p)
    wait_until(lambda: clones(switch), 10, "clones")
    p.kill()
    p.communicate()
    p = alphad(*args)
    lines = wait_running(p)
    assert any("left by a previous run" in ln for ln in lines), lines
    wait_until(lambda: clones(switch), 10, "clones")
    # SIGINT (and SIGTERM): restored within a second, exit 128 + signal
    rc, err, took = stop(p, signal.SIGINT)
    assert rc == 128 + signal.SIGINT and "restored=yes" in err, err
    assert took < 1.0, took
    assert switch.dump() == before


def test_flex_counters_follow_the_interval(switch: Switch, server, tmp_path: Path) -> None:
    """The loop tells the backend its interval: the flex counters poll at it (SONiC's
    minimum 100 ms), also after a reconfiguration; an explicit poll_interval wins."""
    before = switch.dump()
    c = switch.config_db
    conf = parse_config(config_text(server, tmp_path, interval="250ms"), "t", tmp_path)
    be = SonicBackend(conf.backend)
    d = Daemon(conf, be)
    d.cycle()
    assert c.hget("FLEX_COUNTER_TABLE|QUEUE_WATERMARK", "POLL_INTERVAL") == "250"
    assert d.fs.stale_after == pytest.approx(5 * 0.25)
    d.request_config(conf.model_copy(update={"interval": 0.02}))
    d.cycle()
    assert c.hget("FLEX_COUNTER_TABLE|QUEUE", "POLL_INTERVAL") == "100"
    assert be.telemetry_period == 0.1 and d.fs.stale_after == pytest.approx(0.5)
    be.restore()
    be.close()
    assert switch.dump() == before
    pinned = config_text(server, tmp_path, interval="250ms").replace(
        "  timeout: 0.3\n", "  timeout: 0.3\n  poll_interval: 1s\n")
    conf = parse_config(pinned, "t", tmp_path)
    be = SonicBackend(conf.backend)
    d = Daemon(conf, be)
    d.cycle()
    assert c.hget("FLEX_COUNTER_TABLE|QUEUE_WATERMARK", "POLL_INTERVAL") == "1000"
    be.restore()
    be.close()
    assert switch.dump() == before
