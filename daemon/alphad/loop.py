"""The control loop: absolute deadlines, overrun counting, restore on exit.

Configuration changes (HTTP API, SIGHUP) are handed over with
:meth:`Daemon.request_config` and take effect between two cycles: the
Controller is rebuilt from the new settings while the backend stays.

Between the controller and the backend sit the write limits (:mod:`alphad.limits`)
and the fail-safe (:mod:`alphad.failsafe`): while it is engaged every managed queue
is held on its baseline alpha, whatever the scheme says.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alphad._wake import hangups, pipe, wake
from alphad.backends.base import Backend, BackendError, FatalBackendError
from alphad.baseline import BaselineError, check_overrides, describe
from alphad.config import Config
from alphad.controller import Controller
from alphad.failsafe import FailSafe, FailsafeParams, telemetry_period
from alphad.limits import Limiter, LimitParams
from alphad.metrics import Metrics, QueueSnapshot
from alphad.model import Changes

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
    failsafe_entries: int = 0
    failsafe_intervals: int = 0  # intervals spent in the fail-safe
    deferred_writes: int = 0  # held back by the rate limit or the write budget
    implausible: int = 0  # samples refused as implausible


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
        # the alpha every queue had before alphad (backends that know it; else the first
        # sample's): alpha_p of the classes without an override, and the fail-safe's target
        self._baseline = _baseline(backend)
        problems = check_overrides(cfg, self.topo, self._baseline)
        if problems:
            raise BaselineError("; ".join(problems))
        for line in describe(cfg, self.topo, self._baseline):
            log.info("%s", line)
        self._strict_q = _strict_queues(backend)
        self.controller = Controller.from_config(cfg, self.topo, self._baseline,
                                                 self._strict_q)
        cl = self.controller.classes
        if cl.strict and all(p.strict is None for p in cfg.priorities):
            log.info("strict priority, from the switch's schedulers: %s", ", ".join(
                f"class {n} rank {r}" for n, r in zip(cl.names, cl.strict, strict=True)
                if r is not None))
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
        self._signalled = False  # SIGINT/SIGTERM seen: set by the handler, which takes no lock
        self._wake: tuple[int, int] | None = None  # pipe the loop sleeps on (main thread)
        self._hup_w = -1  # write end of the SIGHUP thread's pipe
        self._pending: _Pending | None = None
        self._pending_lock = threading.Lock()
        self._last_sample: Any = None
        self.signum: int | None = None
        self._drops = np.zeros(self.topo.n)
        self._drop_pkts = np.zeros(self.topo.n)
        self._tx = np.zeros(self.topo.n)
        self.limiter = _limiter(cfg, self.topo.n)
        self.fs = FailSafe(self.topo, _fs_params(cfg), self.interval,
                           telemetry_period(backend))
        self._pow2 = cfg.quantize.mode == "pow2"
        self._known_alpha: np.ndarray | None = None  # alpha in effect after the last cycle
        self._model_t = 0.0  # model seconds elapsed (manual clock)
        self._warned: dict[str, float] = {}
        if metrics is not None:
            metrics.bind(self.topo.switch)
            metrics.set_interval(self.interval)
        self._tell_interval()
        attach = getattr(backend, "attach", None)  # backends with a configuration of their own
        if attach is not None:
            attach(self)

    # -- control -------------------------------------------------------------------
    def request_stop(self, signum: int | None = None) -> None:
        """Stop after the current cycle; from any thread, never from a signal handler."""
        if signum is not None and self.signum is None:
            self.signum = signum
        self._stop.set()
        self._poke()

    def _on_signal(self, signum: int, _frame: object) -> None:
        """SIGINT/SIGTERM. Python runs this in the main thread between two bytecodes,
        possibly while that thread holds the lock inside ``Event.wait``: ``Event.set``
        here could deadlock, so only a flag and a byte down the wake pipe."""
        if self.signum is None:
            self.signum = signum
        self._signalled = True
        self._poke()

    def _poke(self) -> None:
        w = self._wake
        if w is not None:
            wake(w[1])

    def _sleep(self, seconds: float) -> bool:
        """Wait up to ``seconds``; True once a stop is requested."""
        w = self._wake
        if w is None:
            return self._stop.wait(seconds)
        if not self.stopping:
            select.select([w[0]], [], [], max(seconds, 0.0))
        return self.stopping

    @property
    def stopping(self) -> bool:
        return self._signalled or self._stop.is_set()

    def request_config(self, cfg: Config) -> threading.Event:
        """Use ``cfg`` from the next interval on (interval, scheme, priorities and
        alphas, quantizer, estimator; the backend stays). ``cfg`` must be valid
        (``parse_config`` and ``check_scheme``). The returned event is set once
        it is in effect; a later request replaces one not yet applied."""
        p = _Pending(cfg, threading.Event())
        with self._pending_lock:
            self._pending = p
        return p.applied

    def check_baseline(self, cfg: Config) -> list[str]:
        """Errors of ``cfg``'s alpha overrides against the switch's own alphas."""
        return check_overrides(cfg, self.topo, self._baseline)

    def _apply_pending(self) -> None:
        if self._pending is None:  # the common case: no lock taken
            return
        with self._pending_lock:
            p, self._pending = self._pending, None
        if p is None:
            return
        try:
            ctrl = Controller.from_config(p.cfg, self.topo, self._baseline, self._strict_q)
        except (ValueError, TypeError) as e:  # validated before; keep running regardless
            log.error("configuration not applied: %s", e)
            return
        if self._last_sample is not None:
            ctrl.estimator.update(self._last_sample)  # counter deltas continue across
        limiter = _limiter(p.cfg, self.topo.n)
        limiter.take_state(self.limiter)
        self.controller, self.cfg, self.interval = ctrl, p.cfg, p.cfg.interval
        self.limiter = limiter
        self._pow2 = p.cfg.quantize.mode == "pow2"
        self.stats.reconfigs += 1
        if self.metrics:
            self.metrics.set_interval(self.interval)
        self._tell_interval()
        log.info("configuration applied: scheme %s, interval %g ms, alphas %s",
                 ctrl.scheme_name, self.interval * 1e3,
                 ", ".join(f"{c.name}={'own' if c.alpha is None else f'{c.alpha:g}'}"
                           for c in p.cfg.priorities))
        p.applied.set()

    def set_failsafe(self, active: bool, reason: str = "") -> None:
        """Record (and export) whether the switch is held in its fail-safe state."""
        self.failsafe, self.failsafe_reason = active, reason if active else ""
        if self.metrics:
            self.metrics.set_failsafe(active)

    def _tell_interval(self) -> None:
        """Backends that refresh their telemetry on their own clock follow alphad's."""
        hook = getattr(self.backend, "set_interval", None)
        if hook is not None:
            try:
                hook(self.interval)
            except BackendError as e:
                log.warning("backend: cannot follow the interval %g s: %s", self.interval, e)
        self.fs.set_interval(self.interval, telemetry_period(self.backend))

    def _now(self) -> float:
        """The loop's clock: model seconds on a manual clock, else monotonic seconds."""
        return self._model_t if getattr(self.backend, "manual", False) else time.monotonic()

    def cycle(self) -> None:
        """One interval: read, check, compute, limit, write, publish."""
        self._apply_pending()
        m = self.metrics
        fs = self.fs
        now = self._now()
        t0 = time.perf_counter()
        try:
            sample = self.backend.sample()
        except BackendError as e:
            if not e.transient:
                raise
            self.stats.read_errors += 1
            if m:
                m.count_backend_error("sample")
            self._warn("read", "telemetry read failed: %s", e)
            self._transition(fs.failed(f"telemetry read failed: {e}", now))
            if fs.active:
                self.stats.failsafe_intervals += 1
                self._write(self._to_baseline(None), None)
            return
        t1 = time.perf_counter()
        self._last_sample = sample
        if m:
            m.mark_sample()
        changes = _NO_CHANGES
        problem = fs.check_sample(sample, now)
        if problem is None:
            changes = self.controller.step(sample)
            d = self.controller.last
            if d is not None and d.est is not None:
                problem = fs.check_estimates(d.est)
        if problem is not None:
            if problem.startswith("implausible"):
                self.stats.implausible += 1
                self._warn("implausible", "%s; interval skipped", problem)
            self.controller.reset()  # no counter delta across a distrusted sample
            self._transition(fs.trip(problem))
        if fs.active:
            self.stats.failsafe_intervals += 1
            changes = self._to_baseline(sample.alpha)
        else:
            before = self.limiter.deferred
            changes = self.limiter(changes, sample.alpha, sample.t)
            self.stats.deferred_writes += self.limiter.deferred - before
        t2 = time.perf_counter()
        ok = self._write(changes, sample.alpha)
        t3 = time.perf_counter()
        if ok and problem is None:
            self._transition(fs.succeeded())
        self.stats.intervals += 1
        self._publish(sample)
        if m:
            m.observe_cycle(t1 - t0, t2 - t1, t3 - t2)
        self.last_cycle = time.monotonic()
        if self.on_cycle is not None:
            self.on_cycle(self)

    def _write(self, changes: Changes, alpha: np.ndarray | None) -> bool:
        """Apply ``changes``; remember the alpha in effect. False if the write failed."""
        if alpha is not None:
            self._known_alpha = alpha
        if not len(changes):
            return True
        m = self.metrics
        try:
            self.backend.apply(changes)
        except BackendError as e:
            self.stats.write_errors += 1
            if m:
                m.count_write_error()
            if not e.transient:
                raise
            self._warn("write", "alpha write failed: %s", e)
            self._transition(self.fs.failed(f"alpha write failed: {e}", self._now()))
            return False
        self.stats.writes += len(changes)
        if m:
            m.count_writes(len(changes))
        if self._known_alpha is not None:
            known = self._known_alpha.copy()
            known[changes.idx] = changes.alpha
            self._known_alpha = known
        return True

    def _to_baseline(self, alpha: np.ndarray | None) -> Changes:
        """Writes that put every manageable queue back on its baseline alpha."""
        cur = alpha if alpha is not None else self._known_alpha
        if self._baseline is None and cur is not None and alpha is not None:
            self._baseline = alpha.copy()  # no write has happened before the first sample
        base = self._baseline
        if base is None or cur is None:
            return _NO_CHANGES
        diff = cur != base
        if self.topo.managed is not None:
            diff &= self.topo.managed
        idx = np.flatnonzero(diff)
        a = base[idx]
        return Changes(idx, a, np.rint(np.log2(a)).astype(np.int8) if self._pow2 else None)

    def _transition(self, changed: bool) -> None:
        if not changed:
            return
        fs = self.fs
        if fs.active:
            self.stats.failsafe_entries += 1
            log.warning("fail-safe: %s; every managed queue goes back to its baseline alpha",
                        fs.reason)
        else:
            log.warning("fail-safe over: %d healthy intervals; scheme %s resumes",
                        fs.p.recover_intervals, self.controller.scheme_name)
            self._warned.clear()
        self.set_failsafe(fs.active, fs.reason)

    def _warn(self, tag: str, msg: str, *args: Any) -> None:
        """A warning at most every 10 s per kind (a failing backend fails every interval)."""
        now = time.monotonic()
        last = self._warned.get(tag)
        if last is None or now - last >= 10.0:
            self._warned[tag] = now
            log.warning(msg, *args)

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
        while not self.stopping:
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
            if self._sleep(deadline - now):
                break

    def _run_manual(self, duration: float | None) -> None:
        advance = self.backend.advance  # type: ignore[attr-defined]
        elapsed = 0.0  # model seconds; the interval may change on the way
        while not self.stopping:
            self._apply_pending()
            if duration is not None and elapsed > 0 and elapsed >= duration - self.interval / 2:
                break
            advance(self.interval)
            elapsed += self.interval
            self._model_t = elapsed
            self.cycle()

    def _restore(self, attempts: int = 4, pause: float = 0.1) -> bool:
        """Put the switch back; a transient failure is retried (restore is idempotent)
        while the exit stays within about a second."""
        t0 = time.monotonic()
        try:
            for i in range(attempts):
                try:
                    self.backend.restore()
                    self.stats.restored = True
                    return True
                except BackendError as e:
                    last = i == attempts - 1 or not e.transient
                    if last:
                        log.error("restore failed: %s", e)
                        return False
                    log.warning("restore failed (%s); trying again", e)
                    time.sleep(pause)
            return False
        finally:
            self.stats.restore_seconds = time.monotonic() - t0

    def _install_signals(self) -> dict[int, Any]:
        """Handlers that take no lock (see ``_on_signal``): SIGINT/SIGTERM set a flag and
        wake the loop; SIGHUP wakes a thread that re-reads the files."""
        if threading.current_thread() is not threading.main_thread():
            return {}
        self._wake = pipe()
        old = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, self._on_signal)
        if self.on_hangup is not None:
            hup_r, self._hup_w = pipe(blocking_read=True)
            threading.Thread(target=hangups, args=(hup_r, self.on_hangup),
                             name="alphad-sighup", daemon=True).start()
            hup_w = self._hup_w
            old[signal.SIGHUP] = signal.signal(signal.SIGHUP, lambda _s, _f: wake(hup_w))
        return old

    def _restore_signals(self, old: dict[int, Any]) -> None:
        for sig, h in old.items():
            signal.signal(sig, h)
        fds = [*(self._wake or ()), self._hup_w]
        self._wake, self._hup_w = None, -1
        for fd in fds:
            if fd >= 0:
                os.close(fd)  # the SIGHUP thread sees end-of-file and ends


_NO_CHANGES = Changes(np.zeros(0, dtype=np.int64), np.zeros(0))


def _limiter(cfg: Config, n: int) -> Limiter:
    from alphad.quantize import Quantizer

    q, lim = cfg.quantize, cfg.limits
    return Limiter(n, Quantizer(q.mode, q.kmin, q.kmax, q.hysteresis),
                   LimitParams(lim.max_step, lim.queue_min_interval, lim.write_budget))


def _fs_params(cfg: Config) -> FailsafeParams:
    f = cfg.failsafe
    return FailsafeParams(f.stale_intervals, f.min_stale, f.error_intervals,
                          f.recover_intervals, f.max_line_rate, f.max_fill)


def _strict_queues(backend: Backend) -> np.ndarray | None:
    """Which queues the switch serves in strict priority (backends that know)."""
    f = getattr(backend, "strict_queues", None)
    return None if f is None else np.asarray(f(), dtype=bool)


def _baseline(backend: Backend) -> np.ndarray | None:
    """The alpha every queue had before alphad (backends that know it)."""
    k = getattr(backend, "original_k", None)
    if k is None:
        return None
    return np.exp2(np.asarray(k, dtype=np.float64))
