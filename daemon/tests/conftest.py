from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from alphad_vswitch.redisproc import RedisServer
from alphad_vswitch.switch import VSwitch

import alphad.schemes.superseded  # noqa: F401  (their tests, and `auto18` against them)
from alphad.model import Sample, Topology


def make_topology(ports: int = 4, queues: int = 8, speed: float = 10e9,
                  buffer_bytes: float = 1e6) -> Topology:
    return Topology(
        ports=tuple(f"Ethernet{4 * i}" for i in range(ports)),
        port_speed_bps=np.full(ports, speed),
        queue_port=np.repeat(np.arange(ports, dtype=np.int32), queues),
        queue_index=np.tile(np.arange(queues, dtype=np.int32), ports),
        buffer_bytes=buffer_bytes,
    )


def make_sample(topo: Topology, t: float, tx: np.ndarray | None = None,
                wm: np.ndarray | None = None, alpha: float | np.ndarray = 0.5,
                pool_wm: float | None = None, drops: np.ndarray | None = None) -> Sample:
    n = topo.n
    z = np.zeros(n, dtype=np.uint64)
    return Sample(
        t=t,
        watermark=np.zeros(n) if wm is None else np.asarray(wm, dtype=np.float64),
        tx_bytes=z.copy() if tx is None else np.asarray(tx, dtype=np.uint64),
        tx_packets=z.copy(),
        drop_bytes=z.copy() if drops is None else np.asarray(drops, dtype=np.uint64),
        drop_packets=z.copy(),
        alpha=np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n,)).copy(),
        pool_watermark=pool_wm,
    )


@pytest.fixture
def topo() -> Topology:
    return make_topology()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server on a unix socket of its own (SONiC's DBs)."""
    s = RedisServer(tmp_path / "redis")
    s.start()
    yield s
    s.stop()


def start_vswitch(tmp_path: Path, server: RedisServer, config_db: Path, traffic: str,
                  **kw: object) -> VSwitch:
    """The virtual SONiC switch on ``server`` with ``traffic``, its first step taken."""
    scn = tmp_path / "traffic.scn"
    scn.write_text(traffic)
    v = VSwitch(config_db, server.address, scn, **kw)  # type: ignore[arg-type]
    v.step(advance_ns=0, now=0.0)
    return v
