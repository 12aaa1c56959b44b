"""Backend ``sim``: the switches of an ns-3 simulation (ns3-harness), in lock step.

The ns-3 program (``alphad-ns3-sim --scheme=external --cosim=1``) writes, every
interval of simulated time, one snapshot per switch on its stdout — what a
real switch exposes: the peak of each queue since the previous read
(read-and-clear), cumulative tx/drop counters, the alpha in effect, the pool's
occupancy and peak — and blocks until it reads the alphas back on its stdin.
The record format is in ``ns3-harness/doc/cosim.md``.

:class:`CosimSession` owns the process and speaks the protocol;
:class:`SimBackend` is the :class:`~alphad.backends.base.Backend` of one of its
switches (the daemon's loop drives it on a manual clock); :func:`cosimulate`
runs one unmodified :class:`~alphad.controller.Controller` per simulated switch.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from alphad.backends.base import ConfigPath, FatalBackendError, TransientBackendError
from alphad.model import Changes, Sample, Topology

__all__ = [
    "CONFIGS",
    "CosimSession",
    "CosimStats",
    "SimBackend",
    "SimBackendConfig",
    "SimulationFinished",
    "cosimulate",
    "find_program",
    "open_backend",
    "switch_identity",
]

PROTOCOL = "alphad-ns3-cosim"
VERSION = 1
_ROWS = ("wm", "len", "txb", "txp", "drb", "drp", "alpha")
# Rows a program sends after these when READY names them (``--shadowDt``: the drops DT at the
# operator's alphas would have admitted, bytes and packets; a harness counter, no switch's)
EXTRA_ROWS = ("sdb", "sdp")


class SimBackendConfig(BaseModel):
    """``backend: {type: sim, ...}``: start the ns-3 program and control one of its switches."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["sim"]
    program: ConfigPath | None = None  # alphad-ns3-sim; default: $ALPHAD_NS3_BIN, then PATH
    args: list[str] = Field(default_factory=list)  # scenario options, e.g. ["--load=0.4"]
    switch: Annotated[str, Field(min_length=1)] = "leaf0"  # the simulated switch to control
    expose_occupancy: bool = False  # also hand the current queue lengths (SONiC does not poll them)
    log: ConfigPath | None = None  # the program's stderr; default: discarded


CONFIGS: dict[str, type[BaseModel]] = {"sim": SimBackendConfig}


class SimulationFinished(FatalBackendError):
    """The simulation reached its end: there is no further interval."""


def find_program(program: str | Path | None = None) -> Path:
    """The ns-3 program: ``program``, else ``$ALPHAD_NS3_BIN``, else ``alphad-ns3-sim`` on PATH."""
    cand = program or os.environ.get("ALPHAD_NS3_BIN") or shutil.which("alphad-ns3-sim")
    if not cand:
        raise FatalBackendError(
            "alphad-ns3-sim not found: set backend.program or ALPHAD_NS3_BIN (built by `make ns3`)",
            backend="sim", op="open")
    p = Path(cand)
    if not (p.is_file() and os.access(p, os.X_OK)):
        raise FatalBackendError(f"{p}: not an executable file (built by `make ns3`)",
                                backend="sim", op="open")
    return p


@dataclass
class CosimStats:
    """What a co-simulation cost."""

    intervals: int = 0
    controller_seconds: float = 0.0  # time in Controller.step
    sim_wait_seconds: float = 0.0  # blocked on the simulation, reading snapshots, writing answers
    wall_seconds: float = 0.0
    writes: int = 0  # alpha changes sent
    sim_seconds: float = 0.0  # simulated time at the end
    extra: dict[str, Any] = field(default_factory=dict)


