"""The ablation table: each parameter changed alone against its scheme's defaults, beside
the placebo against DT, which shows what a change that means nothing does to the figures.

Two measures per ablation:
- whether it acts: the runs whose alpha writes differ from the defaults' on the same
  scenario and seed (the harness is deterministic, so any difference is the parameter's);
- what it does: (scenario, metric) pairs beyond the seed spread, pairs changed by more
  than ABLATION_CHANGE, and the mean change over scenarios. A change in what a controller
  writes sends the simulation down another trajectory, so every figure moves; the
  placebo's rows are the size of that movement with these seeds.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from bench.suite.campaign import row_key
from bench.suite.null import placebo_pairs
from bench.suite.report import (
    METRICS,
    NEVER_WORSE_MAX,
    PLACEBO_SEEDS,
    Pair,
    _configs,
    _pct,
    _seeds,
    _table,
    _vals,
    base_config,
    compare,
    paired_seeds,
    window,
)

__all__ = ["ABLATION_CHANGE", "change_interval", "mean_change", "other_writes", "per_seed",
           "section", "versus"]

ABLATION_CHANGE = 0.05  # an ablation's change beyond this, on one pair, counts
SE_FACTOR = 2.0  # standard errors either side of the mean change (about 95%)
CLIP = 4.0  # a pair's ratio is clipped to [1/CLIP, CLIP]: one count of 0 against 3 is not inf
_HIGHER = {k: h for k, _, h in METRICS}


def log_ratio(p: Pair) -> float:
    """ln(config / reference) of one pair, positive when the config is worse, clipped."""
    c, d = (p.dt, p.cand) if _HIGHER[p.metric] else (p.cand, p.dt)
    if c == d:
        return 0.0
    r = c / d if d > 0 and c > 0 else (CLIP if c > d else 1 / CLIP)
    return max(-math.log(CLIP), min(math.log(CLIP), math.log(r)))


def _per_scenario(pairs: Sequence[Pair]) -> list[float]:
    """Each scenario's mean log ratio over its metrics."""
    by: dict[str, list[float]] = {}
    for p in pairs:
        by.setdefault(p.scenario, []).append(log_ratio(p))
    return [statistics.fmean(v) for v in by.values()]


def mean_change(pairs: Sequence[Pair]) -> float:
    """The geometric mean over scenarios of each scenario's geometric mean ratio over its
    metrics, minus one (positive: worse): one number per scenario, so that a scenario's
    correlated metrics count once."""
    per = _per_scenario(pairs)
    return math.exp(statistics.fmean(per)) - 1 if per else float("nan")


def change_interval(pairs: Sequence[Pair]) -> tuple[float, float]:
    """``mean_change`` minus and plus SE_FACTOR standard errors of the mean over scenarios
    (nan with fewer than two scenarios): a change resolved by these runs lies outside it
    at zero."""
    per = _per_scenario(pairs)
    if len(per) < 2:
        return float("nan"), float("nan")
    m, se = statistics.fmean(per), statistics.stdev(per) / math.sqrt(len(per))
    return math.exp(m - SE_FACTOR * se) - 1, math.exp(m + SE_FACTOR * se) - 1


def other_writes(res: dict[str, Any], cfg: str, base: str,
                 names: Sequence[str]) -> tuple[int, int]:
    """(runs whose alpha writes differ from ``base``'s, runs where both have a digest)."""
    differ = both = 0
    for n in names:
        for s in set(_seeds(res, n, cfg)) & set(_seeds(res, n, base)):
            a = res["rows"][row_key(n, s, cfg)].get("writes_sha")
            b = res["rows"][row_key(n, s, base)].get("writes_sha")
            if a is not None and b is not None:
                both += 1
                differ += a != b
    return differ, both


def _scenarios_seeds(res: dict[str, Any], cfg: str, base: str, names: Sequence[str],
                     win: str | None = None, seeds: Sequence[int] | None = None) -> str:
    """How many scenarios, and the seeds each has for both configs ("19 (2-4)"), in the
    window ``win`` (by default ``cfg``'s); ``seeds`` where the comparison was given them."""
    n = [len(seeds) if seeds is not None else
         len(paired_seeds(res, s, cfg, base, win or window(cfg))) for s in names]
    lo, hi = min(n, default=0), max(n, default=0)
    return f"{len(names)} ({lo}-{hi})" if lo != hi else f"{len(names)} ({lo})"


def _cells(pairs: Sequence[Pair]) -> list[str]:
    win = sum(p.verdict == "win" for p in pairs)
    loss = sum(p.verdict == "loss" for p in pairs)
    better = sum(p.change < -ABLATION_CHANGE for p in pairs)
    worse = sum(p.change > ABLATION_CHANGE for p in pairs)
    timed = [p.change for p in pairs if p.metric == "query_timeouts"]
    lo, hi = change_interval(pairs)
    return [f"{win} / {loss}", f"{better} / {worse}", _pct(mean_change(pairs)),
            f"{_pct(lo)} to {_pct(hi)}" if not math.isnan(lo) else "-",
            _pct(statistics.median(timed)) if timed else "-"]


