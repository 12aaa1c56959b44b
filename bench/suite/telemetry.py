"""The telemetry a co-simulated controller sees, recorded under DT, and burst tests judged on
it as classifiers against what the scenario put on each class.

``record`` runs a scenario with the daemon co-simulated at the operator's alphas (scheme
``dt``: nothing is written; or the placebo, or a scheme that writes, for ``power``) and
keeps every switch's samples. ``judge`` replays them through
the daemon's estimator, at the recorded interval or coarser (counters are cumulative and
watermarks are peaks, so ten 100 ms samples make one 1 s sample exactly), and counts the
(switch, class, interval) triples a burst test flags, apart for the classes that carry
incast in that interval and for the others. A flag on a class without incast is a false
positive: a raise nothing asked for.
"""

from __future__ import annotations

import math
import os
import pickle
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from alphad.estimate import Estimates, Estimator
from alphad.model import Sample
from alphad_ns3.run import default_program
from alphad_ns3.scenario import alphad_config

from bench.suite.runs import (
    PLACEBO_EPS,
    QUANTIZE,
    RUN_TIMEOUT_S,
    cache_dir,
    parse_config,
    program_snapshot,
    spec,
)
from bench.suite.scenarios import SuiteScenario

__all__ = ["TESTS", "Tally", "incast_classes_at", "judge", "record", "recordings", "sweep",
           "table"]

START_S = 0.002  # s: when the harness starts its first flow (the phase plan's origin)


class _Recorder:
    """A controller that keeps every sample and writes nothing."""

    def __init__(self, ctrl: Any) -> None:
        self.ctrl = ctrl
        self.samples: list[Sample] = []

    def step(self, sample: Sample) -> Any:
        self.samples.append(sample)
        return self.ctrl.step(sample)


def record(sc: SuiteScenario, seed: int, path: Path, interval: str = "100ms",
           program: Path | None = None, config: str = "dt", gen: float | None = None) -> Path:
    """Run ``sc`` with the daemon co-simulated every ``interval``, flows starting for
    ``gen`` seconds (the suite's GEN_S by default); pickle each switch's topology, classes
    and samples to ``path``. ``config``: ``dt`` (the operator's alphas, nothing written),
    ``placebo`` (the placebo's alphas, nothing written) or a scheme whose writes reach the
    traffic."""
    from alphad.backends.sim import CosimSession, cosimulate
    from alphad.controller import Controller

    if config == "placebo":
        sc = replace(sc, alphas=tuple(a * (1 + PLACEBO_EPS) for a in sc.alphas))
    run_cfg = parse_config(f"{'dt' if config == 'placebo' else config}@{interval}")
    s = spec(sc, run_cfg, seed, gen)
    if config == "placebo":  # the daemon takes the placebo's alphas as they are, not as 2^k
        s = s.model_copy(update={"alphad": {**(s.alphad or {}), "quantize": {
            **QUANTIZE, "mode": "continuous", "hysteresis": 0.0}}})
    prog = program or default_program()
    with tempfile.TemporaryDirectory() as tmp:
        argv = s.argv(prog, Path(tmp))
        with (Path(tmp) / "stderr.log").open("wb") as err:
            session = CosimSession(argv, stderr=err, timeout=RUN_TIMEOUT_S)
            cfg = alphad_config(s.alphad or {})
            recs = {n: _Recorder(Controller.from_config(cfg, topo))
                    for n, topo in session.topologies.items()}
            cosimulate(session, recs)
    data = {n: (r.ctrl.topo, r.ctrl.classes, r.samples) for n, r in recs.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps({"scenario": sc.name, "seed": seed, "interval": interval,
                                   "interval_s": run_cfg.interval_s, "config": config,
                                   "switches": data}))
    return path


