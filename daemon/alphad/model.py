"""Data model shared by backends, estimators and schemes.

Everything per queue is a numpy array indexed by the queue's position in the
:class:`Topology`, which a backend builds once per connection. Schemes never
see a backend and backends never see a scheme: they meet here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Changes", "Classes", "Sample", "Topology"]

U64 = np.uint64


@dataclass(frozen=True)
class Topology:
    """Ports and egress queues of one switch, and its shared pool.

    Queue identity is ``(port_name, queue_index)``; arrays are ordered by
    port, then queue index.
    """

    ports: tuple[str, ...]
    port_speed_bps: np.ndarray  # float64 [n_ports]
    queue_port: np.ndarray  # int32 [n] -> index into ports
    queue_index: np.ndarray  # int32 [n] queue index within its port
    buffer_bytes: float  # B, size of the shared pool the queues draw from
    switch: str = "switch"
    managed: np.ndarray | None = None  # bool [n]; None = every queue can be managed

    def __post_init__(self) -> None:
        n = len(self.queue_port)
        if len(self.queue_index) != n:
            raise ValueError("queue_port and queue_index differ in length")
        if len(self.port_speed_bps) != len(self.ports):
            raise ValueError("port_speed_bps and ports differ in length")
        if n and (self.queue_port.min() < 0 or self.queue_port.max() >= len(self.ports)):
            raise ValueError("queue_port refers to an unknown port")
        if self.buffer_bytes <= 0:
            raise ValueError("buffer_bytes must be > 0")

    @property
    def n(self) -> int:
        return len(self.queue_port)

    @property
    def n_ports(self) -> int:
        return len(self.ports)

    @property
    def queue_speed_bps(self) -> np.ndarray:
        """Speed of each queue's port (float64 [n])."""
        return self.port_speed_bps[self.queue_port]

    @property
    def queues_per_port(self) -> np.ndarray:
        """Number of queues of each queue's port (int [n])."""
        counts = np.bincount(self.queue_port, minlength=self.n_ports)
        return counts[self.queue_port]

    def key(self, i: int) -> tuple[str, int]:
        return self.ports[int(self.queue_port[i])], int(self.queue_index[i])

    def keys(self) -> list[tuple[str, int]]:
        return [self.key(i) for i in range(self.n)]

    def find(self, port: str, queue: int) -> int:
        """Position of queue ``(port, queue)``; KeyError if unknown."""
        try:
            p = self.ports.index(port)
        except ValueError:
            raise KeyError(f"unknown port {port!r}") from None
        hit = np.flatnonzero((self.queue_port == p) & (self.queue_index == queue))
        if hit.size == 0:
            raise KeyError(f"port {port!r} has no queue {queue}")
        return int(hit[0])


@dataclass(frozen=True)
class Classes:
    """Traffic classes (ABM's priorities) mapped onto a topology.

    ``prio[q]`` is the priority of queue q (-1: not managed). ``alpha_p`` is the
    operator's alpha of each priority; ``group`` maps a priority to the FB
    priority group over which N_p is counted (by default each priority is its
    own group).
    """

    names: tuple[str, ...]
    alpha_p: np.ndarray  # float64 [P]
    prio: np.ndarray  # int32 [n], -1 = unmanaged
    group: np.ndarray  # int32 [P] -> group id
    group_names: tuple[str, ...] = ()
    # alpha_p of each queue [n] when it differs within a class (the switch's own alpha
    # per queue, for a class without an override); None: alpha_p[prio]
    alpha_base: np.ndarray | None = None
    # each priority's strict-priority rank (served before larger ranks and before every
    # priority without one, which share the rest); () or None: no strict priority
    strict: tuple[int | None, ...] = ()

    @property
    def n_prio(self) -> int:
        return len(self.names)

    def ahead(self) -> np.ndarray:
        """[P, P] bool: priority a is served before priority c on a port (``[a, c]``)."""
        P = self.n_prio
        r = [self.strict[i] if i < len(self.strict) else None for i in range(P)]
        return np.array([[ra is not None and (rc is None or ra < rc) for rc in r] for ra in r],
                        dtype=bool).reshape(P, P)

    @property
    def n_groups(self) -> int:
        return int(self.group.max()) + 1 if len(self.group) else 0

    @property
    def managed(self) -> np.ndarray:
        return self.prio >= 0

    def alpha_q(self) -> np.ndarray:
        """alpha_p of each queue's priority (0 for unmanaged queues)."""
        out = np.zeros(len(self.prio))
        m = self.prio >= 0
        out[m] = self.alpha_p[self.prio[m]] if self.alpha_base is None else self.alpha_base[m]
        return out


@dataclass
class Sample:
    """One interval's telemetry, as a real switch exposes it.

    Counters are cumulative (uint64) and may reset or wrap; ``watermark`` is the
    peak occupancy since the previous read (read-and-clear), never per-packet
    state. ``occupancy`` and the pool's current occupancy are optional because
    SONiC does not poll them by default. ``alpha`` is the alpha in effect on
    each queue when the sample was taken.
    """

    t: float  # seconds, backend clock (model time for a virtual switch)
    watermark: np.ndarray  # float64 [n] bytes, peak since last read
    tx_bytes: np.ndarray  # uint64 [n] cumulative
    tx_packets: np.ndarray  # uint64 [n]
    drop_bytes: np.ndarray  # uint64 [n]
    drop_packets: np.ndarray  # uint64 [n]
    alpha: np.ndarray  # float64 [n] alpha in effect
    occupancy: np.ndarray | None = None  # float64 [n] bytes, current (optional)
    pool_watermark: float | None = None  # bytes, peak since last read
    pool_occupancy: float | None = None  # bytes, current
    extra: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Changes:
    """Alpha writes for a subset of queues.

    ``k`` holds log2 alpha when the hardware takes 2^k (None when alpha is
    continuous, e.g. in simulation).
    """

    idx: np.ndarray  # int [m] queue positions
    alpha: np.ndarray  # float64 [m]
    k: np.ndarray | None = None  # int8 [m]

    def __len__(self) -> int:
        return len(self.idx)
