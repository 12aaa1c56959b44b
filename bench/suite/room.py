"""The room a raise would take, in telemetry recorded under DT.

A raise lets a class's burst hold X more bytes of the shared pool. A queue q of another
class stays admitted while its peak W_q < alpha_q (F - X) (DT's admission rule, F the
pool's free buffer at its peak), so the room a raise may take without costing q is
F - W_q / alpha_q. For each interval of a recording (replayed at ``interval_s``) in which
`auto`'s burst test flags a queue, ``seconds`` measures that room beside every other
class's queues, beside those of them that lost nothing, and beside every queue that sent
at line rate (what `auto26` protects), with what else the interval
shows: the flagged classes' loss, the highest rate and peak of another class's queue,
the free buffer. A scheme's own run (recorded as ``power`` records it) is measured the same
way. ``table`` tabulates it per scenario: whether the room predicts where a raise harms.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from alphad.estimate import Estimator
from alphad.schemes import auto18

from bench.suite.scenarios import SuiteScenario
from bench.suite.telemetry import _coarsen, _idle_loss

__all__ = ["Interval", "seconds", "table"]


@dataclass(frozen=True)
class Interval:
    """One interval with a burst, in shares of the buffer B (rates of line rate)."""

    room_all: float  # (F - max W_q / alpha_q) / B over the other classes' queues
    room_clean: float  # ... over those of them that lost nothing
    room_line: float  # ... over every queue that sent at line rate (1 - idle_util or more)
    burst_loss: float  # dropped over offered bytes of the flagged classes' queues
    other_rate: float  # the highest rate of another class's queue
    other_peak: float  # the highest peak of another class's queue, over B
    free: float  # F / B


def seconds(rec: dict[str, Any], interval_s: float = 1.0) -> list[Interval]:
    """Every interval of ``rec`` with a burst, at ``interval_s`` (or the recording's)."""
    k = max(round(interval_s / float(rec["interval_s"])), 1)
    p = dict(auto18.DEFAULTS)
    out = []
    for topo, cl, samples in rec["switches"].values():
        est = Estimator(topo, cl)
        B = float(topo.buffer_bytes)
        port = topo.queue_port
        for s in _coarsen(samples, k):
            e = est.update(s)
            if e is None:
                continue
            managed = cl.prio >= 0
            burst = _idle_loss(e, port, cl.prio, p) & managed
            if not burst.any():
                continue
            other = managed & ~np.isin(cl.prio, np.unique(cl.prio[burst]))
            need = np.asarray(e.watermark, dtype=float) / np.maximum(s.alpha, 1e-12)
            clean = other & (e.drop_delta == 0)
            line = managed & (e.rate >= 1.0 - p["idle_util"])  # any class: as `auto26`
            offered = e.tx_delta + e.drop_delta
            out.append(Interval(
                room_all=(e.free - (need[other].max() if other.any() else 0.0)) / B,
                room_clean=(e.free - (need[clean].max() if clean.any() else 0.0)) / B,
                room_line=(e.free - (need[line].max() if line.any() else 0.0)) / B,
                burst_loss=float(e.drop_delta[burst].sum() / max(offered[burst].sum(), 1.0)),
                other_rate=float(e.rate[other].max()) if other.any() else 0.0,
                other_peak=float(np.max(e.watermark[other])) / B if other.any() else 0.0,
                free=e.free / B))
    return out


def table(recs: Sequence[tuple[SuiteScenario, dict[str, Any]]],
          interval_s: float = 1.0) -> list[str]:
    """Markdown: per scenario, the intervals with a burst, those without room, the medians."""
    rows = [("| scenario | seed | intervals with a burst | no room beside any other queue's "
             "peak | ... beside those that lost nothing | ... beside any queue at line rate | "
             "flagged classes' loss (median) | "
             "highest rate of another class's queue (median) | highest peak of another "
             "class's queue (median) | free buffer (median) |"),
            "|---|---|---|---|---|---|---|---|---|---|"]
    for sc, rec in recs:
        xs = seconds(rec, interval_s)
        if not xs:
            rows.append(f"| {sc.name} | {rec['seed']} | 0 | | | | | | | |")
            continue

        def med(f: str, xs: list[Interval] = xs) -> str:
            return f"{statistics.median(getattr(x, f) for x in xs):.2f}"

        rows.append(f"| {sc.name} | {rec['seed']} | {len(xs)} | "
                    f"{sum(x.room_all <= 0 for x in xs)} | "
                    f"{sum(x.room_clean <= 0 for x in xs)} | "
                    f"{sum(x.room_line <= 0 for x in xs)} | {med('burst_loss')} | "
                    f"{med('other_rate')} | {med('other_peak')} | {med('free')} |")
    return rows