def incast_classes_at(sc: SuiteScenario, t0: float, t1: float) -> set[int]:
    """The classes that carry incast at some time in [t0, t1): the phase plan, cycled."""
    if not sc.phases:
        return set(sc.burst_classes)
    plan = []  # (duration s, the classes with incast: none where the phase has no queries)
    for part in sc.phases.split(";"):
        dur_ms, _load, _ws, qps, _frac, incast = part.split(",")
        plan.append((float(dur_ms) / 1e3,
                     {int(c) for c in incast.split("+") if c} if float(qps) > 0 else set()))
    cycle = sum(d for d, _ in plan)
    out: set[int] = set()
    t = START_S + cycle * max(np.floor((t0 - START_S) / cycle), 0.0)
    while t < t1:
        for d, classes in plan:
            if t < t1 and t + d > t0:
                out |= classes
            t += d
    return out


def _coarsen(samples: Sequence[Sample], k: int) -> list[Sample]:
    """Every k-th sample, its watermarks the peaks of the k intervals it closes."""
    out = []
    for i in range(k - 1, len(samples), k):
        part = samples[i - k + 1:i + 1]
        wm = np.max([s.watermark for s in part], axis=0)
        pools = [s.pool_watermark for s in part if s.pool_watermark is not None]
        out.append(replace(samples[i], watermark=wm,
                           pool_watermark=max(pools) if pools else None))
    return out


# A burst test: per managed queue (in the estimator's order), whether it was hit by a burst.
BurstTest = Callable[[Estimates, np.ndarray, np.ndarray, dict[str, float]], np.ndarray]


def _idle_lossy(e: Estimates, port: np.ndarray, p: dict[str, float]) -> np.ndarray:
    """Idle queues that lost something, on a port with idle_util of line rate to spare."""
    util = np.bincount(port, weights=e.rate, minlength=int(port.max()) + 1)
    return ((e.rate < p["idle_util"]) & (e.drop_delta > 0)  # type: ignore[no-any-return]
            & (util[port] < 1.0 - p["idle_util"]))


def _idle_loss(e: Estimates, port: np.ndarray, prio: np.ndarray, p: dict[str, float]) -> np.ndarray:
    """`auto`'s test: an idle queue that lost burst_frac of its bytes, on a port with spare
    capacity."""
    offered = e.tx_delta + e.drop_delta
    return _idle_lossy(e, port, p) & (e.drop_delta >= p["burst_frac"] * offered)  # type: ignore[no-any-return]


def _scheduler(e: Estimates, port: np.ndarray, prio: np.ndarray,
                 p: dict[str, float]) -> np.ndarray:
    """`auto`'s test, and under strict priority (``p["sp"]``, class 0 first) the queues
    served before this one on its port sent less than idle_util of line rate together: a
    queue that waited behind busy higher-priority queues was starved, not overflowed."""
    burst = _idle_loss(e, port, prio, p)
    if not p.get("sp"):
        return burst
    ahead = np.zeros(len(prio))
    for j in np.flatnonzero(burst):
        ahead[j] = e.rate[(port == port[j]) & (prio < prio[j])].sum()
    return burst & (ahead < p["idle_util"])  # type: ignore[no-any-return]


def _contrast(e: Estimates, port: np.ndarray, prio: np.ndarray, p: dict[str, float]) -> np.ndarray:
    """`auto`'s test, counted for a class only when its bursts lose ``contrast`` times the
    share the other classes' idle queues lose together (a candidate's rule, since removed)."""
    burst = _idle_loss(e, port, prio, p)
    idle = e.rate < p["idle_util"]
    offered = e.tx_delta + e.drop_delta
    d_i, o_i = e.drop_delta * idle, offered * idle
    for c in np.unique(prio[burst]):
        mine, rest = burst & (prio == c), prio != c
        lf = e.drop_delta[mine].sum() / max(offered[mine].sum(), 1.0)
        others = d_i[rest].sum() / max(o_i[rest].sum(), 1.0)
        if lf < p.get("contrast", 2.0) * others:
            burst &= ~(prio == c)
    return burst


