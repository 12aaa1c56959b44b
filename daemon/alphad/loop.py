"""The control loop: absolute deadlines, overrun counting, restore on exit.

Configuration changes (HTTP API, SIGHUP) are handed over with
:meth:`Daemon.request_config` and take effect between two cycles: the
Controller is rebuilt from the new settings while the backend stays.
"""

from __future__ import annotations

import dataclasses
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
    reconfigs: int = 0


@dataclass
class _Pending:
    cfg: Config
    applied: threading.Event


class Daemon:
    """Runs one Controller against one Backend until stopped."""

    def __init__(self, cfg: Config, backend: Backend, metrics: Metrics | None = None,
                 on_cycle: Callable[[Daemon], None] | None = None) -> None:
        self.cfg = cfg
        self.backend = backend
        self.topo = backend.topology()
        if cfg.switch_name:
            self.topo = dataclasses.replace(self.topo, switch=cfg.switch_name)
        self.controller = Controller.from_config(cfg, self.topo)
        self.interval = cfg.interval
        self.metrics = metrics
        self.on_cycle = on_cycle
        self.on_hangup: Callable[[], None] | None = None  # SIGHUP, run in its own thread
        self.stats = LoopStats()
        self.snapshot: QueueSnapshot | None = None
        self.failsafe = False
        self.failsafe_reason = ""
        self.started = time.monotonic()
        self.last_cycle: float | None = None  # time.monotonic() of the last completed cycle
        self._stop = threading.Event()
        self._pending: _Pending | None = None
        self._pending_lock = threading.Lock()
        self._last_sample: Any = None
        self.signum: int | None = None
        self._drops = np.zeros(self.topo.n)
        self._drop_pkts = np.zeros(self.topo.n)
        self._tx = np.zeros(self.topo.n)
        if metrics is not None:
            metrics.bind(self.topo.switch)
            metrics.set_interval(self.interval)

    # -- control -------------------------------------------------------------------
    def request_stop(self, signum: int | None = None) -> None:
        if signum is not None and self.signum is None:
            self.signum = signum
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def request_config(self, cfg: Config) -> threading.Event:
        """Use ``cfg`` from the next interval on (interval, scheme, priorities and
        alphas, quantizer, estimator; the backend stays). ``cfg`` must be valid
        (``parse_config`` and ``check_scheme``). The returned event is set once
        it is in effect; a later request replaces one not yet applied."""
        p = _Pending(cfg, threading.Event())
        with self._pending_lock:
            self._pending = p
        return p.applied

    def _apply_pending(self) -> None:
        if self._pending is None:  # the common case: no lock taken
            return
        with self._pending_lock:
            p, self._pending = self._pending, None
        if p is None:
            return
        try:
            ctrl = Controller.from_config(p.cfg, self.topo)
        except (ValueError, TypeError) as e:  # validated before; keep running regardless
            log.error("configuration not applied: %s", e)
            return
        if self._last_sample is not None:
            ctrl.estimator.update(self._last_sample)  # counter deltas continue across
        self.controller, self.cfg, self.interval = ctrl, p.cfg, p.cfg.interval
        self.stats.reconfigs += 1
        if self.metrics:
            self.metrics.set_interval(self.interval)
        log.info("configuration applied: scheme %s, interval %g ms, alphas %s",
                 ctrl.scheme_name, self.interval * 1e3,
                 ", ".join(f"{c.name}={c.alpha:g}" for c in p.cfg.priorities))
        p.applied.set()

    def set_failsafe(self, active: bool, reason: str = "") -> None:
        """Record (and export) whether the switch is held in its fail-safe state."""
        self.failsafe, self.failsafe_reason = active, reason if active else ""
        if self.metrics:
            self.metrics.set_failsafe(active)

    def cycle(self) -> None:
        """One interval: read, compute, write, publish."""
        self._apply_pending()
        m = self.metrics
        t0 = time.perf_counter()
        try:
            sample = self.backend.sample()
        except BackendError as e:
            if not e.transient:
                raise
            self.stats.read_errors += 1
            if m:
                m.count_backend_error("sample")
            log.warning("telemetry read failed: %s", e)
            return
        t1 = time.perf_counter()
        self._last_sample = sample
        if m:
            m.mark_sample()
        changes = self.controller.step(sample)
        t2 = time.perf_counter()
        if len(changes):
            try:
                self.backend.apply(changes)
                self.stats.writes += len(changes)
                if m:
                    m.count_writes(len(changes))
            except BackendError as e:
                self.stats.write_errors += 1
                if m:
                    m.count_write_error()
                if not e.transient:
                    raise
                log.warning("alpha write failed: %s", e)
        t3 = time.perf_counter()
        self.stats.intervals += 1
        self._publish(sample)
        if m:
            m.observe_cycle(t1 - t0, t2 - t1, t3 - t2)
        self.last_cycle = time.monotonic()
        if self.on_cycle is not None:
            self.on_cycle(self)

    def _publish(self, sample: Any) -> None:
        d = self.controller.last
        est = d.est if d else None
        if est is not None:
            self._drops += est.drop_delta
            self._drop_pkts += est.drop_pkt_delta
            self._tx += est.tx_delta
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
            drop_packets_total=self._drop_pkts.copy(),
            tx_total=self._tx.copy(),
            scheme=self.controller.scheme_name,
            interval=self.interval,
        )
        if self.metrics is not None:
            self.metrics.publish(self.snapshot)

    # -- run -----------------------------------------------------------------------
    def run(self, duration: float | None = None) -> int:
        """Run until stopped, a fatal error, or ``duration`` seconds (model time on
        a manual clock). Always restores the switch. Returns the exit code."""
        handlers = self._install_signals()
        rc = 0
        log.info("running: backend %s, %d queues (%d managed), scheme %s, interval %g ms",
                 getattr(self.backend, "name", "?"), self.topo.n,
                 int(self.controller.managed.sum()), self.controller.scheme_name,
                 self.interval * 1e3)
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
                    self.metrics.count_overrun()
                deadline += math.ceil((now - deadline) / self.interval) * self.interval
            if self._stop.wait(deadline - now):
                break

    def _run_manual(self, duration: float | None) -> None:
        advance = self.backend.advance  # type: ignore[attr-defined]
        elapsed = 0.0  # model seconds; the interval may change on the way
        while not self._stop.is_set():
            self._apply_pending()
            if duration is not None and elapsed > 0 and elapsed >= duration - self.interval / 2:
                break
            advance(self.interval)
            elapsed += self.interval
            self.cycle()

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
        if self.on_hangup is not None:
            hup = self.on_hangup  # reads files: not in the handler, not in the loop thread
            old[signal.SIGHUP] = signal.signal(
                signal.SIGHUP,
                lambda _s, _f: threading.Thread(target=hup, name="alphad-sighup",
                                                daemon=True).start())
        return old

    @staticmethod
    def _restore_signals(old: dict[int, Any]) -> None:
        for sig, h in old.items():
            signal.signal(sig, h)
