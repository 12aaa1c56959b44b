# ruff: noqa: F811 - fixtures imported from test_sonic_backend are parameters of the tests
"""CONFIG_DB that disappears or is reloaded under alphad, on a real redis-server:
``config reload`` (FLUSHDB, then the saved configuration seconds later), a Redis
restart without its data, a reload into a different configuration, a crash followed
by a reload. alphad never writes into a CONFIG_DB that does not hold the buffer
configuration it discovered and journaled; the end state is the reloaded
configuration plus nothing."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from test_sonic_backend import Switch, cfg, changes, coverage, server, switch  # noqa: F401

from alphad.backends.base import FatalBackendError, TransientBackendError
from alphad.backends.sonic import SonicBackend, SonicConfig
from alphad.config import parse_config
from alphad.loop import Daemon
from alphad.sonic.reconcile import classify


def eager(cfg: SonicConfig) -> SonicConfig:
    """Check CONFIG_DB at every sample (the default: once a second)."""
    return cfg.model_copy(update={"check_interval": 0.0})


def clones(sw: Switch) -> list[str]:
    return sorted(sw.config_db.scan_iter(match="BUFFER_PROFILE|alphad_*"))


def restore_cli(cfg: SonicConfig, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    yml = tmp_path / "alphad.yaml"
    yml.write_text("interval: 100ms\nscheme: dt\npriorities:\n  - {name: bulk, queues: [0]}\n"
                   f"backend:\n  type: sonic\n  redis: {cfg.redis}\n"
                   f"  database_config: {cfg.database_config}\n  journal: {cfg.journal}\n"
                   "metrics: {enabled: false}\n")
    return subprocess.run([sys.executable, "-m", "alphad.cli", "restore", "-c", str(yml)],
                          capture_output=True, text=True, timeout=60)


def test_config_reload_while_running(switch: Switch, cfg: SonicConfig,
                                     caplog: pytest.LogCaptureFixture) -> None:
    before = switch.dump()
    be = SonicBackend(eager(cfg))
    be.sample()
    be.apply(changes(be, {("Ethernet0", 0): -1, ("Ethernet4", 5): 2}))
    # `config reload`: FLUSHDB of CONFIG_DB ...
    switch.config_db.flushdb()
    with pytest.raises(TransientBackendError, match="nothing written"):
        be.apply(changes(be, {("Ethernet8", 1): 1}))  # a new clone: refused
    assert switch.config_db.dbsize() == 0
    for _ in range(3):  # every call while CONFIG_DB is empty: refused, nothing written
        with pytest.raises(TransientBackendError, match="no usable buffer configuration"):
            be.sample()
        with pytest.raises(TransientBackendError):
            be.apply(changes(be, {("Ethernet0", 0): -2}))
        assert switch.config_db.dbsize() == 0
    # ... then the saved configuration a few seconds later
    switch.load()
    with caplog.at_level(logging.WARNING, logger="alphad.sonic"):
        s = be.sample()
    assert "CONFIG_DB was reconfigured while alphad ran" in caplog.text
    assert (s.alpha == 8.0).all()  # the reloaded profiles: alphad's clones are gone
    assert not [k for k in be.journal.entries if k.startswith("BUFFER_")]
    assert clones(switch) == []
    be.apply(changes(be, {("Ethernet0", 0): -1}))  # starts again from the new originals
    cov = coverage(switch.config_db)  # fails on a queue covered by two entries
    assert cov[("Ethernet0", 0)] == "alphad_Ethernet0_0"
    assert clones(switch) == ["BUFFER_PROFILE|alphad_Ethernet0_0"]
    be.restore()
    assert switch.dump() == before
    assert not cfg.journal.exists()
    be.close()


def test_empty_restart_without_reload_leaves_nothing(switch: Switch, cfg: SonicConfig,
                                                     server) -> None:  # type: ignore[no-untyped-def]
    be = SonicBackend(eager(cfg).model_copy(update={"timeout": 0.5}))
    be.sample()
    be.apply(changes(be, {("Ethernet0", 0): -1, ("Ethernet124", 6): 4}))
    server.stop()
    (server.workdir / "dump.rdb").unlink()
    server.start()  # empty: no configuration is loaded
    for _ in range(2):
        with pytest.raises(TransientBackendError):
            be.sample()
        with pytest.raises(TransientBackendError):
            be.apply(changes(be, {("Ethernet0", 0): 2}))
    be.restore()  # nothing of alphad's is left to restore; nothing is written
    assert switch.config_db.dbsize() == 0
    assert switch.state_db.hgetall("ALPHAD_JOURNAL|config_db") == {}
    assert not cfg.journal.exists()
    be.close()


def test_daemon_cycles_through_a_config_reload(switch: Switch, cfg: SonicConfig) -> None:
    before = switch.dump()
    be = SonicBackend(eager(cfg))
    conf = parse_config(
        "interval: 100ms\nscheme: dt\n"
        "priorities:\n  - {name: bulk, queues: [0, 1, 2, 5, 6], alpha: 0.5, allow_lower: true}\n"
        f"backend: {{type: sonic, redis: '{cfg.redis}'}}\nmetrics: {{enabled: false}}\n")
    d = Daemon(conf, be)
    for _ in range(3):
        d.cycle()
    assert len(clones(switch)) == 160
    switch.config_db.flushdb()
    for _ in range(4):
        d.cycle()
        assert switch.config_db.dbsize() == 0  # never a write into the flushed CONFIG_DB
    switch.load()
    for _ in range(6):
        d.cycle()
    assert len(clones(switch)) == 160  # managed again, from the reloaded originals
    cov = coverage(switch.config_db)
    assert len(cov) == 32 * 7 and sum(p.startswith("alphad_") for p in cov.values()) == 160
    be.restore()
    assert switch.dump() == before
    be.close()


def test_reload_into_a_different_configuration(switch: Switch, cfg: SonicConfig) -> None:
    be = SonicBackend(eager(cfg))
    be.sample()
    be.apply(changes(be, {("Ethernet0", 0): -1}))
    switch.config_db.flushdb()
    switch.cfg["BUFFER_PROFILE"]["egress_lossy_profile"]["dynamic_th"] = "1"
    switch.load()
    reloaded = switch.dump()
    with pytest.raises(FatalBackendError, match="reconfigured while alphad ran"):
        be.sample()
    be.restore()
    assert switch.dump() == reloaded  # the new configuration, untouched
    be.close()


def test_a_port_speed_changed_by_hand_is_a_reconfiguration(switch: Switch,
                                                           cfg: SonicConfig) -> None:
    before = switch.dump()
    be = SonicBackend(eager(cfg))
    be.sample()
    be.apply(changes(be, {("Ethernet0", 0): -1}))
    switch.config_db.hset("PORT|Ethernet8", "speed", "40000")
    with pytest.raises(FatalBackendError, match="reconfigured while alphad ran"):
        be.sample()
    be.restore()  # alphad's own changes go; the operator's speed stays
    switch.config_db.hset("PORT|Ethernet8", "speed", "100000")
    assert switch.dump() == before
    be.close()


def test_crash_then_reload_then_alphad_restore(switch: Switch, cfg: SonicConfig,
                                               tmp_path: Path) -> None:
    be = SonicBackend(eager(cfg))
    be.sample()
    be.apply(changes(be, {("Ethernet0", 0): -1, ("Ethernet4", 2): 1}))
    be.close()  # SIGKILL: the journal stays
    assert json.loads(cfg.journal.read_text())["entries"]
    switch.config_db.flushdb()
    switch.cfg["BUFFER_QUEUE"] = {k.replace("|0-2", "|0-1"): v
                                  for k, v in switch.cfg["BUFFER_QUEUE"].items()}
    switch.load()
    reloaded = switch.dump()
    r = restore_cli(cfg, tmp_path)
    assert r.returncode == 0, r.stderr
    assert switch.dump() == reloaded
    assert not cfg.journal.exists()


def test_alphad_restore_exits_0_when_discovery_fails_afterwards(switch: Switch, cfg: SonicConfig,
                                                                tmp_path: Path) -> None:
    before = switch.dump()
    be = SonicBackend(eager(cfg))
    be.apply(changes(be, {("Ethernet0", 0): -1}))
    be.close()  # SIGKILL
    switch.counters_db.delete("COUNTERS_QUEUE_NAME_MAP")
    r = restore_cli(cfg, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "restored" in r.stdout and "COUNTERS_QUEUE_NAME_MAP" in r.stdout
    assert switch.dump() == before
    r = restore_cli(cfg, tmp_path)  # nothing left to restore: still 0
    assert r.returncode == 0, r.stderr


def test_classification() -> None:
    orig_entry = {"profile": "egress_lossy_profile"}
    entries = {
        "BUFFER_PROFILE|alphad_E0_0": None,
        "BUFFER_QUEUE|E0,E4|0-1": orig_entry,
        "BUFFER_QUEUE|E0|0": None,
        "BUFFER_QUEUE|E0|1": None,
        "FLEX_COUNTER_TABLE|QUEUE": {"POLL_INTERVAL": "10000", "FLEX_COUNTER_STATUS": "enable"},
    }
    running = {
        "BUFFER_PROFILE|alphad_E0_0": {"pool": "p", "size": "0", "dynamic_th": "1"},
        "BUFFER_QUEUE|E0|0": {"profile": "alphad_E0_0"},
        "BUFFER_QUEUE|E0|1": {"profile": "egress_lossy_profile"},
        "FLEX_COUNTER_TABLE|QUEUE": {"POLL_INTERVAL": "100", "FLEX_COUNTER_STATUS": "enable"},
    }
    r = classify(entries, running, {"p"}, {"egress_lossy_profile", "alphad_E0_0"})
    assert sorted(r.ours) == sorted(entries) and r.stale == [] and r.settled == []
    r = classify(entries, {}, set(), set())  # flushed
    assert sorted(r.stale) == ["BUFFER_QUEUE|E0,E4|0-1", "FLEX_COUNTER_TABLE|QUEUE"]
    reload_split = {"BUFFER_QUEUE|E0,E4|0-1": orig_entry,
                    "BUFFER_QUEUE|E0|1": {"profile": "egress_lossy_profile"}}
    r = classify(entries, reload_split, {"p"}, {"egress_lossy_profile"})
    assert "BUFFER_QUEUE|E0|1" in r.stale  # covered by the reloaded entry: not alphad's


def test_gnmi_alphad_restore_exits_0_when_discovery_fails(switch: Switch, server,  # type: ignore[no-untyped-def]
                                                          tmp_path: Path) -> None:
    """The same rule for the gnmi backend: nothing to restore, no queue name map."""
    from alphad_vswitch_gnmi.auth import Credentials
    from alphad_vswitch_gnmi.server import GnmiServer, ServerOptions

    from alphad.sonic import db as sdb

    switch.counters_db.delete("COUNTERS_QUEUE_NAME_MAP")
    layout = sdb.DEFAULT_LAYOUT.with_address(sdb.parse_address(server.address))
    srv = GnmiServer(layout, ServerOptions(min_sample_interval=0.1, state_dir=tmp_path),
                     Credentials(None), None).start()
    try:
        yml = tmp_path / "gnmi.yaml"
        yml.write_text("priorities:\n  - {name: a, queues: [0]}\n"
                       f"backend: {{type: gnmi, address: '127.0.0.1:{srv.port}', insecure: true,"
                       f" journal: '{tmp_path}/gj.json', timeout: 3s}}\n"
                       "metrics: {enabled: false}\n")
        r = subprocess.run([sys.executable, "-m", "alphad.cli", "restore", "-c", str(yml)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "COUNTERS_QUEUE_NAME_MAP" in r.stdout
    finally:
        srv.stop(0.2)


def test_alphad_run_through_config_reload_then_sigterm(switch: Switch, server,  # type: ignore[no-untyped-def]
                                                       tmp_path: Path) -> None:
    """The daemon process: `config reload` (FLUSHDB, 2 s without configuration, reload)
    while it writes every interval; nothing is written into the flushed CONFIG_DB, the
    queues are managed again after the reload, and SIGTERM leaves exactly the reloaded
    configuration."""
    import time

    from _fault_support import alphad, stop, wait_running, wait_until

    before = switch.dump()
    yml = tmp_path / "alphad.yaml"
    yml.write_text(
        "interval: 50ms\nscheme: dt\n"
        "priorities:\n  - {name: bulk, queues: [0, 1, 2, 5, 6], alpha: 0.5, allow_lower: true}\n"
        f"backend:\n  type: sonic\n  redis: '{server.address}'\n"
        f"  database_config: {tmp_path}/absent.json\n  journal: {tmp_path}/state/j.json\n"
        "  timeout: 0.3\n"
        f"metrics: {{enabled: false}}\napi: {{enabled: false}}\nlock_dir: {tmp_path}/locks\n")
    p = alphad("run", "-c", str(yml), "--no-view", "--no-summary")
    wait_running(p)
    wait_until(lambda: len(clones(switch)) == 160, 10, "160 clones")
    switch.config_db.flushdb()
    t_end = time.monotonic() + 2.0
    while time.monotonic() < t_end:  # the flushed CONFIG_DB stays empty
        assert switch.config_db.dbsize() == 0
        time.sleep(0.05)
    switch.load()
    wait_until(lambda: len(clones(switch)) == 160, 10, "160 clones after the reload")
    coverage(switch.config_db)  # no queue covered twice
    rc, err, _ = stop(p)
    assert rc == 128 + 15, err
    assert "CONFIG_DB was reconfigured while alphad ran" in err
    assert switch.dump() == before