def _footprint(e: Estimates, port: np.ndarray, prio: np.ndarray,
               p: dict[str, float]) -> np.ndarray:
    """`auto`'s test with the loss measured against the burst's footprint (peak plus drops)
    instead of the bytes offered over the interval, which quiet intervals dilute."""
    footprint = np.asarray(e.watermark, dtype=float) + e.drop_delta
    return _idle_lossy(e, port, p) & (e.drop_delta >= p["footprint_frac"] * footprint)  # type: ignore[no-any-return]


TESTS: dict[str, BurstTest] = {"auto": _idle_loss, "contrast": _contrast,
                               "scheduler (auto4)": _scheduler, "footprint": _footprint}


@dataclass
class Tally:
    """Flags of one test on one recording: (switch, class, interval) triples."""

    flagged_incast: int = 0
    incast: int = 0
    flagged_other: int = 0
    other: int = 0

    def add(self, o: Tally) -> None:
        for f in ("flagged_incast", "incast", "flagged_other", "other"):
            setattr(self, f, getattr(self, f) + getattr(o, f))

    @property
    def recall(self) -> float:
        return self.flagged_incast / self.incast if self.incast else float("nan")

    @property
    def false_positive(self) -> float:
        return self.flagged_other / self.other if self.other else float("nan")


def judge(data: dict[str, Any], sc: SuiteScenario, test: BurstTest, every: int = 1,
          after_s: float = 0.0, ahead: bool = False, confirm: int = 0,
          params: dict[str, float] | None = None) -> Tally:
    """Replay a recording (``every`` samples make one interval) through the estimator and
    count what ``test`` flags per (switch, class, interval), after ``after_s``.

    ``ahead``: judge each flag against the next interval's incast classes, when a raise it
    asks for is in effect. ``confirm``: a class counts as flagged only when it was in one of
    the ``confirm`` intervals before too. ``params``: the tests' thresholds, over the
    defaults (`auto18`'s)."""
    p = {"idle_util": 0.1, "burst_frac": 0.02, "footprint_frac": 0.1,
         "sp": float(sc.sched == "sp"), **(params or {})}
    tally = Tally()
    span = every * float(data.get("interval_s", 0.1))
    for topo, classes, samples in data["switches"].values():
        est = Estimator(topo, classes)
        managed = np.flatnonzero(classes.prio >= 0)
        port, prio = topo.queue_port[managed], classes.prio[managed]
        prev = None
        before: list[np.ndarray] = []  # the class flags of the last ``confirm`` intervals
        for s in _coarsen(samples, every):
            e = est.update(s)
            t0, prev = prev, s.t
            if e is None or t0 is None:
                continue
            sub = replace(e, tx_delta=e.tx_delta[managed], drop_delta=e.drop_delta[managed],
                          rate=e.rate[managed], watermark=np.asarray(e.watermark)[managed])
            hit = test(sub, port, prio, p)
            now = np.array([bool(hit[prio == c].any()) for c in range(classes.n_prio)])
            flags = now
            if confirm:
                flags = now & np.any(before, axis=0) if before else np.zeros_like(now)
                before = (before + [now])[-confirm:]
            if s.t <= after_s:
                continue
            truth = (incast_classes_at(sc, s.t, s.t + span) if ahead
                     else incast_classes_at(sc, t0, s.t))
            for c in range(classes.n_prio):
                if c in truth:
                    tally.incast += 1
                    tally.flagged_incast += bool(flags[c])
                else:
                    tally.other += 1
                    tally.flagged_other += bool(flags[c])
    return tally


