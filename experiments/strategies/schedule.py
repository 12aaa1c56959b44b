"""The joint oracle's sequences run for real: a per-class alpha schedule in scenario (c).

    python -m experiments.strategies.schedule [--seeds 1,2,3] [--lags 0.1,0.2]

bound.py's joint oracle splices query times out of static runs, one per setting: it
ignores the buffer each setting leaves behind at a change, and it says nothing of the
short and long flows. Here each of its sequences is a controller of its own, the
`schedule` scheme (registered by this benchmark only): it knows the four phases'
settings and writes a phase's setting at the first interval tick `lag` s after the
phase starts (the operator's alpha until phase 0's), co-simulated at a 100 ms interval
like `auto@100ms`. A controller fed telemetry every 100 ms acts no sooner than one
interval into a phase, so lag 0.1 s is the best such a controller can do, and 0.2 s is
a controller that needs two intervals to be sure.

The joint oracle minimises the query tail alone. The *constrained* oracle (added to the
sequences here) takes the best sequence among those whose spliced flows keep the rest
of the target: short flows with a timeout no more than dt-static's (mean over the
seeds) and long flows at least 0.98 of DT's throughput flow by flow, each flow taken
from the run of the setting in force when it started (a long flow can outlive its
phase, so that part is rougher than the queries').

For each sequence and lag: query p99 per seed beside the splice's prediction, and the
(c) target (query p99 30% under dt-static's, short flows with a timeout and the long
flows' restricted mean FCT no worse than dt-static's beyond the seeds' spread) and the
never-worse rule against DT (report.py's tests). What a sequence needs is hindsight;
whether it meets every column of the target is what tells a controller could.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import itertools
import multiprocessing
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from alphad import schemes
from alphad_ns3.analysis import LONG_MIN, SHORT_MAX, load_run
from alphad_ns3.scenario import RunSpec
from alphad_ns3.sweep import execute
from alphad_ns3.window import censored_fct, long_vs_dt, windowed

from experiments.strategies import bound, report
from experiments.strategies import run as campaign

INTERVAL = 0.1
# The joint oracle's sequences (experiments.strategies.bound --seeds 1,2,3 [--wide];
# phases 0-3, alphas of classes 0 and 1), chosen on seeds 1-3 for the lag they are named by.
SEQUENCES: dict[str, tuple[tuple[float, float], ...]] = {
    "expert grid, 0.1 s": ((4.0, 1.0), (1.0, 4.0), (1.0, 4.0), (0.25, 4.0)),
    "wide grid, 0.1 s": ((16.0, 1.0), (1.0, 4.0), (4.0, 16.0), (0.0625, 4.0)),
    "wide grid, 0.15 s": ((4.0, 1.0), (1.0, 16.0), (4.0, 16.0), (0.0625, 4.0)),
    "wide grid, 0.2 s": ((16.0, 4.0), (1.0, 4.0), (0.25, 4.0), (0.25, 16.0)),
}


class Schedule:
    """Each phase's per-class alpha, from the first tick `lag` s into the phase."""

    name = "schedule"

    def __init__(self, ctx: schemes.SchemeContext, seq: np.ndarray, lag: float,
                 phase_s: float) -> None:
        self.seq, self.lag, self.phase_s = seq, lag, phase_s
        self.alpha_q = ctx.alpha_q.copy()  # the operator's alpha, until phase 0's setting
        self.managed = ctx.classes.prio >= 0
        self.prio = ctx.classes.prio[self.managed]

    def __call__(self, est: Any) -> np.ndarray:
        # The simulator's clock (a scheme's own sum of est.dt starts at its first
        # estimate, one interval in). Phases start 2 ms after a multiple of phase_s (the
        # traffic's start), so a tick 98 ms into a phase counts as 0.1 s in, as the
        # splice counts queries (bound.qcts).
        k = int(np.floor((est.sample.t - self.lag + 0.005) / self.phase_s))
        out = self.alpha_q.copy()
        if k >= 0:
            out[self.managed] = self.seq[min(k, len(self.seq) - 1)][self.prio]
        return out


@schemes.register("schedule")
def make(ctx: schemes.SchemeContext, params: Mapping[str, Any]) -> Schedule:
    n = int(params["classes"])
    seq = np.array([[float(params[f"a{k}_{c}"]) for c in range(n)]
                    for k in range(int(params["phases"]))])
    return Schedule(ctx, seq, float(params["lag"]), float(params["phase_s"]))


def spec(seed: int, seq: tuple[tuple[float, float], ...], lag: float) -> RunSpec:
    params = {"classes": 2, "phases": len(seq), "lag": lag, "phase_s": bound.PHASE_S}
    params |= {f"a{k}_{c}": float(a) for k, setting in enumerate(seq)
               for c, a in enumerate(setting)}
    return campaign.alphad(campaign.scen_c(seed, 8.0), "schedule", INTERVAL, bound.OPERATOR, params)


