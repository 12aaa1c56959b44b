"""The safety rule judged on telemetry recorded under DT.

A recording under DT (``bench.suite.telemetry``) carries traffic no controller changed.
Replayed through an `auto`-family scheme, the scheme raises classes as it would, but the
raise never reaches the traffic, so the other classes lose what they lose under DT: every
time its safety rule sees harm then is a false alarm. ``false_alarms`` counts them over the
decisions made while some class was raised, and those in which every class that tripped
the rule had a reference of exactly zero (it lost nothing in the intervals run as DT).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_type_hints

import alphad.schemes.superseded  # noqa: F401  (their evaluation rows are reproduced)
from alphad import schemes
from alphad.estimate import Estimator
from alphad.quantize import Quantizer
from alphad.schemes.auto import Auto

from bench.suite.scenarios import SuiteScenario
from bench.suite.telemetry import _coarsen


@dataclass
class Alarms:
    """Decisions after the warm-up, those made while a class was raised, the safety rule's
    firings among them, and the firings whose every tripped class had a zero reference."""

    decisions: int = 0
    raised: int = 0
    fired: int = 0
    zero_reference: int = 0


def check(names: Sequence[str], flag: str = "--schemes") -> None:
    """ValueError naming ``flag`` and the first of ``names`` that is not a registered scheme
    with `auto`'s safety rule."""
    for n in names:
        if not schemes.registered(n):
            raise ValueError(f"{flag}: unknown scheme {n!r}")
        made = get_type_hints(schemes.get(n)).get("return", object)
        has_safety = isinstance(made, type) and issubclass(made, Auto)
        if not has_safety:
            raise ValueError(f"{flag}: {n!r} has no safety rule (not an `auto` scheme)")


def tripped(loss: Sequence[Sequence[float]], ref: Sequence[Sequence[float]],
            raised: Sequence[bool], p: dict[str, float]) -> list[tuple[int, int]]:
    """The (idle 0 or busy 1, class) entries of ``loss`` that trip the safety rule against
    ``ref``: `auto`'s comparison (others' idle loss, anyone's busy loss, over ``safety``
    times the reference and at least ``loss_min``), repeated here because the scheme keeps
    it inside its step; ``false_alarms`` fails where the two disagree."""
    return [(i, c) for i in (0, 1) for c, (lo, ba) in enumerate(zip(loss[i], ref[i]))
            if lo > p["safety"] * ba and lo >= p["loss_min"] and (i == 1 or not raised[c])]


def _tripped(sch: Any) -> list[float]:
    """The references of the entries that trip the scheme's safety rule now."""
    raised = [k > 0 for k in sch.level]
    return [sch.base[i][c] for i, c in tripped(sch.loss, sch.base, raised, sch.p)]


def false_alarms(recordings: Sequence[tuple[SuiteScenario, dict[str, Any]]], scheme: str,
                 every: int, after_s: float = 1.0,
                 params: dict[str, float] | None = None) -> Alarms:
    """Replay each recording (``every`` samples make one interval) through ``scheme`` with
    ``params`` (its defaults where not given)."""
    out = Alarms()
    for _sc, data in recordings:
        interval = every * float(data.get("interval_s", 0.1))
        for topo, classes, samples in data["switches"].values():
            sch = schemes.get(scheme)(schemes.SchemeContext(topo, classes, Quantizer(),
                                                            interval), params or {})
            fired: list[bool] = []  # per firing: every tripped reference was zero
            backs_off = sch._backs_off

            def seen(t: float, sch: Any = sch, fired: list[bool] = fired,
                     backs_off: Any = backs_off) -> bool:
                refs = _tripped(sch)
                if not refs:  # the copy of the comparison no longer matches the rule
                    raise RuntimeError(f"{scheme}: its safety rule fired where `auto`'s "
                                       "comparison trips nothing")
                fired.append(all(b == 0 for b in refs))
                return bool(backs_off(t))

            sch._backs_off = seen
            est = Estimator(topo, classes)
            for s in _coarsen(samples, every):
                e = est.update(s)
                if e is None:
                    continue
                n, was = len(fired), any(sch.level)
                sch(e)
                if s.t <= after_s:
                    continue
                out.decisions += 1
                out.raised += was
                out.fired += len(fired) > n
                out.zero_reference += len(fired) > n and fired[-1]
    return out


def table(recordings: Sequence[tuple[SuiteScenario, dict[str, Any]]], names: Sequence[str],
          intervals: Sequence[tuple[str, int]] = (("100ms", 1), ("1s", 10))) -> list[str]:
    """Markdown: per scheme and interval, the decisions made while a class was raised and the
    share of them in which the safety rule fired, on traffic the raise never reached."""
    head = ("| scheme | interval | decisions | with a raise on | safety fired | "
            "against zero references only |")
    rows = [head, "|---|---|---|---|---|---|"]
    for name in names:
        for lab, every in intervals:
            a = false_alarms(recordings, name, every)
            share = f"{a.fired / a.raised:.0%}" if a.raised else "-"
            rows.append(f"| `{name}` | {lab} | {a.decisions} | {a.raised} | {a.fired} "
                        f"({share}) | {a.zero_reference} |")
    return rows
