"""SYNTHETIC traffic: a small packet-level shared-buffer switch in Python.

This is not the ns-3 harness. It exists so that the trace replay and the P4 model's
stateful machinery (egress records, SYNC rounds, n_p / active / remaining registers) can
be exercised before real ns-3 traces exist. Traces it writes carry ``# source=synthetic``.

One switch, ``ports`` output ports with ``queues_per_port`` queues each, round-robin
dequeue at line rate, open-loop arrivals: long "bulk" flows on the bulk queues (each flow's
first ``unsched_bytes`` marked first-RTT) and incast bursts (``fanin`` senders at line rate
each) on the query queue. Admission is decided either by the exact scheme in floating point
(:func:`simulate` with ``p4=None``; writes the trace) or by the P4 pipeline model
(``p4=Pipeline``), with the egress/SYNC/ghost updates the hardware would perform.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from . import reference
from .pipeline import Pipeline

__all__ = ["SynthConfig", "SynthResult", "arrivals", "simulate"]


@dataclass(frozen=True)
class SynthConfig:
    scheme: str = "abm"
    ports: int = 4
    queues_per_port: int = 4
    priorities: tuple[tuple[str, tuple[int, ...], float], ...] = (
        ("bulk", (0, 1, 2), 0.5), ("query", (3,), 8.0))
    alpha_unsched: float | None = 64.0
    cong_frac: float = 0.9
    admit_rule: str = "fit"
    pool_bytes: int = 300_000
    rate_bytes_per_ns: float = 1.25          # 10 Gb/s
    mtu: int = 1500
    duration_ns: int = 3_000_000
    bulk_load: tuple[float, float] = (0.4, 1.6)
    """Offered bulk load per port, drawn uniformly from this range (x line rate)."""
    flow_mean_bytes: int = 200_000
    unsched_bytes: int = 6_000
    incasts_per_ms: float = 2.0
    fanin: int = 32
    incast_bytes_per_sender: int = 12_000
    seed: int = 1

    def priority_of(self, queue: int) -> int:
        for i, (_, qs, _) in enumerate(self.priorities):
            if queue in qs:
                return i
        raise ValueError(f"queue {queue} has no priority")


@dataclass
class SynthResult:
    rows: list[tuple[object, ...]] = field(default_factory=list)
    offered: np.ndarray = field(default_factory=lambda: np.zeros(0))
    dropped: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Per priority, packets."""
    tm_dropped: int = 0
    """Packets the P4 admitted but the full pool refused (traffic-manager tail drop)."""
    meta: dict[str, str] = field(default_factory=dict)


def arrivals(cfg: SynthConfig) -> list[tuple[int, int, int, int, int]]:
    """(t_ns, port, queue, bytes, unsched) sorted by time; deterministic in ``cfg.seed``."""
    rng = np.random.default_rng(cfg.seed)
    out: list[tuple[int, int, int, int, int]] = []
    tx_ns = cfg.mtu / cfg.rate_bytes_per_ns
    bulk_qs = cfg.priorities[0][1]
    for port in range(cfg.ports):
        load = rng.uniform(*cfg.bulk_load)
        for q in bulk_qs:
            t = float(rng.uniform(0, tx_ns))
            gap = tx_ns / (load / len(bulk_qs))
            while t < cfg.duration_ns:
                size = max(cfg.mtu, int(rng.exponential(cfg.flow_mean_bytes)))
                sent = 0
                while sent < size and t < cfg.duration_ns:
                    out.append((int(t), port, q, cfg.mtu, int(sent < cfg.unsched_bytes)))
                    sent += cfg.mtu
                    t += rng.exponential(gap)
    query_q = cfg.priorities[-1][1][0]
    n_bursts = rng.poisson(cfg.incasts_per_ms * cfg.duration_ns / 1e6)
    for start in np.sort(rng.uniform(0, cfg.duration_ns * 0.9, n_bursts)):
        port = int(rng.integers(cfg.ports))
        for _ in range(cfg.fanin):
            t = start + rng.uniform(0, tx_ns)
            for k in range(math.ceil(cfg.incast_bytes_per_sender / cfg.mtu)):
                out.append((int(t + k * tx_ns), port, query_q, cfg.mtu,
                            int(k * cfg.mtu < cfg.unsched_bytes)))
    out.sort()
    return out


