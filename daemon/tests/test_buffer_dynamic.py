"""SONiC's dynamic buffer model (``buffer_model: dynamic``) on the virtual switch and a
real redis-server: pools without size in CONFIG_DB, sizes published by buffermgrd in
APPL_DB/STATE_DB ``BUFFER_POOL_TABLE``, generated lossless profiles, admin-down ports
on zero profiles; alphad discovers, manages and restores it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from alphad_vswitch import configdb
from alphad_vswitch.dynamic import MGMT_POOL_BYTES, pool_sizes
from alphad_vswitch.redisproc import RedisServer
from alphad_vswitch.switch import VSwitch
from conftest import start_vswitch

from alphad.backends.base import FatalBackendError
from alphad.backends.sonic import SonicBackend, SonicConfig
from alphad.config import parse_config
from alphad.loop import Daemon
from alphad.model import Changes

ROOT = Path(__file__).resolve().parents[2]
DYNAMIC_JSON = ROOT / "configs" / "sonic" / "config_db_dynamic.json"
TRAFFIC = "greedy port=Ethernet0 queue=0,1 rate_gbps=100 stop_ms=300\n"


@pytest.fixture
def vs(tmp_path: Path, server: RedisServer) -> Iterator[VSwitch]:
    v = start_vswitch(tmp_path, server, DYNAMIC_JSON, TRAFFIC)
    yield v
    v.close()


def step(v: VSwitch, n: int = 3) -> None:
    t = v.ticks * 0.01
    for _ in range(n):
        t += 0.01
        v.step(advance_ns=10_000_000, now=t)


def backend(server: RedisServer, tmp_path: Path) -> SonicBackend:
    return SonicBackend(SonicConfig(type="sonic", redis=server.address,
                                    database_config=tmp_path / "absent.json",
                                    journal=tmp_path / "state" / "j.json"))


def test_pool_size_as_buffermgrd_computes_it() -> None:
    cfg = configdb.load_config_db(DYNAMIC_JSON)
    sizes = pool_sizes(cfg)
    assert set(sizes) == {"egress_lossy_pool", "ingress_lossless_pool"}
    # 31 admin-up ports: queues 0-2, 5-6 at 9216 bytes (3-4 and ingress lossy: 0 bytes),
    # lossless PGs 3-4 on generated profiles (23 ports at 5 m: 18432 + 37936 bytes, 8 at
    # 40 m: 18432 + 55121 bytes)
    queues = 31 * 5 * 9216
    pgs = 2 * (8 * (18432 + 37936 + 35 * 491) + 23 * (18432 + 37936))
    assert sizes["egress_lossy_pool"] == 13945824 - MGMT_POOL_BYTES - queues - pgs


def test_vswitch_publishes_what_buffermgrd_publishes(vs: VSwitch, server: RedisServer) -> None:
    appl, state = server.client(0), server.client(6)
    size = str(vs.shape.pool_bytes)
    want = {"type": "egress", "mode": "dynamic", "size": size}
    assert appl.hgetall("BUFFER_POOL_TABLE:egress_lossy_pool") == want
    assert state.hgetall("BUFFER_POOL_TABLE|egress_lossy_pool") == want
    assert server.client(4).hget("BUFFER_POOL|egress_lossy_pool", "size") is None
    assert appl.hgetall("BUFFER_PROFILE_TABLE:pg_lossless_100000_5m_profile")["xoff"] == "37936"
    assert state.exists("BUFFER_PROFILE_TABLE|pg_lossless_100000_40m_profile")
    # one APPL_DB key per port; the admin-down port's queues on the zero profile
    assert appl.hget("BUFFER_QUEUE_TABLE:Ethernet0:0-2", "profile") == "egress_lossy_profile"
    assert appl.hget("BUFFER_QUEUE_TABLE:Ethernet124:0-2", "profile") == \
        "egress_lossy_zero_profile"
    assert int(vs.buffers.k[vs.asic.index[(vs.shape.ports.index("Ethernet124"), 0)]]) == -8


def test_alphad_manages_the_dynamic_model(vs: VSwitch, server: RedisServer, tmp_path: Path,
                                          caplog: pytest.LogCaptureFixture) -> None:
    cdb = server.client(4)
    before = configdb.dump(cdb, ["BUFFER_*"])
    with caplog.at_level(logging.INFO, logger="alphad.sonic"):
        be = backend(server, tmp_path)
    topo = be.topology()
    assert topo.buffer_bytes == vs.shape.pool_bytes  # from STATE_DB, not CONFIG_DB
    assert "from STATE_DB BUFFER_POOL_TABLE|egress_lossy_pool" in caplog.text
    assert "port Ethernet124 is admin down" in caplog.text
    assert "Ethernet124" not in topo.ports and topo.n == 31 * 5
    assert np.all(be.original_k == 7)
    i = topo.find("Ethernet0", 0)
    be.apply(Changes(np.array([i]), np.array([0.5]), np.array([-1], dtype=np.int8)))
    step(vs)
    assert server.client(0).hget("BUFFER_PROFILE_TABLE:alphad_Ethernet0_0", "dynamic_th") == "-1"
    assert int(vs.buffers.k[vs.asic.index[(0, 0)]]) == -1
    # buffermgrd splits the per-queue keys per port as well
    assert server.client(0).hget("BUFFER_QUEUE_TABLE:Ethernet0:0", "profile") == \
        "alphad_Ethernet0_0"
    be.restore()
    step(vs)
    assert configdb.dump(cdb, ["BUFFER_*"]) == before
    assert int(vs.buffers.k[vs.asic.index[(0, 0)]]) == 7
    be.close()


def test_daemon_on_the_dynamic_model_keeps_the_switch_alphas(vs: VSwitch, server: RedisServer,
                                                             tmp_path: Path) -> None:
    be = backend(server, tmp_path)
    cfg = parse_config("interval: 100ms\nscheme: dt\npriorities:\n"
                       "  - {name: bulk, queues: [0, 1, 2]}\n  - {name: q, queues: [5, 6]}\n"
                       "backend: {type: sonic}\nmetrics: {enabled: false}\n")
    d = Daemon(cfg, be)
    for _ in range(3):
        step(vs, 10)
        d.cycle()
    assert d.stats.writes == 0 and d.stats.read_errors == 0
    assert np.all(d.controller.classes.alpha_q() == 128.0)
    be.close()


def test_refusals_name_the_real_reason(server: RedisServer, tmp_path: Path) -> None:
    """buffermgrd not running: no size anywhere. The error says so, not 'unknown pool'."""
    cfg = configdb.load_config_db(DYNAMIC_JSON)
    configdb.write_config_db(server.client(4), cfg)
    c2 = server.client(2)
    c2.hset("COUNTERS_QUEUE_NAME_MAP", mapping={f"Ethernet{4 * i}:{q}": f"oid:0x{i}{q}"
                                                for i in range(32) for q in range(8)})
    with pytest.raises(FatalBackendError) as e:
        backend(server, tmp_path)
    msg = str(e.value)
    assert "pool 'egress_lossy_pool': BUFFER_POOL|egress_lossy_pool has no size in CONFIG_DB " \
           "and buffermgrd has not published one in STATE_DB/APPL_DB BUFFER_POOL_TABLE" in msg
    assert "unknown pool" not in msg


def test_gnmi_backend_reads_the_pool_size_buffermgrd_published(server: RedisServer,
                                                               tmp_path: Path) -> None:
    """The same switch through its gNMI server: B from STATE_DB BUFFER_POOL_TABLE."""
    import threading

    from alphad_vswitch_gnmi.auth import Credentials
    from alphad_vswitch_gnmi.server import GnmiServer, ServerOptions

    from alphad.config import parse_config as parse
    from alphad.gnmi.backend import GnmiBackend

    traffic = tmp_path / "traffic.scn"
    traffic.write_text(TRAFFIC)
    v = VSwitch(DYNAMIC_JSON, server.address, traffic)
    t = threading.Thread(target=v.run, daemon=True)
    t.start()
    srv = GnmiServer(v.layout, ServerOptions(min_sample_interval=0.1, state_dir=tmp_path),
                     Credentials(None), None).start()
    try:
        c4 = server.client(4)
        for g in ("QUEUE", "QUEUE_WATERMARK", "BUFFER_POOL_WATERMARK"):
            c4.hset(f"FLEX_COUNTER_TABLE|{g}", mapping={"POLL_INTERVAL": "100",
                                                        "FLEX_COUNTER_STATUS": "enable"})
        cfg = parse(f"priorities:\n  - {{name: a, queues: [0, 1, 2, 5, 6]}}\n"
                    f"backend: {{type: gnmi, address: '127.0.0.1:{srv.port}', insecure: true, "
                    f"sample_interval: 200ms, journal: '{tmp_path}/gj.json', timeout: 3s}}\n")
        be = GnmiBackend(cfg.backend)
        try:
            assert be.topology().buffer_bytes == v.shape.pool_bytes
            assert be.disc.pool.size_from == "STATE_DB BUFFER_POOL_TABLE|egress_lossy_pool"
            assert "Ethernet124" not in be.topology().ports
        finally:
            be.close()
    finally:
        srv.stop(0.2)
        v.stop_event.set()
        t.join(5)
        v.close()
