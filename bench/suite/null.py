"""The rule against itself: what the never-worse rule calls a config that changes nothing.

Two references for every verdict in the report: DT judged against DT on other seeds (the
rule's false-loss rate when runs differ as much as seeds do), and the placebo, DT with every
alpha a hair above the operator's, judged against DT on the same seeds (a config that acts
on the same arrivals and changes nothing).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bench.suite.report import (
    HALVES,
    METRICS,
    NEVER_WORSE_MAX,
    PLACEBO_SEEDS,
    Pair,
    _common_seeds,
    _enough,
    _judge,
    _pct,
    _seeds,
    _table,
    _vals,
    compare,
    window,
)
from bench.suite.runs import PLACEBO_EPS
from bench.suite.scenarios import SUITE_SEED

__all__ = ["null_pairs", "placebo_pairs", "section", "simulated_null"]


def null_pairs(res: dict[str, Any], scenarios: Sequence[str], k: int = 2) -> list[Pair]:
    """DT on k seeds judged against DT on k other seeds by the same rule, per scenario with
    2k seeds of DT: what a config with DT's behaviour, whose runs differ from DT's as much
    as other seeds' do, would be called by chance. Long-flow throughput is DT's by
    definition, and is left out."""
    pairs = []
    for sc in scenarios:
        seeds = _seeds(res, sc, "dt")
        if len(seeds) < 2 * k:
            continue
        a, b = seeds[:k], seeds[k:2 * k]
        for key, _, higher in METRICS:
            if key == "long_tput_vs_dt":
                continue
            win = window("dt")
            c, d = (_vals(res, sc, "dt", s, key, win) for s in (a, b))
            if not c or not d or any(math.isnan(x) for x in c + d) or \
                    not _enough(res, sc, key, win, [("dt", a), ("dt", b)]):
                continue
            pairs.append(_judge(sc, key, higher, c, d))
    return pairs


def simulated_null(k: int, sigma: float | None = None, n: int = 100_000) -> float:
    """The rule's false-loss rate on draws from one distribution, k seeds each side:
    normal, or lognormal with ``sigma`` (heavy tails)."""
    import numpy as np

    rng = np.random.default_rng(SUITE_SEED)
    draw = (lambda: rng.normal(size=(n, k))) if sigma is None else (
        lambda: rng.lognormal(0.0, sigma, size=(n, k)))
    c, d = draw(), draw()
    spread = np.maximum(np.ptp(c, axis=1), np.ptp(d, axis=1)) / 2
    return float(np.mean(c.mean(axis=1) - d.mean(axis=1) > spread))


def placebo_pairs(res: dict[str, Any], seeds: Sequence[int],
                  half: str | None = None) -> list[Pair]:
    """The placebo (DT's policy on another trajectory) against DT on the same ``seeds``, in
    every scenario (of ``half``, if given) where both ran them all: the rule's false losses
    for a config that acts on the same arrivals."""
    names = [n for n in sorted(res["scenarios"])
             if (half is None or res["scenarios"][n]["half"] == half)
             and set(seeds) <= set(_common_seeds(res, n, "placebo", "dt"))]
    return compare(res, "placebo", names, seeds=seeds)


def placebo_section(res: dict[str, Any]) -> list[str]:
    rows = []
    for half, name in HALVES.items():
        for seeds in PLACEBO_SEEDS:
            pairs = placebo_pairs(res, seeds, half)
            if not pairs:
                continue
            lo = [p for p in pairs if p.verdict == "loss"]
            wi = [p for p in pairs if p.verdict == "win"]
            big = sum(p.change > NEVER_WORSE_MAX for p in lo)
            top = max(lo, key=lambda p: p.change, default=None)
            rows.append([name, ",".join(map(str, seeds)),
                         len({p.scenario for p in pairs}), len(pairs),
                         f"{len(lo)} ({len(lo) / len(pairs):.0%})", big, len(wi),
                         "-" if top is None else f"{_pct(top.change)} ({top.metric}, "
                         f"{top.scenario})"])
    if not rows:
        return []
    return ["", (f"The placebo (`placebo`: DT with every alpha {1 + PLACEBO_EPS:g} times the "
             "operator's, the same policy on another trajectory) judged against DT on the "
             "same seeds: what the rule calls a config that acts but changes nothing."), "",
            *_table(["half", "seeds", "scenarios", "pairs", "losses",
                     f"beyond {NEVER_WORSE_MAX:.0%}", "wins", "largest loss"], rows)]


def section(res: dict[str, Any]) -> list[str]:
    """The rule's false-loss rate: DT against itself on other seeds, and the placebo."""
    pairs = null_pairs(res, sorted(res["scenarios"]))
    if not pairs:
        return []
    lo = [p for p in pairs if p.verdict == "loss"]
    names = sorted({p.scenario for p in pairs})
    top = max(lo, key=lambda p: p.change, default=None)
    largest = "" if top is None else f", the largest {_pct(top.change)} ({top.metric}, " \
        f"{top.scenario})"
    return [
        "## The rule against itself", "",
        (f"DT on its first two seeds judged against DT on the next two, by the rule above, "
         f"in {len(names)} scenarios ({', '.join(names)}): {len(lo)} of {len(pairs)} pairs "
         f"({len(lo) / len(pairs):.0%}) are losses{largest}. A config whose runs differ "
         "from DT's on the same seed as much as another seed's do is called worse that "
         "often by chance; paired runs of a config that seldom acts differ far less."), "",
        *_table(["seeds per config", "false losses, normal draws", "lognormal, sigma 1",
                 "lognormal, sigma 2"],
                [[k, *(f"{simulated_null(k, s):.0%}" for s in (None, 1.0, 2.0))]
                 for k in (2, 3, 4)]),
        *placebo_section(res),
    ]