def versus(res: dict[str, Any], configs: Sequence[str], names: set[str] | Sequence[str],
           against: str = "dt", seeds: Sequence[int] | None = None,
           win: str | None = None) -> list[str]:
    """A table of each config against ``against`` on the scenarios of ``names`` that both
    ran (``python -m bench.suite compare``): the ablation table's measures, the share of
    pairs not worse beyond the spread and the pairs worse by more than NEVER_WORSE_MAX;
    in the window ``win`` (a row's key; by default each config's)."""
    rows = []
    for cfg in configs:
        ran = [n for n in sorted(names) if n in res["scenarios"]
               and set(_seeds(res, n, cfg)) & set(_seeds(res, n, against))]
        by_sc = {n: compare(res, cfg, [n], seeds, against=against, win=win) for n in ran}
        ran = [n for n in ran if by_sc[n]]  # scenarios with a pair judged (rows in the window)
        pairs = [p for n in ran for p in by_sc[n]]
        if not pairs:
            rows.append([f"`{cfg}`", "0", *["-"] * 7])
            continue
        losses = [p for p in pairs if p.verdict == "loss"]
        big = [f"{p.scenario} {p.metric} {_pct(p.change)}" for p in losses
               if p.change > NEVER_WORSE_MAX]
        rows.append([f"`{cfg}`", _scenarios_seeds(res, cfg, against, ran, win, seeds),
                     f"{1 - len(losses) / len(pairs):.0%} of {len(pairs)}", *_cells(pairs),
                     "; ".join(big) or "none"])
    return _table(["config", "scenarios (seeds each)", "pairs not worse",
                   "beyond the spread (better / worse)",
                   f"by more than {ABLATION_CHANGE:.0%} (better / worse)",
                   f"mean change vs `{against}`", f"mean change, {SE_FACTOR:g} SE",
                   "queries timed out (median change)",
                   f"worse by more than {NEVER_WORSE_MAX:.0%}"], rows)


def _num(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def per_seed(res: dict[str, Any], configs: Sequence[str], names: set[str] | Sequence[str],
             against: str = "dt", seeds: Sequence[int] | None = None,
             win: str | None = None) -> list[str]:
    """Each config's values against ``against``'s, seed by seed on the same arrivals, per
    scenario and metric (``compare --per-seed``), with the seeds on which it is worse: a
    paired count that the verdict's seed spread does not use."""
    rows = []
    for n in sorted(names):
        if n not in res["scenarios"]:
            continue
        for cfg in configs:
            both = list(seeds) if seeds is not None else paired_seeds(
                res, n, cfg, against, win or window(cfg))
            for key, _, higher in METRICS:
                c = _vals(res, n, cfg, both, key, win or window(cfg))
                d = _vals(res, n, against, both, key, win or window(cfg))
                if not c or len(c) != len(d):
                    continue
                if key == "long_tput_vs_dt" and against == "dt":
                    d = [1.0] * len(c)
                worse = sum((x < y) if higher else (x > y) for x, y in zip(c, d, strict=True))
                rows.append([n, f"`{cfg}`", key, ",".join(map(str, both)),
                             ", ".join(map(_num, d)), ", ".join(map(_num, c)),
                             f"{worse} of {len(c)}"])
    return _table(["scenario", "config", "metric", "seeds", f"`{against}`", "config",
                   "worse on"], rows)


def section(res: dict[str, Any]) -> list[str]:
    """The ablation section of docs/evaluation.md (empty without ablation rows)."""
    rows = []
    for cfg in _configs(res, ablations=True):
        base = base_config(cfg)
        names = [n for n in sorted(res["scenarios"])  # a design tool: the development half
                 if res["scenarios"][n]["half"] == "dev" and _seeds(res, n, cfg)
                 and _seeds(res, n, base)]
        pairs = compare(res, cfg, names, against=base)
        if not pairs:
            continue
        differ, both = other_writes(res, cfg, base, names)
        top = max(pairs, key=lambda p: abs(p.change))
        rows.append([f"`{cfg}`", f"`{base}`", _scenarios_seeds(res, cfg, base, names),
                     f"{differ} of {both}" if both else "-", *_cells(pairs),
                     f"{_pct(top.change)} ({top.metric}, {top.scenario})"])
    if not rows:
        return []
    for seeds in PLACEBO_SEEDS:
        pairs = placebo_pairs(res, seeds, "dev")
        if pairs:
            rows.append([f"`placebo` (seeds {','.join(map(str, seeds))})", "`dt`",
                         f"{len({p.scenario for p in pairs})} ({len(seeds)})", "-",
                         *_cells(pairs), "-"])
    return [
        "## Ablations", "",
        ("Each parameter changed alone, or one rule removed (`<scheme>-no-<rule>`), against "
         "the scheme's defaults on the same development scenarios and seeds (how many seeds "
         "each scenario has varies between rows: the seeds both ran). *Runs that write "
         "otherwise*: the (scenario, seed) runs whose alpha writes differ from the "
         "defaults' (the simulation is deterministic, so the difference is the "
         "parameter's). Then, over (scenario, metric) pairs: better / worse beyond the "
         f"spread between seeds; better / worse by more than {ABLATION_CHANGE:.0%}; the "
         "mean change (geometric mean over scenarios of the ratio to the defaults, each "
         f"clipped to [1/{CLIP:g}, {CLIP:g}]; positive = worse with the ablation, so the "
         f"default's value helps) and its range at {SE_FACTOR:g} standard errors over the "
         "scenarios: a change these runs resolve has a range that excludes 0%."), "",
        ("The last rows are the placebo (DT's policy on another trajectory) against DT on "
         "the same seeds: a change that means nothing, measured the same way. An ablation "
         "whose figures lie within the placebo's shows no effect these seeds can resolve, "
         "whether or not it acts."), "",
        *_table(["ablation", "against", "scenarios (seeds each)", "runs that write otherwise",
                 "beyond the spread (better / worse)",
                 f"by more than {ABLATION_CHANGE:.0%} (better / worse)", "mean change",
                 f"mean change, {SE_FACTOR:g} SE",
                 "queries timed out (median change)", "largest change"], rows),
    ]
