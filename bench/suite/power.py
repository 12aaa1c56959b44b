"""The safety rule judged against the harm a raise really did.

Three recordings of one scenario and seed share their arrivals: the scheme's own run (its
raises reach the traffic), DT's run and the placebo's (DT's policy on another trajectory).
Replayed in step, each gives the loss fractions the safety rule reads (per class, on idle
and on busy queues, averaged over ``hold``) at the same instants. At every decision the run
makes while a class is raised:

- **harm**: the run's comparison of its own losses against DT's at the same instant, by the
  rule's own test (``safety`` times and at least ``loss_min``; the raised classes' idle
  queues excepted): what a rule that knew DT's counterfactual would see;
- **noise**: the same comparison of the placebo against DT, with the run's raised classes
  excepted: how often another trajectory alone passes that test;
- **fired**: whether the run's safety rule fired, against its reference (DT's intervals
  before the raise).

Harm well above noise means the raises cost the other classes something a rule could find;
the rule has power where it fires more often on harm than without it. The AUC of the
rule's statistic (its largest loss over reference) says whether any ``safety`` would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from alphad import schemes
from alphad.estimate import Estimator
from alphad.quantize import Quantizer

from bench.suite.safety import tripped
from bench.suite.scenarios import SuiteScenario
from bench.suite.telemetry import _coarsen

__all__ = ["Power", "check_replay", "power", "ratio", "table"]

SAMPLE_DT_S = 0.01  # s: samples of the three recordings that pair are this close in time


@dataclass
class Power:
    """Decisions made while a class was raised, and how the three judgements fell on them."""

    raised: int = 0
    harm: int = 0
    noise: int = 0
    fired: int = 0
    fired_harm: int = 0  # fired where there was harm
    scores: list[tuple[float, bool]] = field(default_factory=list)  # (the rule's ratio, harm)

    def add(self, o: Power) -> None:
        for f in ("raised", "harm", "noise", "fired", "fired_harm", "scores"):
            setattr(self, f, getattr(self, f) + getattr(o, f))

    def auc(self) -> float:
        """The chance that a decision with harm has a higher ``ratio`` than one without (ties
        count half): 0.5 where the rule's statistic cannot tell them apart, at any
        ``safety``; nan without both kinds."""
        yes = np.array([r for r, h in self.scores if h])
        no = np.array([r for r, h in self.scores if not h])
        if not len(yes) or not len(no):
            return math.nan
        above = (yes[:, None] > no[None, :]).sum() + 0.5 * (yes[:, None] == no[None, :]).sum()
        return float(above / (len(yes) * len(no)))


def ratio(loss: list[list[float]], ref: list[list[float]], raised: Sequence[bool],
          p: dict[str, float]) -> float:
    """The statistic the safety rule compares with ``safety``: the largest loss over its
    reference among the entries ``safety.tripped`` reads that lost at least ``loss_min``
    (inf over a zero reference, 0 where none did)."""
    out = 0.0
    for i, (lr, br) in enumerate(zip(loss, ref)):
        for c, (lo, ba) in enumerate(zip(lr, br)):
            if lo >= p["loss_min"] and (i == 1 or not raised[c]):
                out = max(out, lo / ba if ba > 0 else math.inf)
    return out


def check_replay(name: str, scheme: str, samples: Sequence[Any], i: int, wrote: np.ndarray,
                 classes: Any) -> None:
    """ValueError unless the managed queues hold, in the run's sample after ``samples[i]``
    (if any), the powers of two the replay of ``scheme`` wrote at sample i."""
    if i + 1 >= len(samples):
        return
    m = classes.prio >= 0
    if not np.array_equal(np.rint(np.log2(wrote[m])), np.rint(np.log2(samples[i + 1].alpha[m]))):
        raise ValueError(f"{name}: {scheme}'s replay at t={samples[i].t:.3f} s writes other "
                         "alphas than the run it was recorded in")


def _make(scheme: str, topo: Any, classes: Any, interval: float,
          params: dict[str, float] | None) -> Any:
    return schemes.get(scheme)(schemes.SchemeContext(topo, classes, Quantizer(), interval),
                               params or {})


def power(run: dict[str, Any], dt: dict[str, Any], placebo: dict[str, Any], scheme: str,
          after_s: float = 1.0, params: dict[str, float] | None = None) -> Power:
    """Replay the three recordings of one scenario and seed through ``scheme`` at the run's
    interval (DT's and the placebo's samples coarsened to it); ``run`` must be recorded
    under ``scheme`` with ``params``."""
    out = Power()
    interval = float(run["interval_s"])
    for name, (topo, classes, samples) in run["switches"].items():
        steps = [samples] + [_coarsen(rec["switches"][name][2],
                                      round(interval / float(rec["interval_s"])))
                             for rec in (dt, placebo)]
        n = min(len(x) for x in steps)
        schs = [_make(scheme, topo, classes, interval, params) for _ in steps]
        ests = [Estimator(topo, classes) for _ in steps]
        fired: list[float] = []  # when the run's rule fired
        run_sch = schs[0]
        backs_off = run_sch._backs_off

        def seen(t: float, fired: list[float] = fired, backs_off: Any = backs_off) -> bool:
            fired.append(t)
            return bool(backs_off(t))

        run_sch._backs_off = seen
        for i in range(n):
            now = [x[i] for x in steps]
            if max(s.t for s in now) - min(s.t for s in now) > SAMPLE_DT_S:
                raise ValueError(f"{name}: the recordings' samples do not pair at "
                                 f"t={now[0].t:.3f} s")
            es = [est.update(s) for est, s in zip(ests, now)]
            if any(e is None for e in es):
                continue
            raised = [k > 0 for k in run_sch.level]
            k = len(fired)
            wrote, _, _ = (sch(e) for sch, e in zip(schs, es))
            check_replay(name, scheme, samples, i, wrote, classes)
            if now[0].t <= after_s or not any(raised):
                continue
            p = run_sch.p
            harm = bool(tripped(run_sch.loss, schs[1].loss, raised, p))
            out.raised += 1
            out.harm += harm
            out.noise += bool(tripped(schs[2].loss, schs[1].loss, raised, p))
            out.fired += len(fired) > k
            out.fired_harm += harm and len(fired) > k
            out.scores.append((ratio(run_sch.loss, run_sch.base, raised, p), harm))
    return out


def _share(a: int, b: int) -> str:
    return f"{a} ({a / b:.0%})" if b else "-"


def table(triples: Sequence[tuple[SuiteScenario, dict[str, Any], dict[str, Any],
                                  dict[str, Any]]],
          scheme: str) -> list[str]:
    """Markdown: per scenario (run, DT, placebo recordings) and in all, the decisions made
    while a class was raised, the shares with harm, with noise and with the rule firing, and
    the rule's firing rate where there was harm and where there was none."""
    rows = [("| scenario | with a raise on | harm | noise | safety fired | fired on harm | "
             "fired without harm | AUC |"), "|---|---|---|---|---|---|---|---|"]
    total = Power()
    for sc, run, dt, pl in triples:
        w = power(run, dt, pl, scheme)
        total.add(w)
        rows.append(_row(sc.name, w))
    rows.append(_row("all", total))
    return rows


def _row(name: str, w: Power) -> str:
    return (f"| {name} | {w.raised} | {_share(w.harm, w.raised)} | "
            f"{_share(w.noise, w.raised)} | {_share(w.fired, w.raised)} | "
            f"{_share(w.fired_harm, w.harm)} | "
            f"{_share(w.fired - w.fired_harm, w.raised - w.harm)} | {w.auc():.2f} |")
