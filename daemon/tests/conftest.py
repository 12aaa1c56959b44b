from __future__ import annotations

import numpy as np
import pytest

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
