"""docs/evaluation.md from the suite's results: every config against DT, per half.

Each (scenario, metric) pair of a config is a win, a tie or a loss against DT at the
operator's alphas, paired by seed: a tie when the difference of the means over the seeds
is within the spread between seeds (half the larger of the two configs' ranges). The
targets of the default controller are read on the evaluation half.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.suite.campaign import GRID, TUNE_SEED, load_results, row_key
from bench.suite.runs import parse_config
from bench.suite.scenarios import (
    DISTRIBUTION,
    EXTENSION_SEED,
    GEN_S,
    N_EXTENSION,
    N_PRIORITY,
    N_SCENARIOS,
    PRIORITY_SEED,
    STEADY,
    STEADY_FRAC,
    SUITE_SEED,
    WARMUPS_S,
)

__all__ = ["METRICS", "Pair", "compare", "near_static", "write_report"]

# (key, label, higher is better)
METRICS = (
    ("qct_ms_p99", "query p99", False),
    ("qct_ms_mean", "query mean", False),
    ("query_timeouts", "queries timed out", False),
    ("short_slowdown_p99", "short-flow p99 slowdown", False),
    ("short_rto_flows", "short flows with a timeout", False),
    ("long_tput_vs_dt", "long-flow throughput", True),
)
# A metric is judged only where every run has this many samples behind it (count field,
# minimum): a p99 over fewer than 100 is a maximum, a ratio over a few long flows is noise.
SAMPLES = {"qct_ms_p99": ("queries", 100), "qct_ms_mean": ("queries", 10),
           "query_timeouts": ("queries", 10), "short_slowdown_p99": ("short_n", 100),
           "short_rto_flows": ("short_n", 10), "long_tput_vs_dt": ("long_n", 10)}
NEVER_WORSE_SHARE = 0.95  # of (scenario, metric) pairs not beyond the seed spread
NEVER_WORSE_MAX = 0.10  # and none worse than DT by more than this
HALVES = {"dev": "development", "eval": "evaluation"}  # the halves, as the report names them
PLACEBO_SEEDS = ([1, 2], [3, 4], [1, 2, 3, 4])  # the seeds the placebo is judged on
GAIN_SHARE = 0.9  # of the reference's median reduction of queries timed out
STATIC_SLACK = 0.10  # within this of the best static setting's query p99 and timeouts
REFERENCE = "auto-reference"
STATIC_LABEL = "best static (each scenario's pick)"
PLOTS = Path(__file__).resolve().parents[2] / "bench" / "results"


@dataclass(frozen=True)
class Pair:
    scenario: str
    metric: str
    verdict: str  # "win", "tie", "loss"
    change: float  # relative to DT, positive = worse
    cand: float
    dt: float


def window(config: str) -> str:
    """The warm-up a config is measured after: two intervals for a 1 s controller."""
    cfg = parse_config(config)
    w = WARMUPS_S[1] if cfg.kind == "alphad" and cfg.interval_s >= 1.0 else WARMUPS_S[0]
    return f"{w:g}s"


def _vals(res: dict[str, Any], sc: str, config: str, seeds: Sequence[int], metric: str,
          win: str) -> list[float]:
    out = []
    for s in seeds:
        r = res["rows"].get(row_key(sc, s, config))
        if r is None or win not in r:  # a row without the window is not judged in it
            return []
        v = r[win].get(metric, float("nan"))
        out.append(float(v) if v is not None else float("nan"))
    return out


def compare(res: dict[str, Any], config: str, scenarios: Sequence[str],
            seeds: Sequence[int] | None = None, against: str = "dt",
            win: str | None = None) -> list[Pair]:
    """Every (scenario, metric) pair of ``config`` against ``against`` (DT by default), on
    ``seeds`` or, by default, on the seeds both ran in each scenario with rows that record
    the window ``win`` (a row's key: by default the config's ``window``)."""
    win = win or window(config)
    pairs = []
    for sc in scenarios:
        ref_cfg = res.get("static_best", {}).get(sc) if against == "static" else against
        if ref_cfg is None:
            continue
        both = seeds if seeds is not None else paired_seeds(res, sc, config, ref_cfg, win)
        for key, _, higher in METRICS:
            c = _vals(res, sc, config, both, key, win)
            d = _vals(res, sc, ref_cfg, both, key, win)
            if key == "long_tput_vs_dt" and against == "dt":
                d = [1.0] * len(c)
            if not c or len(c) != len(d) or any(math.isnan(x) for x in c + d):
                continue
            if not _enough(res, sc, key, win, [(config, both), (ref_cfg, both)]):
                continue
            pairs.append(_judge(sc, key, higher, c, d))
    return pairs


def _enough(res: dict[str, Any], sc: str, key: str, win: str,
            runs: Sequence[tuple[str, Sequence[int]]]) -> bool:
    """Whether no run (config, seeds) behind a pair has fewer than SAMPLES[key] samples (a
    run without the count passes)."""
    field, least = SAMPLES[key]
    return not any(x < least for cfg, seeds in runs for x in _vals(res, sc, cfg, seeds, field,
                                                                     win))


def _judge(sc: str, key: str, higher: bool, c: list[float], d: list[float]) -> Pair:
    """The verdict on one pair: a tie within half the larger of the two ranges over seeds."""
    mc, md = statistics.fmean(c), statistics.fmean(d)
    spread = max(max(c) - min(c), max(d) - min(d)) / 2
    worse = (md - mc) if higher else (mc - md)
    verdict = "loss" if worse > spread else "win" if -worse > spread else "tie"
    change = worse / md if md > 0 else (0.0 if worse == 0 else math.inf)
    return Pair(sc, key, verdict, change, mc, md)


def _configs(res: dict[str, Any], ablations: bool = False) -> list[str]:
    """The configs with rows: the candidates (a scheme at its defaults, or any config run on
    the evaluation half), or (``ablations``) those that set parameters. Static settings are
    references, not candidates (``picks`` judges them)."""
    halves: dict[str, set[str]] = {}
    for k in res["rows"]:
        sc, _, cfg = k.split("|", 2)
        halves.setdefault(cfg, set()).add(res["scenarios"].get(sc, {}).get("half", ""))
    names = {n for n in halves if n not in ("dt", "placebo") and not n.startswith("static:")}
    if ablations:
        names = {n for n in names if base_config(n) != n}
    else:
        names = {n for n in names if base_config(n) == n or "eval" in halves[n]}
    return sorted(names, key=lambda n: (n != "abm", n.split("@")[0], parse_config(n).interval_s,
                                        n))


def base_config(config: str) -> str:
    """``auto[hold=1]@100ms`` -> ``auto@100ms``, ``auto3-no-reset@1s`` -> ``auto3@1s``: what
    an ablation (other parameters, or a variant without one rule) is compared with."""
    head, _, tail = config.partition("@")
    name = head.split("[", 1)[0]
    if tail:
        name = re.sub(r"-no-[a-z]+$", "", name)  # a variant without one rule
    return name + ("@" + tail if tail else "")


def _common_seeds(res: dict[str, Any], sc: str, a: str, b: str) -> list[int]:
    return sorted(set(_seeds(res, sc, a)) & set(_seeds(res, sc, b)))


def paired_seeds(res: dict[str, Any], sc: str, a: str, b: str, win: str) -> list[int]:
    """The seeds both configs ran in ``sc`` whose rows both record the window ``win``."""
    rows = res["rows"]
    return [s for s in _common_seeds(res, sc, a, b)
            if win in rows[row_key(sc, s, a)] and win in rows[row_key(sc, s, b)]]


def _seed_list(res: dict[str, Any], by_scenario: dict[str, str]) -> str:
    """The seeds run, with how many scenarios ran each when that differs."""
    count: dict[int, int] = {}
    for n, c in by_scenario.items():
        for s in _seeds(res, n, c):
            count[s] = count.get(s, 0) + 1
    return ",".join(f"{s}" if c == len(by_scenario) else f"{s} ({c})"
                    for s, c in sorted(count.items()))


def _seeds(res: dict[str, Any], sc: str, config: str) -> list[int]:
    return sorted(int(k.split("|")[1]) for k in res["rows"]
                  if k.startswith(f"{sc}|") and k.endswith(f"|{config}")
                  and int(k.split("|")[1]) != TUNE_SEED)


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return out + [""]


def _pct(x: float) -> str:
    return "inf" if math.isinf(x) else f"{100 * x:+.0f}%"


def _summary(res: dict[str, Any], half: str, configs: Sequence[str]) -> tuple[list[str],
                                                                              dict[str, Any]]:
    scen = {n: s for n, s in res["scenarios"].items() if s["half"] == half}
    lines: list[str] = []
    verdicts: dict[str, Any] = {}
    rows = []
    worst_rows = []
    entries = [(cfg, {n: cfg for n in sorted(scen) if _seeds(res, n, cfg)})
               for cfg in configs]
    picks = {n: b for n, b in sorted(res.get("static_best", {}).items()) if n in scen}
    entries.append((STATIC_LABEL, {n: b for n, b in picks.items() if _seeds(res, n, b)}))
    for cfg, by_scenario in entries:
        if not by_scenario:
            continue
        names = list(by_scenario)
        seeds = _seed_list(res, by_scenario)
        pairs = [p for n, c in by_scenario.items() for p in compare(res, c, [n])]
        if not pairs:
            continue
        label = cfg if cfg == STATIC_LABEL else f"`{cfg}`"
        cells = []
        for key, _, _ in METRICS:
            ps = [p for p in pairs if p.metric == key]
            w, t, lo = (sum(p.verdict == v for p in ps) for v in ("win", "tie", "loss"))
            cells.append(f"{w}/{t}/{lo}")
            if ps:
                wp = max(ps, key=lambda p: p.change)
                worst_rows.append((label, key, wp.scenario, _pct(wp.change)))
        losses = [p for p in pairs if p.verdict == "loss"]
        share_ok = 1 - len(losses) / len(pairs)
        worst = max((p.change for p in losses), default=0.0)
        never_worse = share_ok >= NEVER_WORSE_SHARE and worst <= NEVER_WORSE_MAX
        verdicts[cfg] = {"pairs": len(pairs), "not_worse_share": share_ok,
                         "worst_loss": worst, "never_worse": never_worse,
                         "scenarios": len(names), "seeds": seeds}
        rows.append([label, len(names), seeds, *cells,
                     f"{share_ok:.0%}", _pct(worst), "yes" if never_worse else "**no**"])
    if not rows:
        return [f"No rows on the {half} half yet.", ""], verdicts
    lines += _table(["config", "scenarios", "seeds", *[m[1] for m in METRICS],
                     "pairs not worse", "worst loss", "never worse than DT"], rows)
    lines += [("Each cell: wins / ties / losses against DT. The best static row is the "
               "expert's pick per one-burst-class scenario (DT where nothing beat it). Worst "
               "scenario per metric:"), ""]
    lines += _table(["config", "metric", "scenario", "change vs DT"], worst_rows)
    return lines, verdicts


def _reductions(res: dict[str, Any], half: str, cfg: str) -> dict[str, float]:
    """Per scenario with bursts: the reduction of queries timed out against DT."""
    win = window(cfg)
    red = {}
    for n, s in res["scenarios"].items():
        if s["half"] != half or not s["burst_classes"]:
            continue
        seeds = _common_seeds(res, n, cfg, "dt")
        c = _vals(res, n, cfg, seeds, "query_timeouts", win)
        d = _vals(res, n, "dt", seeds, "query_timeouts", win)
        if c and len(c) == len(d) and statistics.fmean(d) > 0:
            red[n] = 1 - statistics.fmean(c) / statistics.fmean(d)
    return red


def _gain(res: dict[str, Any], half: str, cfg: str) -> float | None:
    """Median reduction of queries timed out against DT over the scenarios with bursts."""
    red = _reductions(res, half, cfg)
    return statistics.median(red.values()) if red else None


def _means(res: dict[str, Any], sc: str, cfg: str, other: str,
           key: str) -> tuple[float, float, float] | None:
    """(cfg's mean, other's mean, half other's range) of a metric over the seeds both ran in
    ``sc``, measured after cfg's warm-up; None without a common seed."""
    seeds = _common_seeds(res, sc, cfg, other)
    win = window(cfg)
    c = _vals(res, sc, cfg, seeds, key, win)
    o = _vals(res, sc, other, seeds, key, win)
    if not c or len(c) != len(o):
        return None
    return statistics.fmean(c), statistics.fmean(o), (max(o) - min(o)) / 2


def near_static(res: dict[str, Any], sc: str, cfg: str, best: str) -> bool | None:
    """Whether cfg is within STATIC_SLACK of the static setting ``best``'s query p99 and
    queries timed out in ``sc``, with short flows no worse (beyond best's spread), over the
    seeds both ran; None without a common seed."""
    vals = {}
    for key in ("qct_ms_p99", "query_timeouts", "short_slowdown_p99", "short_rto_flows"):
        m = _means(res, sc, cfg, best, key)
        if m is None:
            return None
        vals[key] = m
    near = all(c <= (1 + STATIC_SLACK) * s + sp for c, s, sp in
               (vals["qct_ms_p99"], vals["query_timeouts"]))
    short = all(c <= s + sp for c, s, sp in
                (vals["short_slowdown_p99"], vals["short_rto_flows"]))
    return near and short


def _static(res: dict[str, Any], half: str, cfg: str) -> tuple[int, int]:
    """(scenarios within STATIC_SLACK of the best static setting with short flows no worse,
    scenarios compared) on the one-burst-class scenarios."""
    ok = n = 0
    for sc, best in res.get("static_best", {}).items():
        if res["scenarios"][sc]["half"] != half:
            continue
        verdict = near_static(res, sc, cfg, best)
        if verdict is not None:
            n += 1
            ok += verdict
    return ok, n


def _gain_verdict(res: dict[str, Any], half: str, cfg: str) -> str:
    """Whether cfg's median reduction is GAIN_SHARE of the reference's at the same interval,
    both over the scenarios where both ran."""
    head, _, tail = cfg.partition("@")
    if head == REFERENCE or not tail:
        return "-"
    mine, ref = _reductions(res, half, cfg), _reductions(res, half, f"{REFERENCE}@{tail}")
    both = sorted(set(mine) & set(ref))
    if not both:
        return "-"
    g, r = (statistics.median(x[n] for n in both) for x in (mine, ref))
    return "yes" if g >= GAIN_SHARE * r else "**no**"


def _static_detail(res: dict[str, Any], half: str, configs: Sequence[str]) -> list[str]:
    """Per one-burst-class scenario: each config's query p99 and queries timed out over the
    best static setting's (mean over the seeds both ran; below 1 is better)."""
    rows = []
    for sc, best in sorted(res.get("static_best", {}).items()):
        if res["scenarios"][sc]["half"] != half:
            continue
        cells = []
        for cfg in configs:
            ratios = []
            for key in ("qct_ms_p99", "query_timeouts"):
                m = _means(res, sc, cfg, best, key)
                if m is None:
                    ratios.append("-")
                    continue
                mc, mb, _ = m
                ratios.append(f"{mc / mb:.2f}" if mb > 0 else ("1.00" if mc == 0 else "inf"))
            cells.append(" / ".join(ratios))
        rows.append([sc, f"`{best}`", *cells])
    if not rows:
        return []
    return [("Against the best static setting, per one-burst-class scenario: query p99 / "
             "queries timed out, the config's over the setting's (below 1 is better):"), "",
            *_table(["scenario", "best static", *[f"`{c}`" for c in configs]], rows)]


def _gains(res: dict[str, Any], half: str, configs: Sequence[str],
           verdicts: dict[str, Any]) -> list[str]:
    """The gain and near-static table of the configs with verdicts on this half (those that
    ran there), and the detail per one-burst-class scenario."""
    ran = [c for c in configs if c in verdicts]
    if not ran:
        return []
    gains = {c: _gain(res, half, c) for c in ran}
    rows = [[f"`{c}`", "-" if gains[c] is None else f"{gains[c]:.0%}",
             _gain_verdict(res, half, c), f"{ok}/{n}" if n else "-"]
            for c, ok, n in ((c, *_static(res, half, c)) for c in ran)]
    lines = [("Median reduction of queries timed out against DT (scenarios with bursts), "
              f"whether it is at least {GAIN_SHARE:.0%} of `{REFERENCE}`'s at the same "
              "interval on the scenarios both ran, and one-burst-class scenarios within "
              f"{STATIC_SLACK:.0%} of the best static setting's query p99 and queries "
              "timed out with short flows no worse:"), ""]
    lines += _table(["config", "median reduction", f"vs `{REFERENCE}`",
                     "near the best static"], rows)
    return lines + _static_detail(res, half, ran)


def _superseded(res: dict[str, Any]) -> list[str]:
    """Rows of earlier code, per (config, code hash), against DT as they stood."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for k, row in res.get("superseded", {}).items():
        sc, seed, cfg, code = k.rsplit("|", 3)
        groups.setdefault((cfg, code), {})[row_key(sc, int(seed), cfg)] = row
    rows = []
    for (cfg, code), old in sorted(groups.items()):
        then = {**res, "rows": {**res["rows"], **old}}
        names = sorted({k.split("|")[0] for k in old})
        pairs = [p for n in names
                 for p in compare(then, cfg, [n], [int(k.split("|")[1]) for k in old
                                                    if k.startswith(f"{n}|")])]
        if not pairs:
            continue
        losses = [p for p in pairs if p.verdict == "loss"]
        rows.append([f"`{cfg}`", f"`{code}`", len(names), len(pairs),
                     f"{1 - len(losses) / len(pairs):.0%}",
                     _pct(max((p.change for p in losses), default=0.0))])
    if not rows:
        return []
    return ["## Superseded rows", "",
            ("Rows of a config whose code has since changed, against DT on the seeds they "
             "ran (`unknown`: rows from before the code hash was recorded):"), "",
            *_table(["config", "code", "scenarios", "pairs", "pairs not worse", "worst loss"],
                    rows)]


def _plot(res: dict[str, Any], half: str, configs: Sequence[str], path: Path) -> bool:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    drawn = False
    scen = [n for n, s in res["scenarios"].items() if s["half"] == half]
    for ax, (key, label, higher) in zip(axes.flat, METRICS, strict=True):
        for cfg in configs:
            names = [n for n in scen if _seeds(res, n, cfg)]
            if not names:
                continue
            pairs = compare(res, cfg, names)
            r = sorted((p.cand / p.dt) if p.dt > 0 else 1.0 for p in pairs if p.metric == key)
            if not r:
                continue
            y = [0.0] + [(i + 1) / len(r) for i in range(len(r))]
            ax.step([r[0], *r], y, where="post", label=cfg)
            drawn = True
        ax.axvline(1.0, color="grey", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(f"{label} / DT ({'higher' if higher else 'lower'} is better)", fontsize=9)
        ax.set_ylabel("share of scenarios", fontsize=8)
    if drawn:
        axes.flat[0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=90)
    plt.close(fig)
    return drawn


def _longer(results: Path) -> list[str]:
    """A section per results file of longer runs beside ``results`` (``run --gen G``, in
    ``suite-gen<G>s.json`` or a file named with ``--out`` as ``suite-gen<G>s-<name>.json``):
    each config against DT on each half, as ``compare`` prints it."""
    from bench.suite.ablations import versus  # it builds on this module's comparisons

    lines: list[str] = []
    for f in sorted(results.parent.glob("suite-gen*.json"), key=lambda f: (len(f.name), f)):
        res = load_results(f)
        gen = res.get("meta", {}).get("gen_s")
        if gen is None or not res["rows"]:
            continue
        own = f.name != f"suite-gen{gen:g}s.json"  # a campaign's own file (``--out``)
        lines += [f"## Runs of {gen:g} s" + (f" in `{f.name}`" if own else ""), "",
                  (f"Flows start for {gen:g} s instead of {GEN_S:g} (`run --gen {gen:g}`; "
                   "time-varying traffic cycles its phases over them, the same warm-ups), "
                   f"so a 1 s controller is judged on about {gen - WARMUPS_S[1]:g} decisions. "
                   f"From `bench/results/{f.name}`; `python -m bench.suite compare --results "
                   f"bench/results/{f.name} --half H --configs C` gives each table."), ""]
        cfgs = sorted({k.split("|", 2)[2] for k in res["rows"]} - {"dt"})
        for half in ("eval", "dev"):
            names = {n for n, sc in res["scenarios"].items() if sc["half"] == half}
            ran = [c for c in cfgs if any(_seeds(res, n, c) for n in names)]
            if ran:
                lines += [f"### {HALVES[half].capitalize()} half", "",
                          *versus(res, ran, names)]
            steady = [c for c in ran if compare(res, c, sorted(names), win=STEADY)]
            if steady:
                lines += [f"#### {HALVES[half].capitalize()} half, steady state", "",
                          (f"What starts in the last {STEADY_FRAC:.0%} of the start period "
                           f"({gen * (1 - STEADY_FRAC):g}-{gen:g} s), the controller's "
                           "start-up transient left out (`compare --steady`), on the rows "
                           "that record it:"), "",
                          *versus(res, steady, names, win=STEADY)]
    return lines


def write_report(results: Path, out: Path) -> None:
    from bench.suite import ablations, null  # they build on this module's comparisons

    res = load_results(results)
    configs = _configs(res)
    lines = [
        "# Evaluation on the scenario suite",
        "",
        ("Generated by `python -m bench.suite report` from `bench/results/suite.json`; rows "
        "come from `python -m bench.suite run` (see [the suite](../bench/suite/README.md)). "
        f"{N_SCENARIOS} scenarios drawn with seed {SUITE_SEED}, split by a hash into a "
        "development half (controllers are designed on it) and an evaluation half (run once "
        "per frozen design; every config's rows stay, losers included). The development "
        f"half also holds {N_EXTENSION} scenarios drawn with seed {EXTENSION_SEED} with "
        "DCTCP and data-mining sizes (`d00`..), and "
        f"{N_PRIORITY} drawn with seed {PRIORITY_SEED} with strict priority, DCTCP, static "
        "traffic and two or three classes (`p00`..): strata the hash had left almost all to "
        "the evaluation half."),
        "",
        (f"Metrics count what starts after {WARMUPS_S[0]:g} s ({WARMUPS_S[1]:g} s for 1 s "
        "controllers, whose first decision comes at two intervals), paired with DT at the "
        "operator's alphas on the same seed. Long-flow throughput is the geometric mean over "
        "flows of 1 MB or more of DT's completion time over the config's."),
        "",
        ("In DCTCP scenarios each socket's send buffer holds a leaf's buffer plus the base "
         "BDP, so a window's surplus cannot queue in the sending host; Cubic's is unbounded "
         "([research/controller.md](research/controller.md"
         "#why-the-dctcp-scenarios-run-slowly-unbounded-windows-in-the-harness))."),
        "",
        ("A (scenario, metric) pair is judged only where every run behind it has enough "
         "samples: 100 queries or short flows for a p99, 10 queries, short flows or long "
         "flows for the other metrics."),
        "",
    ]
    verdicts: dict[str, Any] = {}
    for half in ("eval", "dev"):
        lines += [f"## {HALVES[half].capitalize()} half", ""]
        body, v = _summary(res, half, configs)
        lines += body
        verdicts[half] = v
        png = PLOTS / f"suite-{half}.png"
        if _plot(res, half, configs, png):
            lines += [f"![ratio to DT, {HALVES[half]} half](../bench/results/{png.name})", ""]
        lines += _gains(res, half, configs, v)
    lines += ablations.section(res)
    lines += null.section(res)
    lines += _longer(results)
    lines += _superseded(res)
    picks = res.get("static_best", {})
    if picks:
        lines += ["## The best static setting", "",
                  (f"Searched on seed {TUNE_SEED} over DT and the grid "
                  f"{', '.join(GRID)} (burst class, other classes)."), ""]
        lines += _table(["scenario", "half", "setting"],
                        [[n, res["scenarios"][n]["half"], f"`{b}`"] for n, b in
                         sorted(picks.items())])
    lines += ["## Scenarios", "", f"Distribution: `{DISTRIBUTION}`", ""]
    lines += _table(["name", "half", "scenario"],
                    [[n, s["half"], s.get("describe", "")] for n, s in
                     sorted(res["scenarios"].items())])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines).rstrip() + "\n")