def simulate(cfg: SynthConfig, p4: Pipeline | None = None, *, cell_bytes: int = 1,
             sync_ns: int = 10_000, qidx_of: dict[tuple[int, int], int] | None = None
             ) -> SynthResult:
    """Run the switch; admission by the exact scheme or by the pipeline ``p4``."""
    if p4 is not None and qidx_of is None:
        raise ValueError("qidx_of (port, queue) -> qidx is required with a pipeline")
    nq = cfg.ports * cfg.queues_per_port
    qlen = np.zeros(nq, dtype=np.int64)            # bytes
    units = np.zeros(nq, dtype=np.int64)           # buffer units as the TM counts them
    fifo: list[deque[tuple[int, int, int]]] = [deque() for _ in range(nq)]  # (bytes, units, cong)
    alpha = np.array([cfg.priorities[cfg.priority_of(i % cfg.queues_per_port)][2]
                      for i in range(nq)])
    prio = np.array([cfg.priority_of(i % cfg.queues_per_port) for i in range(nq)])
    n_prev = np.zeros(len(cfg.priorities), dtype=np.int64)
    occ = 0
    rr = [0] * cfg.ports
    busy = [False] * cfg.ports
    events: list[tuple[float, int, int]] = []       # (time, kind 0=departure, port)
    res = SynthResult(offered=np.zeros(len(cfg.priorities), dtype=np.int64),
                      dropped=np.zeros(len(cfg.priorities), dtype=np.int64))
    next_sync = sync_ns

    def start_tx(port: int, now: float) -> None:
        for k in range(cfg.queues_per_port):
            q = port * cfg.queues_per_port + (rr[port] + k) % cfg.queues_per_port
            if fifo[q]:
                rr[port] = (q % cfg.queues_per_port + 1) % cfg.queues_per_port
                heapq.heappush(events, (now + fifo[q][0][0] / cfg.rate_bytes_per_ns, 0, q))
                busy[port] = True
                return
        busy[port] = False

    def depart(q: int, now: float) -> None:
        nonlocal occ
        size, u, cong = fifo[q].popleft()
        qlen[q] -= size
        units[q] -= u
        occ -= size
        if p4 is not None and qidx_of is not None:
            idx = qidx_of[(q // cfg.queues_per_port, q % cfg.queues_per_port)]
            p4.egress(idx, int(units[q]), cong)
            if p4.ghost:
                p4.ghost_update(idx, int(units[q]))
        start_tx(q // cfg.queues_per_port, now)

    for t, port, queue, size, unsched in arrivals(cfg):
        while events and events[0][0] <= t:
            when, _, q = heapq.heappop(events)
            depart(q, when)
        while p4 is not None and qidx_of is not None and next_sync <= t:
            for idx in sorted(set(qidx_of.values())):   # one packet-generator batch
                p4.sync(idx)
            next_sync += sync_ns
        q = port * cfg.queues_per_port + queue
        pr = int(prio[q])
        res.offered[pr] += 1
        u = -(-size // cell_bytes)
        if p4 is None:
            rem = cfg.pool_bytes - occ
            acts = np.repeat((qlen.reshape(cfg.ports, -1) > 0).sum(axis=1), cfg.queues_per_port)
            act = int(acts[q])
            gamma = 1.0 / max(act, 1)                # round robin share (FB 5.1)
            thr_all = reference.threshold(cfg.scheme, alpha, 1.0 / np.maximum(acts, 1),
                                          n_prev[prio], rem)
            congested = (qlen > 0) & (qlen >= cfg.cong_frac * thr_all) & (prio == pr)
            n_p = int(congested.sum())
            n_prev[pr] = n_p
            thr = float(reference.threshold(cfg.scheme, alpha[q], gamma, n_p, rem, unsched,
                                            cfg.alpha_unsched))
            ok = bool(reference.admit(cfg.admit_rule, qlen[q], size, thr, rem))
            res.rows.append((t, "s0", port, queue, cfg.priorities[pr][0], size, int(qlen[q]),
                             occ, cfg.pool_bytes, n_p, act, gamma, float(alpha[q]), unsched,
                             int(ok), thr))
            cong = 0
        else:
            adm = p4.ingress(port, queue, unsched, size)
            # the traffic manager itself never holds more than the pool
            ok, cong = adm.admit and occ + size <= cfg.pool_bytes, adm.thr_cong
            res.tm_dropped += int(adm.admit and not ok)
        if not ok:
            res.dropped[pr] += 1
            continue
        fifo[q].append((size, u, cong))
        qlen[q] += size
        units[q] += u
        occ += size
        if p4 is not None and p4.ghost and qidx_of is not None:
            p4.ghost_update(qidx_of[(port, queue)], int(units[q]))
        if not busy[port]:
            start_tx(port, t)
    res.meta = {"source": "synthetic", "scheme": cfg.scheme, "admit_rule": cfg.admit_rule,
                "alpha_unsched": "none" if cfg.alpha_unsched is None else str(cfg.alpha_unsched),
                "seed": str(cfg.seed)}
    return res
