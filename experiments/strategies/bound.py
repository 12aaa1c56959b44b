"""What any per-class static alpha can do in scenario (c), phase by phase.

    python -m experiments.strategies.bound    # after run --only c (uses its cached runs)
    python -m experiments.strategies.bound --seeds 1,2,3  # the grid on the result seeds
                                        # (30 runs) + bench/results/strategies-lag.png

For every point of (c)'s dt-static grid, run on the tuning seed, the share of queries of
each 2 s phase that waited for a timeout (QCT >= the 10 ms minimum RTO). The *phase
oracle* takes, for every phase, the grid point that was best in that phase — a
controller that knows the phases in advance and switches instantly — and reports its
query p99 and timeout share over the whole run. If even the oracle's p99 is the RTO,
no per-class alpha that adapts phase by phase can move (c)'s p99 off it: the queries
it loses are lost within a phase, to first-RTT drops that only a per-packet scheme
(ABM's first-RTT priority) avoids.

The *lagged oracle* is the oracle of a controller that learns each phase from
telemetry: it switches to the phase's best setting `lag` seconds after the phase
starts and keeps the previous phase's (phase 0: the operator's 0.5) until then; a
query takes its completion time from the run of the setting in force when it started
(the same seed sends the same queries under every setting). A controller fed telemetry
every 100 ms learns a new phase no sooner than one interval in. *generous* gives every
lag window one setting instead, the grid point best over all of them in hindsight (a
controller that knows when a phase changes, not to what, and holds a compromise). With
--seeds the picks are the best on those seeds. The splice ignores the buffer each
setting leaves at the switch, so it is a guide, not a bound to the millisecond.

The *joint* oracle chooses the four phases' settings together, knowing that each
phase's first `lag` s run on the previous phase's: a steady state may give up some of
its own phase for a better start of the next (the compromise a controller would have to
hold all along, since it cannot see a phase change coming). It knows the phase sequence
in advance and picks on the seeds it is scored on, so it is optimistic. --wide adds
alphas 1/16 and 16 to the grid (33 more runs with --seeds 1,2,3).

--first PHASE prints what that phase's first 100 ms costs under every static setting
from 1/4 to 16: the interval a controller fed 100 ms telemetry spends on the alphas it
held before the phase (49 runs per seed, those of `schedule.py --fine`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np
from alphad_ns3.analysis import load_run, percentile
from alphad_ns3.scenario import RunSpec
from alphad_ns3.window import MIN_RTO_MS

from experiments.strategies import run as campaign

PHASE_S, PHASES = 2.0, 4


def qcts(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(QCT in ms, phase index, seconds into the phase) of every query of a run."""
    r = load_run(path)
    q = r.queries
    qct = np.where(q["end_ns"] >= 0, q["qct_ns"], r.end_ns - q["start_ns"]) / 1e6
    phase_ns = int(PHASE_S * 1e9)
    return (qct, np.minimum(q["start_ns"] // phase_ns, PHASES - 1),
            (q["start_ns"] % phase_ns) / 1e9)


LAGS = (0.0, 0.008, 0.05, 0.1, 0.2, 0.5, 1.0)
TWICE_MS = 25.0  # a query that waited for two timeouts (10 ms minimum RTO + 20 ms backoff)
OPERATOR = (0.5, 0.5)  # every run starts from the operator's alpha
DT_STATIC = (1.0, 1.0)  # run.py's tuned dt-static point for (c)


def grids() -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """The expert's grid (1/4..4 per class, and the operator's point) and what --wide
    adds: every setting with a 16, and 1/16 beside 4."""
    grid = [OPERATOR] + list(itertools.product(campaign.pow2([-2, 0, 2]), repeat=2))
    wide = [a for a in itertools.product(campaign.pow2([-4, -2, 0, 2, 4]), repeat=2)
            if a not in grid and (16.0 in a or (1 / 16 in a and 4.0 in a))]
    return grid, wide


def stats(qcts: list[np.ndarray]) -> tuple[float, float, float]:
    """Means over the seeds of the query p99 (ms), the share timed out once and twice."""
    return (float(np.mean([percentile(q, 99) for q in qcts])),
            float(np.mean([np.mean(q >= MIN_RTO_MS) for q in qcts])),
            float(np.mean([np.mean(q >= TWICE_MS) for q in qcts])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default=str(campaign.TUNE_SEED),
                    help="seeds of the grid (default: the tuning seed; others run the grid)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--wide", action="store_true",
                    help="the joint oracle also over alphas 1/16 and 16 (with --seeds)")
    ap.add_argument("--first", type=int, default=None, metavar="PHASE",
                    help="with --seeds: queries of that phase's first interval (0.1 s) that "
                         "time out twice, under every static 2^k setting from 1/4 to 16")
    ap.add_argument("--holdout", default="",
                    help="seeds on which to replay the joint oracle's sequences (runs the "
                         "settings they use): how much of its reading is hindsight")
    args = ap.parse_args()
    seeds = [int(x) for x in args.seeds.split(",")]
    root = campaign.REPO / "build" / "strategies-cache"
    grid, wide = grids()
    if args.first is not None:
        return first_interval(root, args.first, seeds, args.workers)
    if args.wide and seeds != [campaign.TUNE_SEED]:
        grid += wide
    if seeds == [campaign.TUNE_SEED]:
        cache = root / f"sim-{campaign.sim_hash()}"
        paths = {a: [cache / dt_spec(a, s).key() for s in seeds] for a in grid}
        if not all((p / "summary.json").exists() for ps in paths.values() for p in ps):
            print("missing runs: run `python -m experiments.strategies.run --only c` first")
            return 1
    else:
        paths = static_runs(root, grid, seeds, args.workers)
    every = {a: [qcts(p) for p in paths[a]] for a in grid}
    runs = {a: r for a, r in every.items() if a not in wide}  # the expert's grid
    head = "| alphas | " + " | ".join(f"phase {k}" for k in range(PHASES)) + " | p99 (ms) |"
    print(f"seeds {args.seeds}: queries timed out per phase\n")
    print(head + "\n|" + "---|" * (PHASES + 2))
    best: list[tuple[float, tuple[float, float]]] = [(np.inf, grid[0])] * PHASES
    for a, rs in runs.items():
        qct, ph = np.concatenate([r[0] for r in rs]), np.concatenate([r[1] for r in rs])
        fr = [float(np.mean(qct[ph == k] >= MIN_RTO_MS)) for k in range(PHASES)]
        best = [min(b, (f, a)) for b, f in zip(best, fr, strict=True)]
        print(f"| {a} | " + " | ".join(f"{f:.3f}" for f in fr)
              + f" | {np.mean([percentile(r[0], 99) for r in rs]):.1f} |")
    pick = [a for _, a in best]
    print(f"\nphase oracle {pick}, switching `lag` s after each phase starts "
          "(mean over the seeds):\n")
    print("| lag (s) | query p99 (ms) | timed out | twice | generous: p99 | timed out |")
    print("|---|---|---|---|---|---|")
    rows = []
    for lag in LAGS:
        p99, once, twice = stats([lagged_oracle(runs, i, pick, lag, False)
                                  for i in range(len(seeds))])
        g99, g_once, _ = stats([lagged_oracle(runs, i, pick, lag, True)
                                for i in range(len(seeds))])
        rows.append((lag, p99, g99))
        print(f"| {lag:g} | {p99:.1f} | {once:.2%} | {twice:.2%} | {g99:.1f} | {g_once:.2%} |")
    if seeds == [campaign.TUNE_SEED]:
        per_phase(root / f"sim-{campaign.sim_hash()}")
        return 0
    plot_lag(rows, stats([r[0] for r in runs[DT_STATIC]])[0], seeds)
    settings = [a for a in every if a != OPERATOR]
    print(f"\njoint oracle over {len(settings)} settings (best sequence of phase settings, "
          "the previous one held for the first `lag` s of each phase):\n")
    print("| lag (s) | settings per phase | query p99 per seed (ms) | mean | twice |")
    print("|---|---|---|---|---|")
    picks = {}
    for lag in (0.05, 0.1, 0.15, 0.2):
        picks[lag], p99s, twice = joint_oracle(every, settings, len(seeds), lag)
        print_row(lag, picks[lag], p99s, twice)
    if args.holdout:
        holdout(root, picks, [int(x) for x in args.holdout.split(",")], args.workers)
    return 0


def holdout(root: Path, picks: dict[float, tuple[tuple[float, float], ...]],
            seeds: list[int], workers: int | None) -> None:
    """The joint oracle's sequences, chosen on the result seeds, replayed on other seeds,
    beside dt-static's (1, 1) there."""
    need = {a for seq in picks.values() for a in seq} | {OPERATOR, DT_STATIC}
    runs = {a: [qcts(p) for p in ps]
            for a, ps in static_runs(root, sorted(need), seeds, workers).items()}
    static = [float(percentile(r[0], 99)) for r in runs[DT_STATIC]]
    print(f"\nreplayed on seeds {','.join(map(str, seeds))} (dt-static {DT_STATIC}: "
          f"{' / '.join(f'{p:.1f}' for p in static)} ms, mean {np.mean(static):.1f}):\n")
    print("| lag (s) | settings per phase | query p99 per seed (ms) | mean | twice |")
    print("|---|---|---|---|---|")
    for lag, seq in picks.items():
        print_row(lag, seq, *replay(runs, seq, lag, len(seeds)))


def dt_spec(alphas: tuple[float, float], seed: int) -> RunSpec:
    """(c) under DT at a static per-class setting."""
    return RunSpec(scenario=campaign.scen_c(seed, 8.0), scheme="dt", alphas=alphas)


def static_runs(root: Path, settings: list[tuple[float, float]], seeds: list[int],
                workers: int | None) -> dict[tuple[float, float], list[Path]]:
    """The runs of (c) at each static setting, per seed (run if not cached; cached by
    the simulator's hash)."""
    specs = {(a, s): dt_spec(a, s) for a in settings for s in seeds}
    got = campaign.Runner(root, workers)(list(specs.values()))
    return {a: [got[specs[(a, s)].key()] for s in seeds] for a in settings}


def print_row(lag: float, seq: tuple[tuple[float, float], ...], p99s: list[float],
              twice: float) -> None:
    """One row of a joint-oracle table."""
    print(f"| {lag:g} | {', '.join(fmt(a) for a in seq)} | "
          f"{' / '.join(f'{p:.1f}' for p in p99s)} | {np.mean(p99s):.1f} | {twice:.2%} |")


def fmt(a: tuple[float, ...]) -> str:
    """(0.25, 4.0) -> (1/4, 4)"""
    return "(" + ", ".join(f"{x:g}" if x >= 1 else f"1/{1 / x:g}" for x in a) + ")"


def splice(runs: dict[tuple[float, float], list[tuple[np.ndarray, ...]]], i: int,
           seq: tuple[tuple[float, float], ...], lag: float) -> np.ndarray:
    """QCTs (ms) of seed i's queries under the phase settings seq, each `lag` s late."""
    qct, ph, into = runs[OPERATOR][i]
    out = np.empty_like(qct)
    for k in range(PHASES):
        m = ph == k
        out[m] = runs[seq[k]][i][0][m]
        e = m & (into < lag)
        out[e] = runs[seq[k - 1] if k else OPERATOR][i][0][e]
    return out


def replay(runs: dict[tuple[float, float], list[tuple[np.ndarray, ...]]],
           seq: tuple[tuple[float, float], ...], lag: float,
           n_seeds: int) -> tuple[list[float], float]:
    """(query p99 per seed, share timed out twice) under the phase settings seq, each
    `lag` s late."""
    q = [splice(runs, i, seq, lag) for i in range(n_seeds)]
    return ([float(percentile(x, 99)) for x in q],
            float(np.mean([np.mean(x >= TWICE_MS) for x in q])))


def item_sum(vals: list[np.ndarray], before: np.ndarray, ph: np.ndarray, into: np.ndarray,
             lag: float) -> np.ndarray:
    """For every sequence of phase settings (axis k: phase k's setting, vals[j] the items'
    values under setting j), the sum over the items (queries or flows) of the value under
    the setting in force when each started: phase k's own from `lag` s into it, phase
    k - 1's before; `before` (the operator's run) for phase 0's first `lag` s."""
    A = len(vals)
    late = np.array([[v[(ph == k) & (into >= lag)].sum() for k in range(PHASES)]
                     for v in vals], float)
    early = np.array([[v[(ph == k) & (into < lag)].sum() for k in range(PHASES)]
                      for v in vals], float)
    out = np.full((A,) * PHASES, float(before[(ph == 0) & (into < lag)].sum()))
    for k in range(PHASES):
        out = out + np.expand_dims(late[:, k], [j for j in range(PHASES) if j != k])
        if k:
            out = out + np.expand_dims(early[:, k], [j for j in range(PHASES) if j != k - 1])
    return out


def joint_oracle(runs: dict[tuple[float, float], list[tuple[np.ndarray, ...]]],
                 settings: list[tuple[float, float]], n_seeds: int, lag: float,
                 top: int = 200, feasible: np.ndarray | None = None,
                 ) -> tuple[tuple[tuple[float, float], ...], list[float], float]:
    """The sequence of phase settings with the lowest mean query p99 when each comes in
    `lag` s late (the first of `ranked`). Returns (sequence, p99 per seed, share timed
    out twice)."""
    _, twice, seq, p99s = ranked(runs, settings, n_seeds, lag, top, feasible)[0]
    return seq, p99s, twice


def ranked(runs: dict[tuple[float, float], list[tuple[np.ndarray, ...]]],
           settings: list[tuple[float, float]], n_seeds: int, lag: float,
           top: int = 200, feasible: np.ndarray | None = None,
           ) -> list[tuple[float, float, tuple[tuple[float, float], ...], list[float]]]:
    """Sequences of phase settings, best first by mean query p99 when each comes in `lag`
    s late: every sequence scored by its double timeouts per seed (additive over the
    phases; a seed's p99 leaves the double-timeout step below 1%), the `top` best spliced
    exactly. `feasible` (a bool per sequence, axis k phase k's setting) leaves the others
    out. Each: (mean p99, share timed out twice, sequence, p99 per seed)."""
    score = np.zeros((len(settings),) * PHASES)  # seeds under 1% twice (x -1e6) + share twice
    for i in range(n_seeds):
        qct, ph, into = runs[OPERATOR][i]
        twice = [(runs[a][i][0] >= TWICE_MS).astype(float) for a in settings]
        share = item_sum(twice, (qct >= TWICE_MS).astype(float), ph, into, lag) / len(qct)
        score += share - 1e6 * (share < 0.01)
    if feasible is not None:
        score = np.where(feasible, score, np.inf)
    cands = []
    for flat in np.argsort(score, axis=None)[:top]:
        if not np.isfinite(score.flat[flat]):
            break
        seq = tuple(settings[j] for j in np.unravel_index(flat, score.shape))
        p99s, twice_share = replay(runs, seq, lag, n_seeds)
        cands.append((float(np.mean(p99s)), twice_share, seq, p99s))
    return sorted(cands, key=lambda c: (c[0], c[1]))


def plot_lag(rows: list[tuple[float, float, float]], static: float, seeds: list[int]) -> None:
    """Query p99 against the oracle's lag, with `auto`'s campaign rows at their
    intervals: bench/results/strategies-lag.png."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(7, 3.4))
    ax.plot(x, [r[1] for r in rows], "o-", label="oracle, previous phase's setting until the lag")
    ax.plot(x, [r[2] for r in rows], "s--", label="oracle, one compromise until the lag")
    ax.axhline(static, color="#777", lw=1, label=f"dt-static {DT_STATIC}: {static:.1f} ms")
    ax.axhline(0.7 * static, color="tab:red", lw=1, ls=":", label="target: 30% below it")
    res = campaign.REPO / "bench" / "results" / "strategies.json"
    if res.exists():
        cfg = json.loads(res.read_text())["c"]["x1"]["configs"]
        for name, lag in (("auto@8ms", 0.008), ("auto@100ms", 0.1)):
            if name in cfg and lag in LAGS:
                y = np.mean([m["qct_ms_p99"] for m in cfg[name]])
                ax.plot(LAGS.index(lag), y, "k*", ms=10)
                ax.annotate(name, (LAGS.index(lag), y), textcoords="offset points",
                            xytext=(6, -12), fontsize=7)
    ax.set_xticks(x, [f"{r[0]:g}" for r in rows])
    ax.set_xlabel("lag after each phase starts (s; not to scale)")
    ax.set_ylabel("query p99 (ms)")
    ax.set_title(f"(c): the phase oracle learning late, seeds {','.join(map(str, seeds))}",
                 fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    out = campaign.REPO / "bench" / "results" / "strategies-lag.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def lagged_oracle(runs: dict[tuple[float, float], list[tuple[np.ndarray, ...]]], i: int,
                  pick: list[tuple[float, float]], lag: float, generous: bool) -> np.ndarray:
    """QCTs (ms) of seed i's queries when each phase's setting comes in `lag` s late."""
    qct, ph, into = runs[pick[0]][i]
    out = np.empty_like(qct)
    early = into < lag
    if generous:  # the best compromise over every lag window
        hold = min(runs, key=lambda a: np.mean(runs[a][i][0][early] >= MIN_RTO_MS)
                   if early.any() else 0.0)
    for k in range(PHASES):
        m, mk = ph == k, (ph == k) & early
        out[m] = runs[pick[k]][i][0][m]
        prev = hold if generous else pick[k - 1] if k else OPERATOR
        out[mk] = runs[prev][i][0][mk]
    return out


def twice_in(runs: list[tuple[np.ndarray, ...]], phase: int, lo: float, hi: float) -> int:
    """Queries that time out twice among those starting lo..hi s into `phase`, summed
    over the runs' (QCT, phase, seconds into it)."""
    return sum(int(((q >= TWICE_MS) & (ph == phase) & (into >= lo) & (into < hi)).sum())
               for q, ph, into in runs)


def first_interval(root: Path, phase: int, seeds: list[int], workers: int | None,
                   tick: float = 0.1) -> int:
    """What a phase's first interval costs a controller fed telemetry every `tick` s: it
    runs on the alphas held before the phase. Queries starting in the phase's first
    `tick` s that time out twice, summed over the seeds, under every static setting
    (class 0's alpha per row, class 1's per column), and `auto`'s at that interval."""
    ks = campaign.pow2(list(range(-2, 5)))
    paths = static_runs(root, list(itertools.product(ks, ks)), seeds, workers)
    print(f"seeds {','.join(map(str, seeds))}: queries of phase {phase}'s first {tick:g} s "
          "timed out twice, by the static alphas (class 0 down, class 1 across)\n")
    print("| class 0 \\ class 1 | " + " | ".join(fmt((k,))[1:-1] for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    for a in ks:
        print(f"| {fmt((a,))[1:-1]} | "
              + " | ".join(str(twice_in([qcts(p) for p in paths[(a, b)]], phase, 0.0, tick))
                           for b in ks) + " |")
    ctl = [root / campaign.code_hash() / campaign.alphad(campaign.scen_c(s, 8.0), "auto",
                                                         tick, OPERATOR).key() for s in seeds]
    if all((p / "summary.json").exists() for p in ctl):
        runs = [qcts(p) for p in ctl]  # read once, counted over three windows
        print(f"\nauto@{tick * 1e3:g}ms: {twice_in(runs, phase, 0.0, tick)} in the first "
              f"{tick:g} s, {twice_in(runs, phase, tick, 2 * tick)} in the next, "
              f"{twice_in(runs, phase, 0.0, PHASE_S)} in the phase")
    return 0


def per_phase(sim_cache: Path, seeds: tuple[int, ...] = (1, 2, 3)) -> None:
    """Where the result seeds' timeouts fall: queries timed out once (>= 10 ms) and
    twice (>= 25 ms) per phase, summed over the seeds, and in the first 0.4 s of a phase
    (while a controller learns the new bursting class)."""
    ctl_cache = sim_cache.parent / campaign.code_hash()
    print("\n| config | " + " | ".join(f"phase {k}" for k in range(PHASES))
          + " | twice, first 0.4 s of a phase | twice, total |")
    print("|" + "---|" * (PHASES + 3))
    cfgs = {"dt": None, "dt-static (1, 1)": None, "auto@0.08ms": 8e-5, "auto@8ms": 0.008,
            "auto@100ms": 0.1}
    for name, iv in cfgs.items():
        once, twice, early = np.zeros(PHASES, int), np.zeros(PHASES, int), 0
        for seed in seeds:
            sc = campaign.scen_c(seed, 8.0)
            if iv is None:
                a = OPERATOR if name == "dt" else DT_STATIC
                path = sim_cache / dt_spec(a, seed).key()
            else:
                path = ctl_cache / campaign.alphad(sc, "auto", iv, OPERATOR).key()
            if not (path / "summary.json").exists():
                break
            qct, ph, into = qcts(path)
            for k in range(PHASES):
                once[k] += int(((ph == k) & (qct >= MIN_RTO_MS)).sum())
                twice[k] += int(((ph == k) & (qct >= TWICE_MS)).sum())
            early += int(((qct >= TWICE_MS) & (into < 0.4)).sum())
        else:
            print(f"| {name} | " + " | ".join(f"{o} ({t})" for o, t in zip(once, twice,
                                                                       strict=True))
                  + f" | {early} | {twice.sum()} |")


if __name__ == "__main__":
    sys.exit(main())
