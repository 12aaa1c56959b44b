"""The virtual SONiC switch, stepped in-process on the model clock, against a real
redis-server and the real virtual ASIC (libsai-vasic through libalphad-sai)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from alphad_vswitch import configdb
from alphad_vswitch.asic import AsicError, scenario_text, switch_shape
from alphad_vswitch.redisproc import RedisServer
from alphad_vswitch.switch import READY_KEY, VSwitch
from conftest import start_vswitch

from alphad.backends.sonic import SonicBackend, SonicConfig
from alphad.model import Changes

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DB_JSON = ROOT / "configs" / "sonic" / "config_db.json"
APPL_PATTERNS = ["BUFFER_POOL_TABLE:*", "BUFFER_PROFILE_TABLE:*", "BUFFER_QUEUE_TABLE:*"]

TRAFFIC = """
greedy port=Ethernet0 queue=0,1 rate_gbps=100 stop_ms=300
onoff port=Ethernet4 queue=5 rate_gbps=60 on_ms=2 off_ms=8
"""


@pytest.fixture
def vs(tmp_path: Path, server: RedisServer) -> Iterator[VSwitch]:
    v = start_vswitch(tmp_path, server, CONFIG_DB_JSON, TRAFFIC, th_min=-8, th_max=5)
    yield v
    v.close()


def run(v: VSwitch, seconds: float, start: float, dt: float = 0.01) -> float:
    """Step the switch ``seconds`` of model time with wall time = model time."""
    t = start
    for _ in range(round(seconds / dt)):
        t += dt
        v.step(advance_ns=round(dt * 1e9), now=t)
    return t


def qidx(v: VSwitch, port: str, q: int) -> int:
    return v.asic.index[(v.shape.ports.index(port), q)]


# -- scenario ----------------------------------------------------------------------------

def test_scenario_from_config_db_and_traffic() -> None:
    cfg = configdb.load_config_db(CONFIG_DB_JSON)
    shape = switch_shape(cfg)
    assert shape.ports[:2] == ("Ethernet0", "Ethernet4") and len(shape.ports) == 32
    assert (shape.speed_mbps, shape.pool, shape.pool_bytes) == (100000, "egress_lossy_pool",
                                                                7326924)
    text = scenario_text(shape, "greedy port=Ethernet8,Ethernet124,3 queue=0 rate_gbps=10\n")
    first, second = text.splitlines()[:2]
    assert first.startswith("switch ports=32 queues=8 speed_gbps=100 buffer_bytes=7326924 ")
    assert second == "greedy port=2,31,3 queue=0 rate_gbps=10"


def test_scenario_errors_name_the_problem() -> None:
    cfg = configdb.load_config_db(CONFIG_DB_JSON)
    shape = switch_shape(cfg)
    with pytest.raises(AsicError, match=r"traffic:2: unknown directive 'switch'"):
        scenario_text(shape, "# comment\nswitch ports=4\n")
    with pytest.raises(AsicError, match=r"traffic:1: unknown port 'Ethernet999'"):
        scenario_text(shape, "greedy port=Ethernet999 queue=0 rate_gbps=1\n")
    cfg["PORT"]["Ethernet8"]["speed"] = "40000"
    with pytest.raises(AsicError, match=r"one port speed.*40000 Mb/s: Ethernet8"):
        switch_shape(cfg)


def test_bad_config_db_json_names_the_key(tmp_path: Path) -> None:
    p = tmp_path / "c.json"
    p.write_text('{"PORT": {"Ethernet0": "speed"}}')
    with pytest.raises(configdb.ConfigDbError, match=r"PORT\|Ethernet0 must be an object"):
        configdb.load_config_db(p)


# -- counters ----------------------------------------------------------------------------

def test_flex_counters_published_at_their_poll_intervals(vs: VSwitch,
                                                         server: RedisServer) -> None:
    cdb, ctr = server.client(4), server.client(2)
    assert server.client(6).hget(READY_KEY, "status") == "ready"
    assert ctr.hlen("COUNTERS_QUEUE_NAME_MAP") == 32 * 8
    cdb.hset("FLEX_COUNTER_TABLE|QUEUE", "POLL_INTERVAL", "100")
    cdb.hset("FLEX_COUNTER_TABLE|QUEUE_WATERMARK", "POLL_INTERVAL", "200")
    cdb.hset("FLEX_COUNTER_TABLE|BUFFER_POOL_WATERMARK", "POLL_INTERVAL", "200")
    polls0 = dict(vs.flex.polls)
    t = run(vs, 1.0, 0.0)
    polls = {g: vs.flex.polls[g] - polls0[g] for g in polls0}
    assert 9 <= polls["QUEUE"] <= 11 and 4 <= polls["QUEUE_WATERMARK"] <= 6
    busy = ctr.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet0:0")
    idle = ctr.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet124:2")
    b = ctr.hgetall(f"COUNTERS:{busy}")
    assert int(b["SAI_QUEUE_STAT_BYTES"]) > 0 and int(b["SAI_QUEUE_STAT_DROPPED_PACKETS"]) > 0
    assert int(ctr.hget(f"COUNTERS:{idle}", "SAI_QUEUE_STAT_BYTES")) == 0
    # the greedy flows stopped at 300 ms: the per-poll (read-and-clear) watermark is 0
    # now, while the max-merged tables keep the peak of the whole run
    assert int(b["SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"]) == 0
    for table in ("USER_WATERMARKS", "PERSISTENT_WATERMARKS", "PERIODIC_WATERMARKS"):
        assert int(ctr.hget(f"{table}:{busy}", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES")) > 0
    pool_oid = ctr.hget("COUNTERS_BUFFER_POOL_NAME_MAP", "egress_lossy_pool")
    assert ctr.hexists(f"COUNTERS:{pool_oid}", "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES")
    # a disabled group is no longer published
    cdb.hset("FLEX_COUNTER_TABLE|QUEUE", "FLEX_COUNTER_STATUS", "disable")
    n = vs.flex.polls["QUEUE"]
    run(vs, 0.3, t)
    assert vs.flex.polls["QUEUE"] == n


def test_watermark_is_the_peak_of_the_last_poll(vs: VSwitch, server: RedisServer) -> None:
    cdb, ctr = server.client(4), server.client(2)
    cdb.hset("FLEX_COUNTER_TABLE|QUEUE_WATERMARK", "POLL_INTERVAL", "100")
    run(vs, 0.25, 0.0)
    oid = ctr.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet0:0")
    wm = int(ctr.hget(f"COUNTERS:{oid}", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"))
    # two 100G greedy flows on one 100G port: queue 0 sits at its DT threshold
    # alpha * (B - Q) with alpha = 2^3 (egress_lossy_profile) shared with queue 1
    assert wm > 1_000_000


# -- buffer configuration ----------------------------------------------------------------

def test_profile_change_reaches_the_asic(vs: VSwitch, server: RedisServer) -> None:
    cdb, appl = server.client(4), server.client(0)
    i0, i3, i7 = (qidx(vs, "Ethernet0", q) for q in (0, 3, 7))
    assert vs.asic.get_k(i0) == 3  # egress_lossy_profile
    assert appl.hget("BUFFER_PROFILE_TABLE:egress_lossy_profile", "dynamic_th") == "3"
    k3, k7 = vs.asic.get_k(i3), vs.asic.get_k(i7)
    cdb.hset("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th", "-2")
    run(vs, 0.02, 0.0)
    assert vs.asic.get_k(i0) == -2
    assert vs.asic.get_k(qidx(vs, "Ethernet124", 6)) == -2
    assert (vs.asic.get_k(i3), vs.asic.get_k(i7)) == (k3, k7)  # lossless / unconfigured
    assert appl.hget("BUFFER_PROFILE_TABLE:egress_lossy_profile", "dynamic_th") == "-2"


def test_threshold_mode_mismatch_is_rejected(vs: VSwitch, server: RedisServer,
                                             caplog: pytest.LogCaptureFixture) -> None:
    cdb, appl = server.client(4), server.client(0)
    i7 = qidx(vs, "Ethernet0", 7)
    k7 = vs.asic.get_k(i7)
    cdb.hset("BUFFER_PROFILE|bad_static", mapping={"pool": "egress_lossy_pool", "size": "0",
                                                   "static_th": "100000"})
    cdb.hset("BUFFER_PROFILE|bad_dynamic", mapping={"pool": "egress_lossless_pool",
                                                    "size": "0", "dynamic_th": "0"})
    cdb.hset("BUFFER_QUEUE|Ethernet0|7", "profile", "bad_static")
    with caplog.at_level(logging.ERROR, logger="alphad.vswitch"):
        run(vs, 0.02, 0.0)
    text = caplog.text
    assert "BUFFER_PROFILE|bad_static: threshold mode static_th does not match mode " \
           "dynamic of pool egress_lossy_pool; rejected" in text
    assert "BUFFER_PROFILE|bad_dynamic: threshold mode dynamic_th does not match" in text
    assert not appl.exists("BUFFER_PROFILE_TABLE:bad_static")
    assert not appl.exists("BUFFER_QUEUE_TABLE:Ethernet0:7")
    assert vs.asic.get_k(i7) == k7
    # fixed by the operator: the pending entry goes through
    cdb.hdel("BUFFER_PROFILE|bad_static", "static_th")
    cdb.hset("BUFFER_PROFILE|bad_static", "dynamic_th", "1")
    run(vs, 0.02, 1.0)
    assert vs.asic.get_k(i7) == 1
    assert appl.hget("BUFFER_QUEUE_TABLE:Ethernet0:7", "profile") == "bad_static"


def test_out_of_range_dynamic_th_is_refused(vs: VSwitch, server: RedisServer) -> None:
    cdb = server.client(4)
    i0 = qidx(vs, "Ethernet0", 0)
    cdb.hset("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th", "7")  # vswitch th_max=5
    run(vs, 0.02, 0.0)
    assert vs.asic.get_k(i0) == 3
    assert not server.client(0).exists("BUFFER_PROFILE_TABLE:egress_lossy_profile")


def test_backend_clones_reach_the_asic_and_restore_exactly(vs: VSwitch, server: RedisServer,
                                                           tmp_path: Path) -> None:
    cdb, appl = server.client(4), server.client(0)
    before = (configdb.dump(cdb, ["BUFFER_*", "FLEX_COUNTER_TABLE*"]),
              configdb.dump(appl, APPL_PATTERNS))
    k_before = [vs.asic.get_k(i) for i in range(vs.asic.n)]
    be = SonicBackend(SonicConfig(type="sonic", redis=server.address,
                                  database_config=tmp_path / "none.json",
                                  journal=tmp_path / "j.json"))
    i = be.topo.find("Ethernet4", 1)
    be.apply(Changes(np.array([i]), np.array([0.25]), np.array([-2], dtype=np.int8)))
    run(vs, 0.02, 0.0)
    assert vs.asic.get_k(qidx(vs, "Ethernet4", 1)) == -2
    assert vs.asic.get_k(qidx(vs, "Ethernet4", 0)) == 3
    assert appl.hget("BUFFER_PROFILE_TABLE:alphad_Ethernet4_1", "dynamic_th") == "-2"
    assert appl.hget("BUFFER_QUEUE_TABLE:Ethernet4:1", "profile") == "alphad_Ethernet4_1"
    be.restore()
    run(vs, 0.02, 1.0)
    assert (configdb.dump(cdb, ["BUFFER_*", "FLEX_COUNTER_TABLE*"]),
            configdb.dump(appl, APPL_PATTERNS)) == before
    assert [vs.asic.get_k(i) for i in range(vs.asic.n)] == k_before


def test_redis_restart_without_data_sets_the_switch_up_again(vs: VSwitch,
                                                             server: RedisServer) -> None:
    t = run(vs, 0.6, 0.0)
    setups = vs.setups
    server.stop()
    server.start()  # empty: no persistence in this fixture
    assert not server.client(4).exists("CONFIG_DB_INITIALIZED")
    run(vs, 0.6, t)
    assert vs.setups == setups + 1
    assert server.client(4).exists("CONFIG_DB_INITIALIZED")  # config_db.json reloaded
    assert server.client(2).hlen("COUNTERS_QUEUE_NAME_MAP") == 32 * 8
    assert server.client(0).exists("BUFFER_PROFILE_TABLE:egress_lossy_profile")
    assert server.client(6).hget(READY_KEY, "status") == "ready"
    # notifications work again: a profile change reaches the ASIC
    server.client(4).hset("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th", "-1")
    run(vs, 0.05, t + 1.0)
    assert vs.asic.get_k(qidx(vs, "Ethernet0", 0)) == -1
