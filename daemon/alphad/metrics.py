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
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)

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


def _label(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _go(x: float) -> str:
    """A float as Prometheus' text format writes it."""
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "+Inf" if x > 0 else "-Inf"
    return repr(x)


def _values(a: np.ndarray) -> list[str]:
    v = np.asarray(a, dtype=np.float64)
    if np.isfinite(v).all():
        return list(map(float.__repr__, v.tolist()))
    return [_go(x) for x in v.tolist()]


# Per-queue families: (name, type, help, value of a snapshot or None when absent).
_QUEUE_FAMILIES: tuple[tuple[str, str, str, Callable[[QueueSnapshot], np.ndarray | None]], ...] = (
    ("alphad_queue_occupancy_bytes", "gauge", "Queue occupancy at the last read",
     lambda s: s.sample.occupancy),
    ("alphad_queue_watermark_bytes", "gauge",
     "Peak queue occupancy in the last interval (shared watermark)", lambda s: s.sample.watermark),
    ("alphad_queue_threshold_bytes", "gauge",
     "DT threshold alpha*(B-Q) with the interval's lowest free buffer", lambda s: s.threshold),
    ("alphad_queue_alpha", "gauge", "Alpha in effect on the queue", lambda s: s.sample.alpha),
    ("alphad_queue_log2_alpha", "gauge", "log2 of the alpha in effect (dynamic_th)",
     lambda s: s.log2_alpha),
    ("alphad_queue_target_alpha", "gauge", "Alpha the scheme asked for, before rounding",
     lambda s: s.target),
    ("alphad_queue_gamma", "gauge", "gamma = mu/b: normalized drain rate (ABM Eq. 9)",
     lambda s: s.gamma),
    ("alphad_queue_dropped_bytes_total", "counter",
     "Bytes dropped, over the intervals alphad saw", lambda s: s.drops_total),
    ("alphad_queue_dropped_packets_total", "counter",
     "Packets dropped, over the intervals alphad saw", lambda s: s.drop_packets_total),
    ("alphad_queue_transmitted_bytes_total", "counter",
     "Bytes sent, over the intervals alphad saw", lambda s: s.tx_total),
)


class _SnapshotText:
    """Renders the latest snapshot in Prometheus' text format, directly.

    prometheus-client's generic path costs ~15 us per sample; here the label
    sets are built once per (topology, classes) and a sample is one f-string,
    so a scrape of a 512-queue switch stays in the low milliseconds.
    """

    def __init__(self) -> None:
        self.snapshot: QueueSnapshot | None = None
        self._key: tuple[object, object] | None = None
        self._labels: list[str] = []

    def _queue_labels(self, s: QueueSnapshot) -> list[str]:
        if self._key is None or self._key[0] is not s.topo or self._key[1] is not s.classes:
            t, c = s.topo, s.classes
            sw = _label(t.switch)
            ports = [_label(p) for p in t.ports]
            prios = [_label(n) for n in c.names]
            self._labels = [
                f'{{port="{ports[p]}",priority="{prios[pr] if pr >= 0 else ""}",'
                f'queue="{q}",switch="{sw}"}}'
                for p, q, pr in zip(t.queue_port.tolist(), t.queue_index.tolist(),
                                    c.prio.tolist(), strict=True)]
            self._key = (s.topo, s.classes)
        return self._labels

    def render(self) -> str:
        s = self.snapshot
        if s is None:
            return ""
        out: list[str] = []
        labels = self._queue_labels(s)
        for name, kind, doc, get in _QUEUE_FAMILIES:
            values = get(s)
            if values is None:
                continue
            out.append(f"# HELP {name} {doc}\n# TYPE {name} {kind}\n")
            out.extend(f"{name}{lab} {v}\n" for lab, v in zip(labels, _values(values),
                                                                strict=True))
        sw = _label(s.topo.switch)
        names = [_label(n) for n in s.classes.names]

        def per_priority(name: str, doc: str, values: np.ndarray) -> None:
            out.append(f"# HELP {name} {doc}\n# TYPE {name} gauge\n")
            out.extend(f'{name}{{priority="{n}",switch="{sw}"}} {v}\n'
                       for n, v in zip(names, _values(values), strict=True))

        def one(name: str, doc: str, value: float, extra: str = "") -> None:
            out.append(f"# HELP {name} {doc}\n# TYPE {name} gauge\n"
                       f'{name}{{{extra}switch="{sw}"}} {_go(float(value))}\n')

        if s.n_p is not None:
            per_priority("alphad_priority_congested_queues",
                         "n_p: congested queues of the priority, switch-wide (ABM Eq. 9)", s.n_p)
        per_priority("alphad_priority_alpha", "alpha_p: the operator's alpha of the priority",
                     s.classes.alpha_p)
        sm = s.sample
        one("alphad_pool_size_bytes", "Size B of the shared buffer pool", s.topo.buffer_bytes)
        if sm.pool_occupancy is not None:
            one("alphad_pool_occupancy_bytes", "Shared pool occupancy at the last read",
                sm.pool_occupancy)
        if sm.pool_watermark is not None:
            one("alphad_pool_watermark_bytes", "Peak shared pool occupancy in the last interval",
                sm.pool_watermark)
        one("alphad_scheme_info", "Buffer-management scheme in use", 1.0,
            f'scheme="{_label(s.scheme)}",')
        one("alphad_sample_timestamp_seconds", "Time of the last sample on the backend's clock",
            sm.t)
        return "".join(out)


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
        self._queues = _SnapshotText()  # per-queue series, rendered at scrape time
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

    def exposition(self) -> bytes:
        """The full scrape, Prometheus text format 0.0.4."""
        return generate_latest(self.registry) + self._queues.render().encode()

    def serve(self, host: str, port: int) -> ThreadingHTTPServer:
        """Serve /metrics over HTTP in a background thread (``metrics.listen``)."""
        metrics = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.split("?")[0] not in ("/", "/metrics"):
                    self.send_error(404)
                    return
                body = metrics.exposition()
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE_LATEST)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: object) -> None:
                pass

        server = ThreadingHTTPServer((host, port), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, name="alphad-metrics",
                         daemon=True).start()
        return server
