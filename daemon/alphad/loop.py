"""The control loop: absolute deadlines, overrun counting, restore on exit."""

from __future__ import annotations

import logging
import math
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alphad.backends.base import Backend, BackendError, FatalBackendError
from alphad.config import Config
from alphad.controller import Controller
from alphad.metrics import Metrics, QueueSnapshot

__all__ = ["Daemon", "LoopStats"]

log = logging.getLogger("alphad")


@dataclass
class LoopStats:
    intervals: int = 0
    overruns: int = 0
    writes: int = 0
    write_errors: int = 0
    read_errors: int = 0
    restored: bool = False
    restore_seconds: float = 0.0


class Daemon:
    """Runs one Controller against one Backend until stopped."""

    def __init__(self, cfg: Config, backend: Backend, metrics: Metrics | None = None,
                 on_cycle: Callable[[Daemon], None] | None = None) -> None:
        self.cfg = cfg
        self.backend = backend
        self.topo = backend.topology()
        self.controller = Controller.from_config(cfg, self.topo)
        self.interval = cfg.interval
        self.metrics = metrics
        self.on_cycle = on_cycle
        self.stats = LoopStats()
        self.snapshot: QueueSnapshot | None = None
        self._stop = threading.Event()
        self.signum: int | None = None
        self._drops = np.zeros(self.topo.n)
        if metrics is not None:
            metrics.interval.set(self.interval)

    # -- control -------------------------------------------------------------------
    def request_stop(self, signum: int | None = None) -> None:
        if signum is not None and self.signum is None:
            self.signum = signum
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def cycle(self) -> None:
        """One interval: read, compute, write, publish."""
        m = self.metrics
        t0 = time.perf_counter()
        try:
            sample = self.backend.sample()
        except BackendError as e:
            if not e.transient:
                raise
            self.stats.read_errors += 1
            if m:
                m.backend_errors.labels("sample").inc()
            log.warning("telemetry read failed: %s", e)
            return
        t1 = time.perf_counter()
        changes = self.controller.step(sample)
        t2 = time.perf_counter()
        if len(changes):
            try:
                self.backend.apply(changes)
                self.stats.writes += len(changes)
                if m:
                    m.writes.inc(len(changes))
            except BackendError as e:
                self.stats.write_errors += 1
                if m:
                    m.write_errors.inc()
                    m.backend_errors.labels("apply").inc()
                if not e.transient:
                    raise
                log.warning("alpha write failed: %s", e)
        t3 = time.perf_counter()
        self.stats.intervals += 1
        self._publish(sample)
        if m:
            m.loop_duration.labels("read").observe(t1 - t0)
            m.loop_duration.labels("compute").observe(t2 - t1)
            m.loop_duration.labels("write").observe(t3 - t2)
            m.loop_duration.labels("total").observe(t3 - t0)
            m.intervals.inc()
            m.telemetry_age.set(time.perf_counter() - t1)
        if self.on_cycle is not None:
            self.on_cycle(self)

    def _publish(self, sample: Any) -> None:
        d = self.controller.last
        est = d.est if d else None
        if est is not None:
            self._drops += est.drop_delta
            threshold = est.threshold
        else:
            free = self.topo.buffer_bytes - (sample.pool_watermark or 0.0)
            threshold = sample.alpha * max(free, 0.0)
        self.snapshot = QueueSnapshot(
            topo=self.topo,
            classes=self.controller.classes,
            sample=sample,
            threshold=threshold,
            target=d.target if d else sample.alpha,
            gamma=est.gamma if est is not None else None,
            n_p=est.n_p if est is not None else None,
            drops_total=self._drops.copy(),
        )
        if self.metrics is not None:
            self.metrics.publish(self.snapshot)

    # -- run -----------------------------------------------------------------------
    def run(self, duration: float | None = None) -> int:
        """Run until stopped, a fatal error, or ``duration`` seconds (model time on
        a manual clock). Always restores the switch. Returns the exit code."""
        handlers = self._install_signals()
        rc = 0
        try:
            if getattr(self.backend, "manual", False):
                self._run_manual(duration)
            else:
                self._run_realtime(duration)
        except FatalBackendError as e:
            log.error("stopping: %s", e)
            rc = 1
        finally:
            if not self._restore():
                rc = rc or 1
            self._restore_signals(handlers)
        if self.signum is not None and rc == 0:
            rc = 128 + self.signum
        return rc

    def _run_realtime(self, duration: float | None) -> None:
        start = deadline = time.monotonic()
        while not self._stop.is_set():
            self.cycle()
            deadline += self.interval
            now = time.monotonic()
            if duration is not None and now - start >= duration:
                break
            if now > deadline:
                self.stats.overruns += 1
                if self.metrics:
                    self.metrics.overruns.inc()
                deadline += math.ceil((now - deadline) / self.interval) * self.interval
            if self._stop.wait(deadline - now):
                break

    def _run_manual(self, duration: float | None) -> None:
        advance = self.backend.advance  # type: ignore[attr-defined]
        n = None if duration is None else max(1, round(duration / self.interval))
        i = 0
        while not self._stop.is_set() and (n is None or i < n):
            advance(self.interval)
            self.cycle()
            i += 1

    def _restore(self) -> bool:
        t0 = time.monotonic()
        try:
            self.backend.restore()
            self.stats.restored = True
            return True
        except BackendError as e:
            log.error("restore failed: %s", e)
            return False
        finally:
            self.stats.restore_seconds = time.monotonic() - t0

    def _install_signals(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}
        old = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, lambda s, _f: self.request_stop(s))
        return old

    @staticmethod
    def _restore_signals(old: dict[int, Any]) -> None:
        for sig, h in old.items():
            signal.signal(sig, h)