class CosimSession:
    """One running ns-3 program and its record stream."""

    def __init__(self, argv: list[str], *, stderr: IO[bytes] | int | None = subprocess.DEVNULL,
                 cwd: str | Path | None = None, expose_occupancy: bool = False,
                 timeout: float | None = None) -> None:
        """``timeout``: seconds of wall time after which the program is killed (the next
        read then fails, saying so); None waits for ever."""
        self.argv = [str(a) for a in argv]
        self.expose_occupancy = expose_occupancy
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=stderr, cwd=cwd, bufsize=1 << 16)
        except OSError as e:
            raise FatalBackendError(f"cannot start {self.argv[0]}: {e}", backend="sim",
                                    op="open") from None
        self.timeout = timeout
        self.timed_out = False
        self._watchdog: threading.Timer | None = None
        if timeout is not None:
            self._watchdog = threading.Timer(timeout, self._expire)
            self._watchdog.daemon = True
            self._watchdog.start()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdout
        self._out = self.proc.stdin
        self.topologies: dict[str, Topology] = {}
        self.interval = 0.0
        self.seq = 0
        self.t = 0.0
        self.finished = False
        self._answered = True
        self._pending: dict[str, Changes] = {}
        self._samples: dict[str, Sample] = {}
        self.extra_rows: tuple[str, ...] = ()
        try:
            self._handshake()
        except BaseException as e:  # no session: the program must not outlive it
            if self._watchdog is not None:
                self._watchdog.cancel()
            self.proc.kill()
            self.proc.wait()
            if isinstance(e, ValueError | IndexError | OverflowError):  # a malformed record
                raise FatalBackendError(f"malformed record from the simulation: {e}",
                                        backend="sim", op="open") from None
            raise

    def _expire(self) -> None:
        self.timed_out = True
        self.proc.kill()

    def _stopped(self, op: str) -> FatalBackendError:
        """The error for a program the timeout stopped, at the interval it reached."""
        return FatalBackendError(f"no result within {self.timeout:g} s: the simulation was "
                                 f"stopped at interval {self.seq}", backend="sim", op=op)

    # -- protocol -----------------------------------------------------------------
    def _line(self) -> list[str]:
        raw = self._in.readline()
        if not raw:
            if self.timed_out:
                raise self._stopped("sample")
            rc = self.proc.poll()
            raise FatalBackendError(
                f"the simulation closed its output (exit status {rc}) at interval {self.seq}",
                backend="sim", op="sample")
        return raw.decode("ascii", "replace").split()

    def _expect(self, words: list[str], kind: str) -> None:
        if not words or words[0] != kind:
            raise FatalBackendError(f"expected a {kind} record, got {' '.join(words)[:80]!r}",
                                    backend="sim", op="sample")

    def _handshake(self) -> None:
        hello = self._line()
        if hello[:2] != ["HELLO", PROTOCOL] or len(hello) < 3 or hello[2] != str(VERSION):
            raise FatalBackendError(f"not an {PROTOCOL} {VERSION} peer: {' '.join(hello)[:80]!r}",
                                    backend="sim", op="open")
        while True:
            w = self._line()
            if w[0] == "READY":
                self.interval = int(w[2]) * 1e-9
                if int(w[1]) != len(self.topologies):
                    raise FatalBackendError("READY announces a different number of switches",
                                            backend="sim", op="open")
                unknown = [r for r in w[3:] if r not in EXTRA_ROWS]
                if unknown:
                    raise FatalBackendError(f"READY names unknown rows {unknown}",
                                            backend="sim", op="open")
                self.extra_rows = tuple(w[3:])
                return
            self._expect(w, "SWITCH")
            name, ports, qpp, pool = w[1], int(w[2]), int(w[3]), float(w[4])
            speeds = np.array([float(x) for x in w[5:5 + ports]])
            self.topologies[name] = Topology(
                ports=tuple(f"p{i}" for i in range(ports)),
                port_speed_bps=speeds,
                queue_port=np.repeat(np.arange(ports, dtype=np.int32), qpp),
                queue_index=np.tile(np.arange(qpp, dtype=np.int32), ports),
                buffer_bytes=pool,
                switch=name,
            )

    def read_interval(self) -> dict[str, Sample]:
        """The snapshots of the next interval, one per switch (blocks on the simulation).

        Raises :class:`SimulationFinished` at the end of the run, FatalBackendError on a
        malformed record (a value that is not a number of its kind, a short line).
        """
        try:
            return self._read_interval()
        except (ValueError, IndexError, OverflowError) as e:
            raise FatalBackendError(f"malformed record from the simulation at interval "
                                    f"{self.seq}: {e}", backend="sim", op="sample") from None

    def _read_interval(self) -> dict[str, Sample]:
        if self.finished:
            raise SimulationFinished("the simulation has finished", backend="sim", op="sample")
        if not self._answered:
            self.answer()
        samples: dict[str, Sample] = {}
        while True:
            w = self._line()
            if w[0] == "BYE":
                self.finished = True
                self.t = int(w[1]) * 1e-9
                raise SimulationFinished(f"the simulation finished at {self.t:.6f} s",
                                         backend="sim", op="sample")
            if w[0] == "TICK":
                self.seq = int(w[1])
                break
            self._expect(w, "SNAP")
            t = int(w[2]) * 1e-9
            name = w[3]
            topo = self.topologies.get(name)
            if topo is None:
                raise FatalBackendError(f"snapshot of unknown switch {name!r}", backend="sim",
                                        op="sample")
            rows: dict[str, list[str]] = {}
            for key in _ROWS + self.extra_rows:
                r = self._line()
                self._expect(r, key)
                if len(r) != topo.n + 1:
                    raise FatalBackendError(f"{name}: row {key} has {len(r) - 1} values, "
                                            f"expected {topo.n}", backend="sim", op="sample")
                rows[key] = r[1:]
            samples[name] = Sample(
                t=t,
                watermark=np.array(rows["wm"], dtype=np.float64),
                tx_bytes=np.array(rows["txb"], dtype=np.uint64),
                tx_packets=np.array(rows["txp"], dtype=np.uint64),
                drop_bytes=np.array(rows["drb"], dtype=np.uint64),
                drop_packets=np.array(rows["drp"], dtype=np.uint64),
                alpha=np.array(rows["alpha"], dtype=np.float64),
                occupancy=np.array(rows["len"], dtype=np.float64) if self.expose_occupancy
                else None,
                pool_occupancy=float(w[4]),
                pool_watermark=float(w[5]),
                extra={k: np.array(rows[k], dtype=np.uint64) for k in self.extra_rows},
            )
            self.t = t
        self._samples = samples
        self._answered = False
        return samples

    def stage(self, switch: str, changes: Changes) -> None:
        """Queue alpha writes of one switch for the current interval's answer."""
        if switch not in self.topologies:
            raise FatalBackendError(f"unknown switch {switch!r}", backend="sim", op="apply")
        prev = self._pending.get(switch)
        if prev is not None and len(prev):
            idx = np.concatenate([prev.idx, changes.idx])
            alpha = np.concatenate([prev.alpha, changes.alpha])
            changes = Changes(idx, alpha)
        self._pending[switch] = changes

    def answer(self) -> int:
        """Send the staged writes and release the simulation; returns how many alphas."""
        if self._answered or self.finished:
            return 0
        parts: list[str] = []
        n = 0
        for name, ch in self._pending.items():
            if not len(ch):
                continue
            a = np.asarray(ch.alpha, dtype=np.float64)
            if not np.all(np.isfinite(a) & (a > 0)):
                raise FatalBackendError(f"{name}: alpha must be finite and > 0", backend="sim",
                                        op="apply")
            pairs = " ".join(f"{int(i)} {float(x)!r}" for i, x in zip(ch.idx, a, strict=True))
            parts.append(f"ALPHA {self.seq} {name} {len(ch)} {pairs}\n")
            n += len(ch)
        parts.append(f"DONE {self.seq}\n")
        try:
            self._out.write("".join(parts).encode("ascii"))
            self._out.flush()
        except (BrokenPipeError, OSError) as e:
            if self.timed_out:  # the timeout killed it while the answer was written
                raise self._stopped("apply") from None
            raise FatalBackendError(f"the simulation stopped reading: {e}", backend="sim",
                                    op="apply") from None
        self._pending = {}
        self._answered = True
        return n

    def sample_of(self, switch: str) -> Sample:
        return self._samples[switch]

    def close(self, timeout: float = 10.0) -> int | None:
        """Release the simulation (answers a pending interval) and wait for it to exit."""
        if self._watchdog is not None:
            self._watchdog.cancel()
        try:
            if not self.finished and not self._answered:
                self.answer()
            self._out.close()
        except (BrokenPipeError, OSError, FatalBackendError):
            pass
        try:
            # Drain what the program still writes, so it can reach its end.
            while self._in.readline():
                pass
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