def recordings(scenarios: Sequence[SuiteScenario], seed: int,
               log: Callable[[str], None] = print, config: str = "dt",
               interval: str = "100ms", gen: float | None = None
               ) -> list[tuple[SuiteScenario, dict[str, Any]]]:
    """Each scenario's recording under ``config`` (see ``record``) every ``interval``, flows
    starting for ``gen`` seconds (GEN_S by default), from the cache (``telemetry/`` beside
    the runs, keyed by the program's snapshot) or recorded now."""
    cache = cache_dir()
    program, sim = program_snapshot(cache)
    tag = interval if config == "dt" else f"{config}-{interval}"
    tag += f"-gen{gen:g}" if gen is not None else ""
    out = []
    for sc in scenarios:
        path = cache / "telemetry" / f"sim-{sim}" / f"{sc.name}-{seed}-{tag}.pkl"
        if not path.exists():
            t0 = time.time()
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            record(sc, seed, tmp, interval=interval, program=program, config=config, gen=gen)
            tmp.replace(path)
            log(f"recorded {sc.name} seed {seed} under {config} in {time.time() - t0:.0f} s")
        out.append((sc, pickle.loads(path.read_bytes())))
    return out


def table(recordings: Sequence[tuple[SuiteScenario, dict[str, Any]]],
          intervals: Sequence[tuple[str, int]] = (("100ms", 1), ("1s", 10)),
          after_s: float = 1.0, ahead: bool = False, confirm_s: float = 0.0) -> list[str]:
    """Markdown: per test and interval, the share of incast class-intervals flagged and of
    the others' (false positives), over ``recordings`` and per scenario; ``ahead`` and
    ``confirm_s`` (a window of seconds, in whole intervals) as for ``judge``."""
    head = ["scenario", "sched"] + [f"{t} @{lab}" for lab, _ in intervals for t in TESTS]
    rows, total = [], {}
    for sc, data in recordings:
        cells = []
        for lab, every in intervals:
            for tn, test in TESTS.items():
                t = judge(data, sc, test, every, after_s=after_s, ahead=ahead,
                          confirm=round(confirm_s / (every * data.get("interval_s", 0.1))))
                total.setdefault((lab, tn), Tally()).add(t)
                cells.append(_cell(t))
        rows.append([sc.name, sc.sched, *cells])
    rows.append(["all", "", *[_cell(total[(lab, tn)]) for lab, _ in intervals for tn in TESTS]])
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return out + ["| " + " | ".join(r) + " |" for r in rows]


def sweep(recordings: Sequence[tuple[SuiteScenario, dict[str, Any]]],
          burst_fracs: Sequence[float], idle_utils: Sequence[float],
          intervals: Sequence[tuple[str, int]] = (("100ms", 1), ("1s", 10)),
          after_s: float = 1.0, ahead: bool = True) -> list[str]:
    """Markdown: `auto`'s test at each (idle_util, burst_frac), over all ``recordings``: per
    interval the incast class-intervals flagged, the others flagged (false positives) and
    the share of flags that were right (precision)."""
    head = ["idle_util", "burst_frac"] + [f"{h} @{lab}" for lab, _ in intervals
                                          for h in ("incast flagged", "false positives",
                                                    "flags right")]
    rows = []
    for iu in idle_utils:
        for bf in burst_fracs:
            cells = [f"{iu:g}", f"{bf:g}"]
            for _, every in intervals:
                tot = Tally()
                for sc, data in recordings:
                    tot.add(judge(data, sc, TESTS["auto"], every, after_s=after_s,
                                  ahead=ahead, params={"idle_util": iu, "burst_frac": bf}))
                flags = tot.flagged_incast + tot.flagged_other
                right = f"{tot.flagged_incast / flags:.0%}" if flags else "-"
                cells += [f"{tot.flagged_incast} of {tot.incast}",
                          f"{tot.flagged_other} of {tot.other}", right]
            rows.append(cells)
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return out + ["| " + " | ".join(r) + " |" for r in rows]


def _cell(t: Tally) -> str:
    """Incast class-intervals flagged / other class-intervals flagged (false positives),
    each as a share and a count."""
    def pct(x: float) -> str:
        return "-" if math.isnan(x) else f"{x:.0%}"
    return f"{pct(t.recall)} ({t.flagged_incast}) / {pct(t.false_positive)} ({t.flagged_other})"
