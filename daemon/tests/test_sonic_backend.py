"""The sonic backend against a real redis-server holding the shipped config_db.json.

COUNTERS_DB is filled by the tests themselves (name maps and counter values, as
sonic-swss's own tests inject counters); the end-to-end runs through the
virtual switch are in test_vswitch*.py.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from alphad_vswitch import configdb, redisproc

from alphad.backends.base import FatalBackendError, TransientBackendError
from alphad.backends.sonic import SonicBackend, SonicConfig, poll_interval_ms
from alphad.model import Changes

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DB_JSON = ROOT / "configs" / "sonic" / "config_db.json"
DUMP_PATTERNS = ["BUFFER_*", "FLEX_COUNTER_TABLE*"]
LOSSLESS_PATTERNS = ["BUFFER_PG|*", "BUFFER_PROFILE|pg_lossless*",
                     "BUFFER_PROFILE|egress_lossless*", "BUFFER_QUEUE|*|3-4",
                     "BUFFER_POOL|*lossless*"]


def queue_oid(port_i: int, q: int) -> str:
    return f"oid:0x15{port_i:06x}{q:08x}"


class Switch:
    """A redis-server loaded like a SONiC switch (CONFIG_DB + COUNTERS_DB name maps)."""

    def __init__(self, server: redisproc.RedisServer) -> None:
        self.server = server
        self.cfg = configdb.load_config_db(CONFIG_DB_JSON)
        self.ports = sorted(self.cfg["PORT"], key=lambda p: int(p[8:]))

    def load(self) -> None:
        configdb.write_config_db(self.config_db, self.cfg)
        self.counters_db.flushdb()
        m = {f"{p}:{q}": queue_oid(i, q) for i, p in enumerate(self.ports) for q in range(8)}
        self.counters_db.hset("COUNTERS_QUEUE_NAME_MAP", mapping=m)
        self.counters_db.hset("COUNTERS_BUFFER_POOL_NAME_MAP",
                              mapping={"egress_lossy_pool": "oid:0x18000000000001"})

    @property
    def config_db(self):  # type: ignore[no-untyped-def]
        return self.server.client(4)

    @property
    def counters_db(self):  # type: ignore[no-untyped-def]
        return self.server.client(2)

    @property
    def state_db(self):  # type: ignore[no-untyped-def]
        return self.server.client(6)

    def dump(self) -> str:
        return configdb.dump(self.config_db, DUMP_PATTERNS)

    def lossless(self) -> str:
        return configdb.dump(self.config_db, LOSSLESS_PATTERNS)


@pytest.fixture
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = redisproc.RedisServer(tmp_path / "redis", persist=True)
    s.start()
    yield s
    s.stop()


@pytest.fixture
def switch(server) -> Switch:  # type: ignore[no-untyped-def]
    sw = Switch(server)
    sw.load()
    return sw


@pytest.fixture
def cfg(tmp_path: Path, server) -> SonicConfig:  # type: ignore[no-untyped-def]
    return SonicConfig(type="sonic", redis=server.address,
                       database_config=tmp_path / "absent.json",
                       journal=tmp_path / "state" / "journal.json", poll_interval=0.1)


def changes(be: SonicBackend, items: dict[tuple[str, int], int]) -> Changes:
    idx = np.array([be.topo.find(p, q) for p, q in items], dtype=np.int64)
    k = np.array(list(items.values()), dtype=np.int8)
    return Changes(idx, np.exp2(k.astype(float)), k)


def coverage(config_db) -> dict[tuple[str, int], str]:  # type: ignore[no-untyped-def]
    """(port, queue) -> profile over every BUFFER_QUEUE entry; fails on an overlap."""
    out: dict[tuple[str, int], str] = {}
    for key in config_db.scan_iter(match="BUFFER_QUEUE|*"):
        _, ports, rng = key.split("|")
        a, _, b = rng.partition("-")
        prof = config_db.hget(key, "profile")
        for p in ports.split(","):
            for q in range(int(a), int(b or a) + 1):
                assert (p, q) not in out, f"{p}:{q} covered twice"
                out[(p, q)] = prof
    return out


# -- discovery -------------------------------------------------------------------------

def test_discovery_on_shipped_config_db(switch: Switch, cfg: SonicConfig) -> None:
    be = SonicBackend(cfg)
    t = be.topology()
    assert t.n_ports == 32 and t.ports[:3] == ("Ethernet0", "Ethernet4", "Ethernet8")
    assert t.n == 32 * 5  # lossy queues 0-2 and 5-6; 3-4 are lossless (static pool), 7 unset
    assert sorted(set(t.queue_index.tolist())) == [0, 1, 2, 5, 6]
    assert t.buffer_bytes == 7326924  # egress_lossy_pool
    assert np.all(t.port_speed_bps == 100e9)
    assert t.managed is not None and t.managed.all()
    assert t.switch == "sonic-vs"
    assert np.all(be.original_k == 3)  # egress_lossy_profile dynamic_th
    assert be.disc.skipped == []
    be.close()


def test_database_config_json_is_honoured(switch: Switch, cfg: SonicConfig,
                                          tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    # Move CONFIG_DB to db 9 and COUNTERS_DB to db 11: only database_config.json says so.
    for old, new in ((4, 9), (2, 11)):
        c = server.client(old)
        for k in list(c.scan_iter()):
            c.move(k, new)
    dbc = tmp_path / "database_config.json"
    redisproc.write_database_config(dbc, str(server.unix_socket), None)
    raw = json.loads(dbc.read_text())
    raw["DATABASES"]["CONFIG_DB"]["id"] = 9
    raw["DATABASES"]["COUNTERS_DB"]["id"] = 11
    dbc.write_text(json.dumps(raw))
    be = SonicBackend(cfg.model_copy(update={"redis": None, "database_config": dbc}))
    assert be.topology().n == 160
    assert be.layout["CONFIG_DB"].id == 9
    be.close()
    with pytest.raises(FatalBackendError, match="no PORT table"):
        SonicBackend(cfg)  # default ids: db 4 is empty now


def test_bad_database_config_names_the_key(cfg: SonicConfig, tmp_path: Path) -> None:
    dbc = tmp_path / "database_config.json"
    dbc.write_text(json.dumps({"INSTANCES": {"redis": {"unix_socket_path": "/x"}},
                               "DATABASES": {"APPL_DB": {"id": 0, "instance": "redis"}}}))
    with pytest.raises(FatalBackendError, match=r"DATABASES\.COUNTERS_DB is missing"):
        SonicBackend(cfg.model_copy(update={"database_config": dbc}))


def test_no_redis_is_a_clear_fatal_error(tmp_path: Path) -> None:
    c = SonicConfig(type="sonic", redis=f"unix://{tmp_path}/nothing.sock",
                    database_config=tmp_path / "absent.json", journal=tmp_path / "j.json",
                    timeout=0.2)
    with pytest.raises(FatalBackendError, match="SONiC Redis unix://"):
        SonicBackend(c)


def test_unwritable_journal_is_a_clear_fatal_error(switch: Switch, cfg: SonicConfig,
                                                   tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(FatalBackendError, match=r"journal .*cannot create"):
        SonicBackend(cfg.model_copy(update={"journal": tmp_path / "file" / "sub" / "j.json"}))


# -- counters --------------------------------------------------------------------------

@pytest.mark.parametrize("reader", ["lua", "pipeline"])
def test_sample_reads_counters_watermarks_and_pool(switch: Switch, cfg: SonicConfig,
                                                   reader: str) -> None:
    be = SonicBackend(cfg.model_copy(update={"reader": reader}))
    t = be.topology()
    rng = np.random.default_rng(7)
    vals = rng.integers(0, 2**62, size=(t.n, 5), dtype=np.uint64)
    vals[3, 0] = np.uint64(2**64 - 5)  # near the wrap
    pipe = switch.counters_db.pipeline()
    for i, q in enumerate(be.disc.queues):
        pipe.hset(f"COUNTERS:{q.oid}", mapping={
            "SAI_QUEUE_STAT_BYTES": int(vals[i, 0]), "SAI_QUEUE_STAT_PACKETS": int(vals[i, 1]),
            "SAI_QUEUE_STAT_DROPPED_BYTES": int(vals[i, 2]),
            "SAI_QUEUE_STAT_DROPPED_PACKETS": int(vals[i, 3]),
            "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": int(vals[i, 4]),
            "SAI_QUEUE_STAT_TRIM_PACKETS": 0})
    pipe.hset("COUNTERS:oid:0x18000000000001", "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES", 123456)
    pipe.execute()
    s = be.sample()
    assert s.tx_bytes.dtype == np.uint64
    np.testing.assert_array_equal(s.tx_bytes, vals[:, 0])
    np.testing.assert_array_equal(s.tx_packets, vals[:, 1])
    np.testing.assert_array_equal(s.drop_bytes, vals[:, 2])
    np.testing.assert_array_equal(s.drop_packets, vals[:, 3])
    np.testing.assert_array_equal(s.watermark, vals[:, 4].astype(float))
    assert s.pool_watermark == 123456.0
    np.testing.assert_array_equal(s.alpha, np.full(t.n, 8.0))
    be.close()


def test_missing_counters_read_as_zero_with_one_warning(switch: Switch, cfg: SonicConfig,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    be = SonicBackend(cfg)
    with caplog.at_level(logging.WARNING, logger="alphad.sonic"):
        s1 = be.sample()
        be.sample()
    assert not s1.tx_bytes.any() and s1.pool_watermark is None
    assert sum("SHARED_WATERMARK_BYTES" in r.getMessage() for r in caplog.records) == 1


def test_flex_counter_poll_intervals_set_then_restored(switch: Switch, cfg: SonicConfig) -> None:
    before = switch.dump()
    be = SonicBackend(cfg.model_copy(update={"poll_interval": 0.02}))  # below SONiC's 100 ms
    be.sample()
    c = switch.config_db
    for g in ("QUEUE", "QUEUE_WATERMARK", "BUFFER_POOL_WATERMARK"):
        assert c.hget(f"FLEX_COUNTER_TABLE|{g}", "POLL_INTERVAL") == "100"
        assert c.hget(f"FLEX_COUNTER_TABLE|{g}", "FLEX_COUNTER_STATUS") == "enable"
    assert c.hget("FLEX_COUNTER_TABLE|PG_WATERMARK", "POLL_INTERVAL") == "60000"  # not ours
    be.restore()
    assert switch.dump() == before
    assert not c.hexists("FLEX_COUNTER_TABLE|QUEUE", "POLL_INTERVAL")  # was absent


def test_poll_interval_range() -> None:
    assert poll_interval_ms(0.001) == 100
    assert poll_interval_ms(0.25) == 250
    assert poll_interval_ms(1.0) == 1000


# -- actuation -------------------------------------------------------------------------

def test_first_change_clones_profile_and_splits_entry(switch: Switch, cfg: SonicConfig) -> None:
    be = SonicBackend(cfg)
    c = switch.config_db
    lossless = switch.lossless()
    orig_cov = coverage(c)
    be.apply(changes(be, {("Ethernet0", 1): -2}))
    prof = c.hgetall("BUFFER_PROFILE|alphad_Ethernet0_1")
    assert prof == {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "-2"}
    # the entry of queues 0-2 is split into one key per (port, queue)
    assert not c.exists(f"BUFFER_QUEUE|{','.join(switch.ports)}|0-2")
    for p in switch.ports:
        for q in (0, 1, 2):
            want = "alphad_Ethernet0_1" if (p, q) == ("Ethernet0", 1) else "egress_lossy_profile"
            assert c.hgetall(f"BUFFER_QUEUE|{p}|{q}") == {"profile": want}
    # the other entries are untouched
    assert c.hget(f"BUFFER_QUEUE|{','.join(switch.ports)}|5-6", "profile") == \
        "egress_lossy_profile"
    assert coverage(c) == {**orig_cov, ("Ethernet0", 1): "alphad_Ethernet0_1"}
    # a later change of the same queue writes dynamic_th only
    nkeys = c.dbsize()
    be.apply(changes(be, {("Ethernet0", 1): 1}))
    assert c.dbsize() == nkeys
    assert c.hget("BUFFER_PROFILE|alphad_Ethernet0_1", "dynamic_th") == "1"
    # a new clone in an already split entry removes no key: it adds its profile and
    # changes one profile field
    ps = c.pubsub()
    ps.psubscribe("__keyspace@4__:BUFFER_QUEUE|*")
    while ps.get_message(timeout=0.05) is not None:
        pass
    be.apply(changes(be, {("Ethernet8", 2): 0}))
    events = []
    while (m := ps.get_message(timeout=0.2)) is not None:
        if m["type"] == "pmessage":
            events.append((m["channel"].split(":", 1)[1], m["data"]))
    assert events == [("BUFFER_QUEUE|Ethernet8|2", "hset")]
    assert c.dbsize() == nkeys + 1
    # more queues of the same and of another entry
    be.apply(changes(be, {("Ethernet0", 2): 0, ("Ethernet8", 5): -1, ("Ethernet8", 6): 2}))
    cov = coverage(c)
    assert cov[("Ethernet0", 0)] == "egress_lossy_profile"
    assert cov[("Ethernet0", 2)] == "alphad_Ethernet0_2"
    assert cov[("Ethernet8", 5)] == "alphad_Ethernet8_5"
    assert cov[("Ethernet8", 6)] == "alphad_Ethernet8_6"
    assert cov[("Ethernet12", 6)] == "egress_lossy_profile"
    assert set(cov) == set(orig_cov)
    assert switch.lossless() == lossless  # PFC entries untouched
    s = be.sample()
    assert s.alpha[be.topo.find("Ethernet0", 1)] == 2.0
    assert s.alpha[be.topo.find("Ethernet8", 5)] == 0.5
    assert s.alpha[be.topo.find("Ethernet4", 0)] == 8.0
    be.close()


def test_bracketed_profile_references_keep_their_style(switch: Switch, cfg: SonicConfig) -> None:
    c = switch.config_db
    key = f"BUFFER_QUEUE|{','.join(switch.ports)}|5-6"
    c.hset(key, "profile", "[BUFFER_PROFILE|egress_lossy_profile]")
    be = SonicBackend(cfg)
    be.apply(changes(be, {("Ethernet4", 6): 0}))
    assert c.hget("BUFFER_QUEUE|Ethernet4|6", "profile") == "[BUFFER_PROFILE|alphad_Ethernet4_6]"
    assert c.hget("BUFFER_QUEUE|Ethernet4|5", "profile") == "[BUFFER_PROFILE|egress_lossy_profile]"


def test_restore_is_byte_identical(switch: Switch, cfg: SonicConfig, tmp_path: Path) -> None:
    before = switch.dump()
    be = SonicBackend(cfg)
    rng = np.random.default_rng(3)
    for _ in range(5):
        idx = rng.choice(be.topo.n, size=40, replace=False)
        k = rng.integers(-8, 8, size=40).astype(np.int8)
        be.apply(Changes(idx, np.exp2(k.astype(float)), k))
        be.sample()
    assert switch.dump() != before
    assert len(be.journal) > 0 and cfg.journal.exists()
    assert switch.state_db.hlen("ALPHAD_JOURNAL|config_db") == len(be.journal)
    be.restore()
    assert switch.dump() == before
    assert not cfg.journal.exists()
    assert not switch.state_db.exists("ALPHAD_JOURNAL|config_db")
    be.restore()  # idempotent
    assert switch.dump() == before


def test_restarted_daemon_and_alphad_restore_recover_exactly(switch: Switch, cfg: SonicConfig,
                                                             tmp_path: Path) -> None:
    before = switch.dump()
    be = SonicBackend(cfg)
    be.sample()
    be.apply(changes(be, {("Ethernet0", 0): -3, ("Ethernet124", 6): 4}))
    be.close()  # crash: no restore
    after_crash = switch.dump()
    assert after_crash != before
    # a restarted daemon reconciles the leftover journal when it opens
    be2 = SonicBackend(cfg)
    assert switch.dump() == before
    be2.apply(changes(be2, {("Ethernet12", 2): 5}))
    be2.close()
    # `alphad restore` in a fresh process, from the journal file and STATE_DB
    yml = tmp_path / "alphad.yaml"
    yml.write_text(
        "interval: 100ms\nscheme: abm\n"
        "priorities:\n  - {name: bulk, queues: [0, 1, 2, 5, 6]}\n"
        f"backend:\n  type: sonic\n  redis: {cfg.redis}\n"
        f"  database_config: {cfg.database_config}\n  journal: {cfg.journal}\n"
        "metrics: {enabled: false}\n")
    r = subprocess.run([sys.executable, "-m", "alphad.cli", "restore", "-c", str(yml)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "restored" in r.stdout
    assert switch.dump() == before


def test_restore_from_state_db_when_the_file_is_lost(switch: Switch, cfg: SonicConfig) -> None:
    before = switch.dump()
    be = SonicBackend(cfg)
    be.apply(changes(be, {("Ethernet0", 5): 1, ("Ethernet4", 5): 1}))
    be.close()
    cfg.journal.unlink()
    SonicBackend(cfg).close()
    assert switch.dump() == before


def test_refuses_lossless_queue(switch: Switch, cfg: SonicConfig) -> None:
    switch.config_db.hset("PORT_QOS_MAP|Ethernet0", "pfc_enable", "3,4,5")
    be = SonicBackend(cfg)
    i = be.topo.find("Ethernet0", 5)
    assert be.topo.managed is not None and not be.topo.managed[i]
    before = switch.dump()
    with pytest.raises(FatalBackendError, match="lossless"):
        be.apply(Changes(np.array([i]), np.array([1.0]), np.array([0], dtype=np.int8)))
    assert switch.dump() == before


# -- malformed CONFIG_DB -----------------------------------------------------------------

def test_malformed_entries_are_skipped_with_a_log_line(switch: Switch, cfg: SonicConfig,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    c = switch.config_db
    ports = switch.ports
    # a profile without dynamic_th, a static profile on the lossy pool, an unknown pool
    c.hset("BUFFER_PROFILE|no_th", mapping={"pool": "egress_lossy_pool", "size": "0"})
    c.hset("BUFFER_PROFILE|static_lossy", mapping={"pool": "egress_lossy_pool", "size": "0",
                                                   "static_th": "100000"})
    c.hset("BUFFER_PROFILE|ghost_pool", mapping={"pool": "nowhere", "size": "0",
                                                 "dynamic_th": "0"})
    # queues 0-2 of Ethernet4/8/12 now point at them (split out of the big entry)
    big = f"BUFFER_QUEUE|{','.join(ports)}|0-2"
    c.delete(big)
    c.hset(f"BUFFER_QUEUE|{','.join(p for p in ports if p not in ports[1:4])}|0-2",
           "profile", "egress_lossy_profile")
    for p, prof in zip(ports[1:4], ("no_th", "static_lossy", "ghost_pool"), strict=True):
        c.hset(f"BUFFER_QUEUE|{p}|0-2", "profile", prof)
    c.hset("PORT|Ethernet16", "speed", "fast")  # non-numeric speed
    c.hset("BUFFER_QUEUE|Ethernet20|7", "profile", "egress_lossy_profile")  # queue 7...
    switch.counters_db.hdel("COUNTERS_QUEUE_NAME_MAP", "Ethernet20:7")  # ...has no counters
    with caplog.at_level(logging.WARNING, logger="alphad.sonic"):
        be = SonicBackend(cfg)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "BUFFER_PROFILE|no_th: no 'dynamic_th' field" in text
    assert "BUFFER_PROFILE|static_lossy: static threshold" in text
    assert "BUFFER_PROFILE|ghost_pool: unknown pool 'nowhere'" in text
    assert "PORT|Ethernet16: speed 'fast'" in text
    assert "Ethernet20:7" in text and "COUNTERS_QUEUE_NAME_MAP" in text
    t = be.topology()
    names = set(t.ports)
    assert "Ethernet16" not in names
    for p in ports[1:4]:
        assert set(t.queue_index[t.queue_port == t.ports.index(p)].tolist()) == {5, 6}
    assert t.n == 160 - 3 * 3 - 5
    # the daemon runs on what is left
    from alphad.config import parse_config
    from alphad.loop import Daemon

    conf = parse_config("interval: 100ms\nscheme: abm\npriorities:\n"
                        "  - {name: bulk, queues: [0, 1, 2, 5, 6]}\n"
                        f"backend: {{type: sonic, redis: '{cfg.redis}'}}\n")
    d = Daemon(conf, be)
    for _ in range(3):
        d.cycle()
    assert d.stats.intervals == 3 and d.stats.read_errors == 0


def test_nothing_to_manage_is_a_fatal_error(switch: Switch, cfg: SonicConfig) -> None:
    c = switch.config_db
    for k in list(c.scan_iter(match="BUFFER_PROFILE|egress_lossy_profile")):
        c.hdel(k, "dynamic_th")
    with pytest.raises(FatalBackendError, match="nothing to manage"):
        SonicBackend(cfg)


# -- Redis restart -----------------------------------------------------------------------

def test_redis_restart_keeps_every_journal_entry(switch: Switch, cfg: SonicConfig,
                                                 server) -> None:  # type: ignore[no-untyped-def]
    before = switch.dump()
    be = SonicBackend(cfg.model_copy(update={"timeout": 0.5}))
    be.sample()
    be.apply(changes(be, {("Ethernet0", 0): -1, ("Ethernet4", 1): 2}))
    entries = dict(be.journal.entries)
    server.stop()  # saves the RDB
    with pytest.raises(TransientBackendError):
        be.sample()
    with pytest.raises(TransientBackendError):
        be.apply(changes(be, {("Ethernet8", 2): 1}))
    server.start()
    # STATE_DB lost its copy meanwhile: the daemon writes it again from the file
    switch.state_db.delete("ALPHAD_JOURNAL|config_db")
    s = be.sample()
    assert s.alpha[be.topo.find("Ethernet4", 1)] == 4.0
    state = switch.state_db.hgetall("ALPHAD_JOURNAL|config_db")
    assert set(state) == set(entries)
    assert {k: json.loads(v) for k, v in state.items()} == entries
    be.apply(changes(be, {("Ethernet8", 2): 1}))
    assert set(be.journal.entries) > set(entries)
    be.restore()
    assert switch.dump() == before


def test_redis_restart_without_persistence(switch: Switch, cfg: SonicConfig,
                                           server) -> None:  # type: ignore[no-untyped-def]
    before = switch.dump()
    be = SonicBackend(cfg.model_copy(update={"timeout": 0.5}))
    be.apply(changes(be, {("Ethernet0", 0): -1}))
    entries = dict(be.journal.entries)
    server.stop()
    (server.workdir / "dump.rdb").unlink()
    with pytest.raises(TransientBackendError):
        be.sample()
    server.start()
    switch.load()  # the switch reloads its config_db.json, as SONiC does at boot
    s = be.sample()
    assert s.alpha[be.topo.find("Ethernet0", 0)] == 8.0  # the clone is gone: original alpha
    # the reloaded switch holds none of alphad's changes: no buffer entry is journaled
    state = switch.state_db.hgetall("ALPHAD_JOURNAL|config_db")
    assert entries and not [k for k in state if k.startswith("BUFFER_")]
    assert not [k for k in be.journal.entries if k.startswith("BUFFER_")]
    be.apply(changes(be, {("Ethernet0", 0): -2}))
    assert switch.config_db.hget("BUFFER_PROFILE|alphad_Ethernet0_0", "dynamic_th") == "-2"
    be.restore()
    assert switch.dump() == before


@pytest.mark.parametrize("reader", ["lua", "pipeline"])
def test_non_numeric_counter_reads_as_zero_with_a_warning(switch: Switch, cfg: SonicConfig,
                                                          reader: str,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    be = SonicBackend(cfg.model_copy(update={"reader": reader}))
    q0, q1 = be.disc.queues[0], be.disc.queues[1]
    switch.counters_db.hset(f"COUNTERS:{q0.oid}", mapping={
        "SAI_QUEUE_STAT_BYTES": "n/a", "SAI_QUEUE_STAT_PACKETS": 7})
    switch.counters_db.hset(f"COUNTERS:{q1.oid}", mapping={
        "SAI_QUEUE_STAT_BYTES": 2**64 - 1, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": 42})
    with caplog.at_level(logging.WARNING, logger="alphad.sonic"):
        s = be.sample()
    assert s.tx_bytes[0] == 0 and s.tx_packets[0] == 7
    assert s.tx_bytes[1] == np.uint64(2**64 - 1) and s.watermark[1] == 42.0
    assert "1 counter values in COUNTERS_DB are not numbers" in caplog.text


@pytest.mark.parametrize("reader", ["lua", "pipeline"])
def test_redis_restart_between_two_cycles_is_noticed(switch: Switch, cfg: SonicConfig,
                                                     server, reader: str) -> None:  # type: ignore[no-untyped-def]
    """No call fails (the client reconnects by itself), yet the restart is seen and
    the backend recovers before it writes anything."""
    before = switch.dump()
    be = SonicBackend(cfg.model_copy(update={"reader": reader}))
    be.sample()
    be.apply(changes(be, {("Ethernet0", 0): -1}))
    entries = dict(be.journal.entries)
    server.stop()
    (server.workdir / "dump.rdb").unlink()
    server.start()
    switch.load()  # CONFIG_DB reloaded from config_db.json: no clone any more
    s = be.sample()
    assert s.alpha[be.topo.find("Ethernet0", 0)] == 8.0
    state = switch.state_db.hgetall("ALPHAD_JOURNAL|config_db")
    assert entries and not [k for k in state if k.startswith("BUFFER_")]
    be.apply(changes(be, {("Ethernet0", 0): -2}))
    assert switch.config_db.hgetall("BUFFER_PROFILE|alphad_Ethernet0_0") == {
        "pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "-2"}
    be.restore()
    assert switch.dump() == before


def test_a_vanished_clone_is_never_recreated_partially(switch: Switch, cfg: SonicConfig) -> None:
    before = switch.dump()
    be = SonicBackend(cfg)
    be.apply(changes(be, {("Ethernet0", 0): -1, ("Ethernet4", 0): -1}))
    switch.config_db.delete("BUFFER_PROFILE|alphad_Ethernet0_0")  # lost behind our back
    with pytest.raises(TransientBackendError, match="missing"):
        be.apply(changes(be, {("Ethernet0", 0): 2, ("Ethernet4", 0): 2}))
    assert not switch.config_db.exists("BUFFER_PROFILE|alphad_Ethernet0_0")
    be.apply(changes(be, {("Ethernet0", 0): 2, ("Ethernet4", 0): 2}))  # recovers: clones again
    assert switch.config_db.hgetall("BUFFER_PROFILE|alphad_Ethernet0_0") == {
        "pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "2"}
    assert switch.config_db.hget("BUFFER_QUEUE|Ethernet0|0", "profile") == "alphad_Ethernet0_0"
    be.restore()
    assert switch.dump() == before


def test_strict_schedulers_in_config_db_rank_the_classes(switch: Switch, cfg: SonicConfig,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    from alphad.config import parse_config
    from alphad.loop import Daemon

    c = switch.config_db
    c.hset("SCHEDULER|scheduler.0", mapping={"type": "DWRR", "weight": "14"})
    c.hset("SCHEDULER|sp", mapping={"type": "STRICT"})
    for p in switch.ports:
        for q in (0, 1, 2):
            c.hset(f"QUEUE|{p}|{q}", "scheduler", "scheduler.0")
        c.hset(f"QUEUE|{p}|5", "scheduler", "[SCHEDULER|sp]")  # the older reference style
        c.hset(f"QUEUE|{p}|6", "scheduler", "sp")
    c.hset(f"QUEUE|{switch.ports[0]}|6", "scheduler", "nosuch")  # unknown: not strict
    caplog.set_level(logging.INFO)
    be = SonicBackend(cfg)
    t = be.topology()
    sq = be.strict_queues()
    assert sorted(set(t.queue_index[sq].tolist())) == [5, 6]
    assert int(sq.sum()) == 2 * 32 - 1
    assert "QUEUE|Ethernet0|6: unknown scheduler 'nosuch'" in caplog.text

    def ranks(yaml_strict: str = "") -> tuple:  # type: ignore[type-arg]
        conf = parse_config(
            "interval: 100ms\nscheme: auto4\npriorities:\n"
            "  - {name: bulk, queues: [0, 1, 2]}\n"
            f"  - {{name: voice, queues: [5]{yaml_strict}}}\n"
            "  - {name: ctl, queues: [6]}\n"
            f"backend: {{type: sonic, redis: '{cfg.redis}'}}\n")
        return Daemon(conf, be).controller.classes.strict

    # ctl's queue 6 is not strict on Ethernet0: the class is not; voice's 5 is everywhere
    assert ranks() == (None, 0, None)
    assert "strict priority, from the switch's schedulers: class voice rank 0" in caplog.text
    assert ranks(", strict: 3") == (None, 3, None)  # the configuration's ranks win
    c.hset(f"QUEUE|{switch.ports[0]}|6", "scheduler", "sp")
    be.close()
    be = SonicBackend(cfg)
    assert ranks() == (None, 1, 0)  # both strict: queue 6 is served before queue 5
    be.close()