class SimBackend:
    """One switch of a :class:`CosimSession`, behind the Backend protocol.

    The loop's manual clock drives it: each ``sample`` is the next interval of
    simulated time (``advance`` only checks that the daemon's interval is the
    simulation's).
    """

    name = "sim"
    manual = True

    def __init__(self, session: CosimSession, switch: str, *, own_session: bool = False) -> None:
        if switch not in session.topologies:
            known = ", ".join(session.topologies)
            raise FatalBackendError(f"the simulation has no switch {switch!r} (it has: {known})",
                                    backend="sim", op="open")
        self.session = session
        self.switch = switch
        self._own = own_session
        self._initial: np.ndarray | None = None

    def topology(self) -> Topology:
        return self.session.topologies[self.switch]

    def advance(self, dt: float) -> None:
        if abs(dt - self.session.interval) > 1e-9 * max(1.0, dt):
            raise FatalBackendError(
                f"interval {dt:g} s differs from the simulation's {self.session.interval:g} s",
                backend="sim", op="sample")

    def sample(self) -> Sample:
        samples = self.session.read_interval()
        s = samples[self.switch]
        if self._initial is None:
            self._initial = s.alpha.copy()
        return s

    def apply(self, changes: Changes) -> None:
        if self.session.finished:
            raise TransientBackendError("the simulation has finished", backend="sim", op="apply")
        self.session.stage(self.switch, changes)

    def restore(self) -> None:
        if self._initial is None or self.session.finished:
            return
        idx = np.arange(len(self._initial))
        self.session.stage(self.switch, Changes(idx, self._initial.copy()))

    def close(self) -> None:
        if self._own:
            self.session.close()


