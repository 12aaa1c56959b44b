"""All of alphad's Prometheus metrics, declared in one place.

Per-queue series are rendered at scrape time from the latest state snapshot
(a custom collector), so the control loop pays nothing per queue for them.
Every series carries the ``switch`` label so that one Prometheus can hold a
fleet. Names and units follow the Prometheus conventions: base units
(``_bytes``, ``_seconds``), ``_total`` for counters, ``_info`` for constant
metadata. The registry is injectable for tests.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from alphad import __version__
from alphad.model import Classes, Sample, Topology

__all__ = ["PHASES", "Metrics", "QueueSnapshot"]

LOOP_BUCKETS = (25e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 25e-3, 50e-3,
                0.1, 0.25, 0.5, 1.0, 2.5)
PHASES = ("read", "compute", "write", "total")


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
    drop_packets_total: np.ndarray | None = None  # cumulative dropped packets seen by alphad
    tx_total: np.ndarray | None = None  # cumulative transmitted bytes seen by alphad
    scheme: str = ""
    interval: float = 0.0

    @property
    def log2_alpha(self) -> np.ndarray:
        """log2 of the alpha in effect (SONiC dynamic_th)."""
        return np.rint(np.log2(np.maximum(self.sample.alpha, 1e-300)))


class _QueueCollector(Collector):
    def __init__(self) -> None:
        self.snapshot: QueueSnapshot | None = None

    def collect(self) -> Iterator[Metric]:
        s = self.snapshot
        if s is None:
            return
        topo, sm = s.topo, s.sample
        sw = topo.switch
        labels = ["switch", "port", "queue", "priority"]
        names = [topo.ports[p] for p in topo.queue_port]
        prio = [s.classes.names[p] if p >= 0 else "" for p in s.classes.prio]
        rows = [[sw, port, str(q), pr] for port, q, pr in
                zip(names, topo.queue_index.tolist(), prio, strict=True)]

        def fam(name: str, doc: str, values: np.ndarray, counter: bool = False) -> Metric:
            g: Metric = (CounterMetricFamily(name, doc, labels=labels) if counter
                         else GaugeMetricFamily(name, doc, labels=labels))
            for row, v in zip(rows, values.tolist(), strict=True):
                g.add_metric(row, v)  # type: ignore[attr-defined]
            return g

        if sm.occupancy is not None:
            yield fam("alphad_queue_occupancy_bytes", "Queue occupancy at the last read",
                      sm.occupancy)
        yield fam("alphad_queue_watermark_bytes",
                  "Peak queue occupancy in the last interval (shared watermark)", sm.watermark)
        yield fam("alphad_queue_threshold_bytes",
                  "DT threshold alpha*(B-Q) with the interval's lowest free buffer", s.threshold)
        yield fam("alphad_queue_alpha", "Alpha in effect on the queue", sm.alpha)
        yield fam("alphad_queue_log2_alpha", "log2 of the alpha in effect (dynamic_th)",
                  s.log2_alpha)
        yield fam("alphad_queue_target_alpha", "Alpha the scheme asked for, before rounding",
                  s.target)
        if s.gamma is not None:
            yield fam("alphad_queue_gamma",
                      "gamma = mu/b: normalized drain rate (ABM Eq. 9)", s.gamma)
        yield fam("alphad_queue_dropped_bytes", "Bytes dropped, over the intervals alphad saw",
                  s.drops_total, counter=True)
        if s.drop_packets_total is not None:
            yield fam("alphad_queue_dropped_packets",
                      "Packets dropped, over the intervals alphad saw", s.drop_packets_total,
                      counter=True)
        if s.tx_total is not None:
            yield fam("alphad_queue_transmitted_bytes",
                      "Bytes sent, over the intervals alphad saw", s.tx_total, counter=True)
        if s.n_p is not None:
            g = GaugeMetricFamily("alphad_priority_congested_queues",
                                  "n_p: congested queues of the priority, switch-wide (ABM Eq. 9)",
                                  labels=["switch", "priority"])
            for name, v in zip(s.classes.names, s.n_p.tolist(), strict=True):
                g.add_metric([sw, name], v)
            yield g
        a = GaugeMetricFamily("alphad_priority_alpha", "alpha_p: the operator's alpha of the "
                              "priority", labels=["switch", "priority"])
        for name, v in zip(s.classes.names, s.classes.alpha_p.tolist(), strict=True):
            a.add_metric([sw, name], v)
        yield a
        yield _one("alphad_pool_size_bytes", "Size B of the shared buffer pool", sw,
                   topo.buffer_bytes)
        if sm.pool_occupancy is not None:
            yield _one("alphad_pool_occupancy_bytes", "Shared pool occupancy at the last read",
                       sw, sm.pool_occupancy)
        if sm.pool_watermark is not None:
            yield _one("alphad_pool_watermark_bytes",
                       "Peak shared pool occupancy in the last interval", sw, sm.pool_watermark)
        info = GaugeMetricFamily("alphad_scheme_info", "Buffer-management scheme in use",
                                 labels=["switch", "scheme"])
        info.add_metric([sw, s.scheme], 1.0)
        yield info
        yield _one("alphad_sample_timestamp_seconds",
                   "Time of the last sample on the backend's clock", sw, sm.t)


def _one(name: str, doc: str, switch: str, value: float) -> GaugeMetricFamily:
    g = GaugeMetricFamily(name, doc, labels=["switch"])
    g.add_metric([switch], value)
    return g


class Metrics:
    """Daemon-wide metrics. Pass ``registry`` to isolate them (tests).

    The loop calls :meth:`bind` once it knows the switch's name, then the
    ``observe_*``/``count_*`` methods; nothing is exported before ``bind``
    except the build info.
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        disable_created_metrics()  # no *_created series: noise for dashboards and alerts
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        sw = ["switch"]
        self.loop_duration = Histogram(
            "alphad_loop_duration_seconds",
            "Time of one control cycle and of its phases (read, compute, write)",
            [*sw, "phase"], buckets=LOOP_BUCKETS, registry=r)
        self.overruns = Counter("alphad_loop_overruns_total",
                                "Cycles that ended after their deadline", sw, registry=r)
        self.intervals = Counter("alphad_loop_intervals_total", "Control cycles run", sw,
                                 registry=r)
        self.writes = Counter("alphad_actuation_writes_total", "Per-queue alpha writes", sw,
                              registry=r)
        self.write_errors = Counter("alphad_actuation_errors_total", "Failed alpha writes", sw,
                                    registry=r)
        self.backend_errors = Counter("alphad_backend_errors_total", "Failed backend calls",
                                      [*sw, "op"], registry=r)
        self.telemetry_age = Gauge("alphad_telemetry_age_seconds",
                                   "Time since alphad last read the switch's telemetry", sw,
                                   registry=r)
        self.interval = Gauge("alphad_interval_seconds", "Configured control interval", sw,
                              registry=r)
        self.failsafe = Gauge("alphad_failsafe_active",
                              "1 while alphad holds the switch in its fail-safe configuration",
                              sw, registry=r)
        self.reloads = Counter("alphad_config_reloads_total",
                               "Configuration changes received at run time",
                               [*sw, "source", "result"], registry=r)
        self.build = Gauge("alphad_build_info", "alphad build information (constant 1)",
                           ["version"], registry=r)
        self.build.labels(__version__).set(1)
        ProcessCollector(registry=r)  # process_cpu_seconds_total, process_resident_memory_bytes
        self._queues = _QueueCollector()
        r.register(self._queues)
        self.switch: str | None = None
        self._last_sample = math.nan

    def bind(self, switch: str) -> None:
        """Create this switch's series (all zero until something happens)."""
        self.switch = switch
        self._phase = {p: self.loop_duration.labels(switch, p) for p in PHASES}
        self._overruns = self.overruns.labels(switch)
        self._intervals = self.intervals.labels(switch)
        self._writes = self.writes.labels(switch)
        self._write_errors = self.write_errors.labels(switch)
        for op in ("sample", "apply"):
            self.backend_errors.labels(switch, op)
        self.telemetry_age.labels(switch).set_function(self._age)
        self._failsafe = self.failsafe.labels(switch)
        self._failsafe.set(0)
        for src in ("api", "sighup"):
            for res in ("applied", "rejected"):
                self.reloads.labels(switch, src, res)

    def _age(self) -> float:
        return time.monotonic() - self._last_sample

    # -- what the loop reports ---------------------------------------------------
    def observe_cycle(self, read: float, compute: float, write: float) -> None:
        self._phase["read"].observe(read)
        self._phase["compute"].observe(compute)
        self._phase["write"].observe(write)
        self._phase["total"].observe(read + compute + write)
        self._intervals.inc()

    def mark_sample(self) -> None:
        """Telemetry was read just now."""
        self._last_sample = time.monotonic()

    def count_writes(self, n: int) -> None:
        self._writes.inc(n)

    def count_write_error(self) -> None:
        self._write_errors.inc()
        self.count_backend_error("apply")

    def count_backend_error(self, op: str) -> None:
        self.backend_errors.labels(self.switch, op).inc()

    def count_overrun(self) -> None:
        self._overruns.inc()

    def count_reload(self, source: str, applied: bool) -> None:
        self.reloads.labels(self.switch, source, "applied" if applied else "rejected").inc()

    def set_interval(self, seconds: float) -> None:
        self.interval.labels(self.switch).set(seconds)

    def set_failsafe(self, active: bool) -> None:
        self._failsafe.set(1 if active else 0)

    def publish(self, snap: QueueSnapshot) -> None:
        self._queues.snapshot = snap  # atomic reference swap

    def serve(self, host: str, port: int) -> object:
        """Serve /metrics over HTTP in a background thread."""
        from prometheus_client import start_http_server

        return start_http_server(port, addr=host, registry=self.registry)
