"""What users of SONiC's own watermark commands see while alphad runs, on the virtual
switch (flex counters, the watermark plugin's USER/PERSISTENT/PERIODIC tables and
WATERMARK_CLEAR_REQUEST as orchagent handles it) and a real redis-server.

- ``show queue watermark`` (USER_WATERMARKS) and ``show queue persistent-watermark``
  (PERSISTENT_WATERMARKS) keep their meaning: the peak since the last clear, merged
  from every poll, now every 100 ms instead of 60 s.
- ``sonic-clear queue watermark`` zeroes USER_WATERMARKS only; alphad reads COUNTERS and
  is not affected, and the user's clear is not undone.
- ``counterpoll`` shows alphad's interval while it runs and the original after; an
  interval someone changes while alphad runs is kept at exit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from alphad_vswitch.redisproc import RedisServer
from alphad_vswitch.switch import VSwitch
from conftest import start_vswitch

from alphad.backends.sonic import SonicBackend, SonicConfig

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DB_JSON = ROOT / "configs" / "sonic" / "config_db.json"
TRAFFIC = """
greedy port=Ethernet0 queue=0,1 rate_gbps=100
onoff port=Ethernet4 queue=5 rate_gbps=60 on_ms=2 off_ms=8
greedy port=Ethernet8 queue=0 rate_gbps=100
"""
WM = "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"
WM_POLL = "FLEX_COUNTER_TABLE|QUEUE_WATERMARK"


@pytest.fixture
def vs(tmp_path: Path, server: RedisServer) -> Iterator[VSwitch]:
    v = start_vswitch(tmp_path, server, CONFIG_DB_JSON, TRAFFIC)
    yield v
    v.close()


class Clock:
    def __init__(self, v: VSwitch) -> None:
        self.v, self.t = v, 0.0

    def run(self, seconds: float, dt: float = 0.01) -> None:
        for _ in range(round(seconds / dt)):
            self.t += dt
            self.v.step(advance_ns=round(dt * 1e9), now=self.t)


def backend(server: RedisServer, tmp_path: Path) -> SonicBackend:
    return SonicBackend(SonicConfig(type="sonic", redis=server.address,
                                    database_config=tmp_path / "absent.json",
                                    journal=tmp_path / "state" / "j.json", poll_interval=0.1))


def oid_of(server: RedisServer, name: str) -> str:
    return str(server.client(2).hget("COUNTERS_QUEUE_NAME_MAP", name))


def table(server: RedisServer, t: str, oid: str) -> int:
    return int(server.client(2).hget(f"{t}:{oid}", WM) or 0)


def test_show_queue_watermark_keeps_its_meaning(vs: VSwitch, server: RedisServer,
                                                tmp_path: Path) -> None:
    clock = Clock(vs)
    be = backend(server, tmp_path)
    cdb = server.client(4)
    assert cdb.hget(WM_POLL, "POLL_INTERVAL") == "60000"
    be.sample()  # alphad sets the poll interval
    assert cdb.hget(WM_POLL, "POLL_INTERVAL") == "100"  # what `counterpoll show` shows
    seen = np.zeros(be.topology().n)
    for _ in range(20):
        clock.run(0.1)
        seen = np.maximum(seen, be.sample().watermark)
    i = be.topology().find("Ethernet0", 0)
    oid = oid_of(server, "Ethernet0:0")
    assert seen[i] > 0
    # USER and PERSISTENT: the peak of every poll since the last clear (max-merged), the
    # same peaks alphad read one interval at a time
    user, persistent = table(server, "USER_WATERMARKS", oid), \
        table(server, "PERSISTENT_WATERMARKS", oid)
    assert user == persistent >= seen[i]
    # sonic-clear queue watermark: USER only, and alphad reads on unaffected
    counters = table(server, "COUNTERS", oid)
    server.client(0).publish("WATERMARK_CLEAR_REQUEST", json.dumps(["USER", "Q_SHARED_UNI"]))
    vs.step(advance_ns=0, now=clock.t)
    assert vs.clears == 1
    assert table(server, "USER_WATERMARKS", oid) == 0
    assert table(server, "PERSISTENT_WATERMARKS", oid) == persistent
    assert table(server, "COUNTERS", oid) == counters
    assert be.sample().watermark[i] == counters
    clock.run(0.1)  # the next poll merges into the cleared table: the clear is not undone
    after = table(server, "USER_WATERMARKS", oid)
    assert 0 < after <= persistent
    be.restore()
    assert cdb.hget(WM_POLL, "POLL_INTERVAL") == "60000"
    be.close()


def test_an_operator_poll_interval_is_kept_at_exit(vs: VSwitch, server: RedisServer,
                                                   tmp_path: Path) -> None:
    clock = Clock(vs)
    be = backend(server, tmp_path)
    be.sample()
    clock.run(0.1)
    cdb = server.client(4)
    cdb.hset(WM_POLL, "POLL_INTERVAL", "10000")  # counterpoll watermark interval 10000
    clock.run(0.1)
    be.sample()
    be.restore()
    assert cdb.hget(WM_POLL, "POLL_INTERVAL") == "10000"
    assert cdb.hget("FLEX_COUNTER_TABLE|QUEUE", "POLL_INTERVAL") is None  # original: unset
    be.close()
