"""All of alphad's Prometheus metrics, declared in one place.

Per-queue series are rendered at scrape time from the latest state snapshot
(a custom collector), so the control loop pays nothing per queue for them.
The registry is injectable for tests.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from alphad import __version__
from alphad.model import Classes, Sample, Topology

__all__ = ["Metrics", "QueueSnapshot"]

LOOP_BUCKETS = (25e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 25e-3, 50e-3,
                0.1, 0.25, 0.5, 1.0, 2.5)


@dataclass
class QueueSnapshot:
    """The latest per-queue state, swapped in atomically by the loop."""

    topo: Topology
    classes: Classes
    sample: Sample
    threshold: np.ndarray  # bytes: alpha * (B - Q) with the interval's lowest free buffer
    target: np.ndarray  # scheme's target alpha
    gamma: np.ndarray | None
    n_p: np.ndarray | None
    drops_total: np.ndarray  # cumulative dropped bytes seen by alphad


class _QueueCollector(Collector):
    def __init__(self) -> None:
        self.snapshot: QueueSnapshot | None = None
        self.switch = ""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        s = self.snapshot
        if s is None:
            return
        topo, sm = s.topo, s.sample
        labels = ["switch", "port", "queue", "priority"]
        names = [topo.ports[p] for p in topo.queue_port]
        prio = [s.classes.names[p] if p >= 0 else "" for p in s.classes.prio]
        rows = list(zip(names, topo.queue_index.tolist(), prio, strict=True))

        def fam(name: str, doc: str, values: np.ndarray) -> GaugeMetricFamily:
            g = GaugeMetricFamily(name, doc, labels=labels)
            for (port, q, pr), v in zip(rows, values.tolist(), strict=True):
                g.add_metric([topo.switch, port, str(q), pr], v)
            return g

        yield fam("alphad_queue_watermark_bytes",
                  "Peak queue occupancy in the last interval (shared watermark)", sm.watermark)
        if sm.occupancy is not None:
            yield fam("alphad_queue_occupancy_bytes", "Queue occupancy at the last read",
                      sm.occupancy)
        yield fam("alphad_queue_threshold_bytes",
                  "DT threshold alpha*(B-Q) with the interval's lowest free buffer", s.threshold)
        yield fam("alphad_queue_alpha", "Alpha in effect on the queue", sm.alpha)
        yield fam("alphad_queue_log2_alpha", "log2 of the alpha in effect (dynamic_th)",
                  np.rint(np.log2(np.maximum(sm.alpha, 1e-300))))
        yield fam("alphad_queue_target_alpha", "Alpha the scheme asked for, before rounding",
                  s.target)
        if s.gamma is not None:
            yield fam("alphad_queue_gamma", "Normalized drain rate (tx rate / port speed)",
                      s.gamma)
        d = GaugeMetricFamily("alphad_queue_dropped_bytes",
                              "Bytes dropped, summed over the intervals alphad observed",
                              labels=labels)
        for (port, q, pr), v in zip(rows, s.drops_total.tolist(), strict=True):
            d.add_metric([topo.switch, port, str(q), pr], v)
        yield d
        if s.n_p is not None:
            g = GaugeMetricFamily("alphad_priority_congested_queues",
                                  "n_p: congested queues of the priority, switch-wide",
                                  labels=["switch", "priority"])
            for name, v in zip(s.classes.names, s.n_p.tolist(), strict=True):
                g.add_metric([topo.switch, name], v)
            yield g
        pool = GaugeMetricFamily("alphad_pool_bytes", "Shared pool size and occupancy",
                                 labels=["switch", "kind"])
        pool.add_metric([topo.switch, "size"], topo.buffer_bytes)
        if sm.pool_occupancy is not None:
            pool.add_metric([topo.switch, "occupancy"], sm.pool_occupancy)
        if sm.pool_watermark is not None:
            pool.add_metric([topo.switch, "watermark"], sm.pool_watermark)
        yield pool


class Metrics:
    """Daemon-wide metrics. Pass ``registry`` to isolate them (tests)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.loop_duration = Histogram(
            "alphad_loop_duration_seconds",
            "Time of one control cycle (read + compute + write)",
            ["phase"], buckets=LOOP_BUCKETS, registry=r)
        self.overruns = Counter("alphad_loop_overruns_total",
                                "Cycles that ended after their deadline", registry=r)
        self.intervals = Counter("alphad_loop_intervals_total", "Control cycles run", registry=r)
        self.writes = Counter("alphad_actuation_writes_total", "Per-queue alpha writes",
                              registry=r)
        self.write_errors = Counter("alphad_actuation_errors_total", "Failed alpha writes",
                                    registry=r)
        self.backend_errors = Counter("alphad_backend_errors_total", "Failed backend calls",
                                      ["op"], registry=r)
        self.telemetry_age = Gauge("alphad_telemetry_age_seconds",
                                   "Age of the newest telemetry sample", registry=r)
        self.interval = Gauge("alphad_interval_seconds", "Configured control interval",
                              registry=r)
        self.build = Info("alphad_build", "alphad build information", registry=r)
        self.build.info({"version": __version__})
        self._queues = _QueueCollector()
        r.register(self._queues)
        self._lock = threading.Lock()

    def publish(self, snap: QueueSnapshot) -> None:
        self._queues.snapshot = snap  # atomic reference swap

    def serve(self, host: str, port: int) -> object:
        """Serve /metrics over HTTP in a background thread."""
        from prometheus_client import start_http_server

        return start_http_server(port, addr=host, registry=self.registry)