def open_backend(cfg: SimBackendConfig) -> SimBackend:
    prog = find_program(cfg.program)
    log = open(cfg.log, "ab") if cfg.log else None
    argv = [str(prog), "--scheme=external", "--cosim=1", *cfg.args]
    session = CosimSession(argv, stderr=log if log else subprocess.DEVNULL,
                           expose_occupancy=cfg.expose_occupancy)
    return SimBackend(session, cfg.switch, own_session=True)


def switch_identity(cfg: SimBackendConfig) -> None:
    """None: every daemon starts a simulation of its own."""
    return None


def cosimulate(session: CosimSession, controllers: dict[str, Any],
               on_write: Callable[[float, str, Changes], None] | None = None) -> CosimStats:
    """Drive every switch of ``session`` with its Controller until the simulation ends.

    ``controllers`` maps a switch name to an object with ``step(Sample) ->
    Changes`` (an :class:`alphad.controller.Controller`); switches without one
    keep their alphas. ``on_write(t, switch, changes)`` sees every write staged.
    """
    unknown = set(controllers) - set(session.topologies)
    if unknown:
        raise FatalBackendError(f"no such switch in the simulation: {', '.join(sorted(unknown))}",
                                backend="sim", op="open")
    st = CosimStats()
    t_start = time.perf_counter()
    try:
        while True:
            t0 = time.perf_counter()
            try:
                samples = session.read_interval()
            except SimulationFinished:
                break
            t1 = time.perf_counter()
            for name, ctrl in controllers.items():
                ch = ctrl.step(samples[name])
                if len(ch):
                    session.stage(name, ch)
                    if on_write is not None:
                        on_write(samples[name].t, name, ch)
            t2 = time.perf_counter()
            st.writes += session.answer()
            st.sim_wait_seconds += (t1 - t0) + (time.perf_counter() - t2)
            st.controller_seconds += t2 - t1
            st.intervals += 1
    finally:
        rc = session.close()
        st.wall_seconds = time.perf_counter() - t_start
        st.sim_seconds = session.t
        st.extra["exit_status"] = rc
    if rc not in (0, None):
        raise FatalBackendError(f"the simulation exited with status {rc}", backend="sim",
                                op="close")
    return st
