"""Run the ns-3 program once: an exact scheme, or alphad co-simulated through ``sim``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from alphad_ns3.scenario import RunSpec, alphad_config

__all__ = ["RunError", "RunResult", "default_program", "run"]


class RunError(RuntimeError):
    """The program failed; the message carries the end of its stderr."""


@dataclass(frozen=True)
class RunResult:
    spec: RunSpec
    out: Path
    summary: dict[str, Any]
    wall_seconds: float


def default_program() -> Path:
    """``$ALPHAD_NS3_BIN``, else ``build/ns3-harness/alphad-ns3-sim`` of this checkout."""
    env = os.environ.get("ALPHAD_NS3_BIN")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    return here.parents[3] / "build" / "ns3-harness" / "alphad-ns3-sim"


def _tail(path: Path, n: int = 20) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-n:])


def run(spec: RunSpec, out: str | Path, program: str | Path | None = None,
        timeout: float | None = None) -> RunResult:
    """Run ``spec`` with its outputs in ``out`` (created; previous files replaced).
    ``timeout``: seconds of wall time, for exact runs and co-simulations alike."""
    prog = Path(program) if program else default_program()
    if not (prog.is_file() and os.access(prog, os.X_OK)):
        raise RunError(f"{prog}: the ns-3 program is not built (run `make ns3`)")
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    argv = spec.argv(prog, out)
    (out / "spec.json").write_text(json.dumps(spec.model_dump(mode="json"), indent=1))
    (out / "argv.txt").write_text(" ".join(argv) + "\n")
    errlog = out / "stderr.log"
    t0 = time.perf_counter()
    with errlog.open("wb") as err:
        if spec.scheme == "alphad":
            extra = _cosim(spec, argv, err, out / "alphas.csv", timeout)
        else:
            try:
                cp = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                    timeout=timeout, check=False)
            except subprocess.TimeoutExpired:
                raise RunError(f"{out}: no result within {timeout} s") from None
            if cp.returncode != 0:
                err.flush()
                raise RunError(f"{out}: exit status {cp.returncode}\n{_tail(errlog)}")
            extra = {}
    wall = time.perf_counter() - t0
    summary = json.loads((out / "summary.json").read_text())
    summary.update(extra)
    summary["wall_seconds"] = wall
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return RunResult(spec, out, summary, wall)


TWIN_SYNC_S = 1e-6  # s: a twin's sample and the run's are of the same interval this close


class _Twin:
    """A second simulation of the same spec at the operator's alphas (nothing written), read
    in step with the run: DT's telemetry at the run's instants, on the same arrivals."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.samples: dict[str, Any] = {}
        self.t = -1.0
        self.done = False

    def at(self, t: float) -> dict[str, Any] | None:
        """DT's samples of the interval that ends at ``t``; None where the twin has none."""
        from alphad.backends.sim import SimulationFinished

        while not self.done and self.t < t - TWIN_SYNC_S:
            try:
                self.samples = self.session.read_interval()
            except SimulationFinished:
                self.done = True
                break
            self.session.answer()
            self.t = next(iter(self.samples.values())).t
        return self.samples if not self.done and abs(self.t - t) <= TWIN_SYNC_S else None


class _Told:
    """A Controller whose scheme is told, before each step, DT's estimates of the same
    interval (``scheme.tell_dt``): from the twin, or from the run's own sample with the drops
    DT would have admitted counted as sent (the program's ``--shadowDt`` rows)."""

    def __init__(self, ctrl: Any, switch: str, twin: _Twin | None) -> None:
        from alphad.estimate import Estimator

        self.ctrl, self.switch, self.twin = ctrl, switch, twin
        self.estimator = Estimator(ctrl.topo, ctrl.classes, ctrl.estimator.p)
        self.told = 0

    def _dt_sample(self, sample: Any) -> Any:
        if self.twin is not None:
            return (self.twin.at(sample.t) or {}).get(self.switch)
        if "sdb" not in sample.extra:
            return None
        sdb, sdp = sample.extra["sdb"], sample.extra["sdp"]
        return replace(sample, tx_bytes=sample.tx_bytes + sdb, tx_packets=sample.tx_packets + sdp,
                       drop_bytes=sample.drop_bytes - sdb, drop_packets=sample.drop_packets - sdp)

    def step(self, sample: Any) -> Any:
        dt = self._dt_sample(sample)
        if dt is not None:
            est = self.estimator.update(dt)
            if est is not None:
                self.ctrl.scheme.tell_dt(est)
                self.told += 1
        return self.ctrl.step(sample)


