"""Why a scheme raised: each raise of a recorded run, by what the burst needed and whether
its class carried incast.

A scheme's own run (recorded by ``telemetry.record`` under the scheme) is replayed through
the scheme; the replay must write the alphas the run held. Every interval that raises a
class's level is one raise, sorted two ways:

- **cause**: *admitted*, the burst fitted beside the pool's occupancy at its peak and the
  level is what DT's admission rule says it needed; *unadmitted*, no alpha admitted it
  there (margin S >= F + W) and the scheme chose the level by its ``_unadmitted``;
- **truth**: whether the scenario's phase plan had incast in that class during the interval
  (``telemetry.incast_classes_at``). A raise without incast was asked for by other loss.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from alphad.estimate import Estimator

from bench.suite.power import _make, check_replay
from bench.suite.scenarios import SuiteScenario
from bench.suite.telemetry import incast_classes_at

__all__ = ["CAUSES", "raises", "table"]

CAUSES = ("admitted", "unadmitted")


def raises(run: dict[str, Any], sc: SuiteScenario, scheme: str,
           params: dict[str, float] | None = None) -> Counter[tuple[str, bool]]:
    """(cause, with incast) -> the number of raises in ``run``, recorded under ``scheme``."""
    out: Counter[tuple[str, bool]] = Counter()
    interval = float(run["interval_s"])
    for name, (topo, classes, samples) in run["switches"].items():
        sch = _make(scheme, topo, classes, interval, params)
        est = Estimator(topo, classes)
        cause: dict[int, str] = {}  # class -> the cause of the last level asked this interval
        level, unadmitted = sch._level, sch._unadmitted

        def asked(c: int, S: float, W: float, free: float, level: Any = level,
                  cause: dict[int, str] = cause) -> float:
            cause[c] = "admitted"
            return float(level(c, S, W, free))

        def none_admits(c: int, unadmitted: Any = unadmitted,
                        cause: dict[int, str] = cause) -> float:
            k = float(unadmitted(c))
            cause[c] = "unadmitted"  # inside ``asked``: the level it returns
            return k

        sch._level = asked
        sch._unadmitted = none_admits
        prev = None
        for i, s in enumerate(samples):
            e = est.update(s)
            t0, prev = prev, s.t
            if e is None or t0 is None:
                continue
            before = list(sch.level)
            cause.clear()
            wrote = sch(e)
            check_replay(name, scheme, samples, i, wrote, classes)
            truth = incast_classes_at(sc, t0, s.t)
            for c, (a, b) in enumerate(zip(before, sch.level, strict=True)):
                if b > a:
                    out[(cause[c], c in truth)] += 1
    return out


def table(runs: Sequence[tuple[SuiteScenario, dict[str, Any]]], scheme: str) -> list[str]:
    """Markdown: per scenario and in all, the raises by cause, with and without incast."""
    rows = [("| scenario | sched | raises | admitted, incast | admitted, none | "
             "unadmitted, incast | unadmitted, none |"), "|---|---|---|---|---|---|---|"]
    total: Counter[tuple[str, bool]] = Counter()
    for sc, run in runs:
        n = raises(run, sc, scheme)
        total.update(n)
        rows.append(_row(sc.name, sc.sched, n))
    rows.append(_row("all", "", total))
    return rows


def _row(name: str, sched: str, n: Counter[tuple[str, bool]]) -> str:
    cells = [str(n[(c, inc)]) for c in CAUSES for inc in (True, False)]
    return f"| {name} | {sched} | {sum(n.values())} | " + " | ".join(cells) + " |"