def flow_values(path: Path, dt_path: Path) -> tuple[np.ndarray, ...]:
    """Per flow of a run: short flow with a timeout (0/1), log(FCT under DT / FCT here)
    of a long flow (0 otherwise), whether it is long, its phase and seconds into it."""
    r, rd = load_run(path), load_run(dt_path)
    f = r.flows
    ws = f["kind"] == "ws"
    short = ws & (f["size"] < SHORT_MAX)
    long_ = ws & (f["size"] >= LONG_MIN)
    ratio = np.log(censored_fct(rd) / censored_fct(r))
    phase_ns = int(bound.PHASE_S * 1e9)
    ph = np.minimum(f["start_ns"] // phase_ns, bound.PHASES - 1)
    return ((short & (f["rto"] > 0)).astype(float), np.where(long_, ratio, 0.0),
            long_.astype(float), ph, (f["start_ns"] % phase_ns) / 1e9)


def constrained(runs: dict[tuple[float, float], list[tuple[np.ndarray, ...]]],
                flows: dict[tuple[float, float], list[tuple[np.ndarray, ...]]],
                settings: list[tuple[float, float]], lag: float,
                ) -> list[tuple[float, float, tuple[tuple[float, float], ...], list[float]]]:
    """The joint oracle's ranking among the sequences whose spliced short flows with a
    timeout are no more than dt-static's and whose long flows keep 0.98 of DT's
    throughput."""
    n = len(runs[bound.OPERATOR])
    short = np.zeros((len(settings),) * bound.PHASES)
    logr = np.zeros_like(short)
    n_long = 0.0
    for i in range(n):
        op = flows[bound.OPERATOR][i]
        ph, into = op[3], op[4]
        short += bound.item_sum([flows[a][i][0] for a in settings], op[0], ph, into, lag) / n
        logr += bound.item_sum([flows[a][i][1] for a in settings], op[1], ph, into, lag)
        n_long += op[2].sum()
    limit = np.mean([f[0].sum() for f in flows[bound.DT_STATIC]])
    feasible = (short <= limit) & (np.exp(logr / n_long) >= report.LONG_TPUT_MIN)
    return bound.ranked(runs, settings, n, lag, feasible=feasible)


def cache_dir(root: Path) -> Path:
    """Schedule runs depend on the simulator, the controller's code but the other schemes,
    and the scheme above."""
    h = hashlib.sha256((campaign.sim_hash() + inspect.getsource(Schedule)
                        + inspect.getsource(make) + inspect.getsource(spec)).encode())
    for f in campaign.code_files():
        if f.parent.name != "schemes" or f.name == "_base.py":
            h.update(f.read_bytes())
    return root / f"schedule-{h.hexdigest()[:12]}"


def oracle_sequences(root: Path, seeds: list[int], lags: list[float], fine: bool, top: int,
                     workers: int | None) -> dict[str, tuple[tuple[float, float], ...]]:
    """The constrained oracle's `top` best sequences per lag, chosen on `seeds` (printed
    with their splice)."""
    grid, wide = bound.grids()
    if fine:
        wide += [a for a in itertools.product(campaign.pow2(list(range(-2, 5))), repeat=2)
                 if a not in grid + wide]
    paths = bound.static_runs(root, grid + wide, seeds, workers)
    runs = {a: [bound.qcts(p) for p in ps] for a, ps in paths.items()}
    flows = {a: [flow_values(p, d) for p, d in zip(ps, paths[bound.OPERATOR], strict=True)]
             for a, ps in paths.items()}
    settings = [a for a in grid + wide if a != bound.OPERATOR]
    print(f"\nconstrained joint oracle over {len(settings)} settings on seeds "
          f"{','.join(map(str, seeds))}:\n")
    print("| lag (s) | settings per phase | query p99 per seed (ms) | mean | twice |")
    print("|---|---|---|---|---|")
    out = {}
    for lag in lags:
        for rank, (_, twice, seq, p99s) in enumerate(
                constrained(runs, flows, settings, lag)[:top], 1):
            bound.print_row(lag, seq, p99s, twice)
            out[f"constrained, {lag:g} s, #{rank}"] = seq
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--lags", default="0.1", help="s after a phase starts (ticks of 0.1 s)")
    ap.add_argument("--only", default="", help="sequences by number (1-based), e.g. 2,3")
    ap.add_argument("--oracle-seeds", default="1,2,3",
                    help="seeds the constrained oracle chooses on (0: none)")
    ap.add_argument("--fine", action="store_true",
                    help="the constrained oracle over every 2^k from 1/4 to 16 per class too "
                         "(52 settings with the wide grid's; 99 more static runs on seeds 1-3)")
    ap.add_argument("--top", type=int, default=1,
                    help="run the constrained oracle's best N sequences (distinct)")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    seeds = [int(x) for x in args.seeds.split(",")]
    lags = [float(x) for x in args.lags.split(",")]
    names = list(SEQUENCES)
    if args.only:
        names = [names[int(i) - 1] for i in args.only.split(",")]
    multiprocessing.set_start_method("fork", force=True)  # the pool's workers see `schedule`
    root = campaign.REPO / "build" / "strategies-cache"
    sequences = {n: SEQUENCES[n] for n in names}
    if args.oracle_seeds != "0":
        o_seeds = [int(x) for x in args.oracle_seeds.split(",")]
        sequences |= oracle_sequences(root, o_seeds, lags, args.fine, args.top, args.workers)
    need = {a for seq in sequences.values() for a in seq} | {bound.OPERATOR, bound.DT_STATIC}
    base = bound.static_runs(root, sorted(need), seeds, args.workers)
    runs = {a: [bound.qcts(p) for p in paths] for a, paths in base.items()}
    sched = {(n, lag, s): spec(s, seq, lag) for n, seq in sequences.items() for lag in lags
             for s in seeds}
    cache = cache_dir(root)
    res = execute(list(sched.values()), cache, workers=args.workers, timeout=7200)
    bad = [k for k, v in res.items() if "error" in v]
    if bad:
        raise SystemExit(f"{len(bad)} runs failed, e.g. {res[bad[0]]['error'][:500]}")

    results = {(n, lag): metrics([cache / sched[(n, lag, s)].key() for s in seeds],
                                 base[bound.OPERATOR]) for n in sequences for lag in lags}
    print_table(sequences, results, runs, metrics(base[bound.OPERATOR], base[bound.OPERATOR]),
                metrics(base[bound.DT_STATIC], base[bound.OPERATOR]), args.seeds)
    return 0


def metrics(paths: list[Path], dt_paths: list[Path]) -> list[dict[str, Any]]:
    """run.py's metrics of (c) per seed, with the long flows' throughput against DT's."""
    out = []
    for p, dt in zip(paths, dt_paths, strict=True):
        m = windowed(p, 0.0)
        m["long_tput_vs_dt"] = long_vs_dt(p, dt, 0.0)
        out.append(m)
    return out


def print_table(sequences: dict[str, tuple[tuple[float, float], ...]],
                results: dict[tuple[str, float], list[dict[str, Any]]],
                runs: dict[tuple[float, float], list[tuple[np.ndarray, ...]]],
                dt_rows: list[dict[str, Any]], st_rows: list[dict[str, Any]],
                seeds: str) -> None:
    """Each sequence's row: query p99 beside the splice's, the (c) target's columns
    against dt-static and the never-worse rule against DT (report.py's tests)."""
    st99 = report.agg(st_rows, "qct_ms_p99")[0]
    print(f"\nseeds {seeds}; dt-static {bound.fmt(bound.DT_STATIC)}: query p99 {st99:.1f} ms, "
          f"short flows with a timeout {report.agg(st_rows, 'short_rto_flows')[0]:.1f}, "
          f"long-flow restricted mean {report.agg(st_rows, report.LONG)[0]:.0f} ms; "
          f"target {0.7 * st99:.1f} ms\n")
    print("| sequence | lag (s) | query p99 per seed (ms) | mean | splice | short flows with "
          "a timeout | long flows vs DT | long rmean (ms) | (c) target | never worse |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (n, lag), r in results.items():
        seq = sequences[n]
        p99s = [x["qct_ms_p99"] for x in r]
        pred = np.mean(bound.replay(runs, seq, lag, len(p99s))[0])
        worse = [k for k in ("short_rto_flows", report.LONG)
                 if report.worse_beyond_spread(r, st_rows, k)]
        q = report.rel(float(np.mean(p99s)), st99)
        ok, dt_worse = report.never_worse(r, dt_rows)
        rto, lo, hi = report.agg(r, "short_rto_flows")
        print(f"| {', '.join(bound.fmt(a) for a in seq)} ({n}) | {lag:g} | "
              f"{' / '.join(f'{p:.1f}' for p in p99s)} | {np.mean(p99s):.1f} | "
              f"{pred:.1f} | {rto:.1f} ({lo:.0f}..{hi:.0f}) | "
              f"{report.agg(r, 'long_tput_vs_dt')[0]:.2f} | "
              f"{report.agg(r, report.LONG)[0]:.0f} | {q:+.0%}"
              + (f", worse on {', '.join(worse)}" if worse else "")
              + f" -> {'MET' if q <= -0.30 and not worse else 'not met'} | "
              + ("yes" if ok else "no" + (f" ({', '.join(dt_worse)})" if dt_worse else ""))
              + " |")


if __name__ == "__main__":
    sys.exit(main())