def _cosim(spec: RunSpec, argv: list[str], err: Any, writes: Path,
           timeout: float | None) -> dict[str, Any]:
    """Co-simulate: one unmodified alphad Controller per simulated switch; every alpha it
    writes goes to ``writes`` (CSV: t_s, switch, port, queue, alpha). A scheme that asks
    for DT's counterfactual (a harness probe) is told it: from a twin simulation of the same
    spec run in step (``tells_dt``), or from the program's count of the drops DT would have
    admitted (``reads_shadow_dt``, the argv's ``--shadowDt=1``)."""
    from alphad.backends.base import FatalBackendError
    from alphad.backends.sim import CosimSession, cosimulate
    from alphad.controller import Controller

    cfg = alphad_config(spec.alphad or {})
    twin: _Twin | None = None
    told: dict[str, _Told] = {}
    tmp = None
    twin_err = writes.parent / "twin-stderr.log"
    twin_log: Any = None
    try:
        with writes.open("w") as log:
            log.write("t_s,switch,port,queue,alpha\n")
            session = CosimSession(argv, stderr=err, timeout=timeout)
            topos = session.topologies

            def on_write(t: float, switch: str, ch: Any) -> None:
                topo = topos[switch]
                log.writelines(f"{t:.6f},{switch},{p},{q},{a!r}\n" for p, q, a in zip(
                    topo.queue_port[ch.idx].tolist(), topo.queue_index[ch.idx].tolist(),
                    ch.alpha.tolist(), strict=True))

            controllers = {name: Controller.from_config(cfg, topo)
                           for name, topo in topos.items()}
            if any(getattr(c.scheme, "tells_dt", False) for c in controllers.values()):
                tmp = tempfile.TemporaryDirectory()
                twin_argv = [a if not a.startswith("--out=") else f"--out={tmp.name}"
                             for a in argv]
                twin_log = twin_err.open("wb")
                twin = _Twin(CosimSession(twin_argv, stderr=twin_log, timeout=timeout))
                told = {n: _Told(c, n, twin) for n, c in controllers.items()}
            elif "--shadowDt=1" in argv:
                told = {n: _Told(c, n, None) for n, c in controllers.items()}
            stats = cosimulate(session, told or controllers, on_write)
    except FatalBackendError as e:
        err.flush()
        if twin_log is not None:
            twin_log.flush()
        tails = [_tail(Path(err.name)), _tail(twin_err) if twin_log is not None else ""]
        raise RunError(f"co-simulation failed: {e}\n" + "\n".join(t for t in tails if t)) from None
    finally:
        if twin is not None:
            twin.session.close()
        if twin_log is not None:
            twin_log.close()
        if tmp is not None:
            tmp.cleanup()
    n_told = sum(t.told for t in told.values())
    extra = ({"twin_intervals": n_told} if twin is not None
             else {"shadow_intervals": n_told} if told else {})
    return {
        "cosim": {
            **extra,
            "intervals": stats.intervals,
            "writes": stats.writes,
            "controller_seconds": stats.controller_seconds,
            "sim_wait_seconds": stats.sim_wait_seconds,
            "wall_seconds": stats.wall_seconds,
            "sim_seconds": stats.sim_seconds,
            "interval_s": cfg.interval,
            "scheme": cfg.scheme,
            "quantize": cfg.quantize.mode,
        }
    }
