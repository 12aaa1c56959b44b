"""Checks of a Config that need more than its schema (shared by run and check-config)."""

from __future__ import annotations

import numpy as np

from alphad.config import Config
from alphad.controller import Controller
from alphad.model import Topology

__all__ = ["check_scheme", "synthetic_topology"]


def synthetic_topology(cfg: Config, ports: int = 2) -> Topology:
    """A small topology that has every queue index the priorities name."""
    nq = max(q for p in cfg.priorities for q in p.queues) + 1
    names = tuple(cfg.ports or [f"Ethernet{4 * i}" for i in range(ports)])
    return Topology(
        ports=names,
        port_speed_bps=np.full(len(names), 10e9),
        queue_port=np.repeat(np.arange(len(names), dtype=np.int32), nq),
        queue_index=np.tile(np.arange(nq, dtype=np.int32), len(names)),
        buffer_bytes=1e6,
    )


def check_scheme(cfg: Config) -> str | None:
    """Build the scheme once; its parameter errors come back as one message."""
    try:
        topo = synthetic_topology(cfg)
        Controller.from_config(cfg, topo, np.ones(topo.n))  # any switch's own alphas
    except (ValueError, TypeError) as e:
        return f"scheme_params: {e}"
    return None
