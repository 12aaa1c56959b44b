"""(b), classes separated, under DT with the query class at one alpha and the web-search
classes at the operator's 0.5 (or --web): what a static query-class alpha trades, on
the result seeds (the expert's grid is tuned on seed 101).

    python -m experiments.strategies.grid_b [--load 0.6] [--req 0.75] [--alphas 1,2,4,8,16] [--web 0.5]

Prints, per alpha, the means over the seeds of the query p99, the share of queries
that waited for a timeout, the short-flow p99 slowdown, the short flows with a timeout
and the long flows' throughput against DT's flow by flow (mean and min..max over the
seeds), measured as the campaign does (what starts after 10 s), and whether the point
would meet the issue's (b) targets by report.py's rules: the auto-tuning target
(query p99 and short flows with a timeout within 5% of `dt-static`'s, or one flow) and
the never-worse rule (no column worse than DT's beyond the seeds' spread, long flows
within 2% of DT's). Runs are cached with the campaign's DT runs, so the campaign's DT
and dt-static points cost nothing.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from alphad_ns3.scenario import RunSpec
from alphad_ns3.window import long_vs_dt, windowed

from experiments.strategies import report
from experiments.strategies import run as campaign

COLS = ["qct_ms_p99", "query_timeouts", "short_slowdown_p99", "short_rto_flows"]
T_FROM = 10.0  # run.py's window for (b): after 10 s of learning


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--load", type=float, default=0.6)
    ap.add_argument("--req", type=float, default=0.75)
    ap.add_argument("--alphas", default="1,2,4,8,16")
    ap.add_argument("--web", type=float, default=0.5, help="alpha of the web-search classes")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--workers", type=int, default=None)
    a = ap.parse_args()
    alphas = [float(x) for x in a.alphas.split(",")]
    seeds = [int(x) for x in a.seeds.split(",")]

    def spec(x: float, web: float, s: int) -> RunSpec:
        return RunSpec(scenario=campaign.scen_b(a.load, a.req, s, 12.0), scheme="dt",
                       alphas=(x, web, web))

    dt = {s: spec(0.5, 0.5, s) for s in seeds}  # what every row is paired with, flow by flow
    specs = {(x, s): spec(x, a.web, s) for x in alphas for s in seeds}
    res = json.loads((campaign.REPO / "bench" / "results" / "strategies.json").read_text())
    best = res.get("b", {}).get(f"load{a.load:g}-req{a.req:g}", {}).get("dt_static")
    static = {s: RunSpec(scenario=dt[s].scenario, scheme="dt", alphas=tuple(best))
              for s in seeds} if best else {}
    unique = {sp.key(): sp for sp in [*dt.values(), *static.values(), *specs.values()]}
    paths = campaign.Runner(campaign.REPO / "build" / "strategies-cache", a.workers)(
        list(unique.values()))

    def measure(by_seed: dict[int, RunSpec]) -> list[dict]:
        rows = []
        for s in seeds:
            out = paths[by_seed[s].key()]
            m = windowed(out, T_FROM)
            m["long_tput_vs_dt"] = long_vs_dt(out, paths[dt[s].key()], T_FROM)
            rows.append(m)
        return rows

    table = {"DT": measure(dt)}
    static_label = f"dt-static {tuple(best)}" if best else ""
    if static:
        table[static_label] = measure(static)
    for x in alphas:
        table[f"{x:g}"] = measure({s: specs[(x, s)] for s in seeds})
    print(f"(b) load {a.load:g}, requests {a.req:g}, seeds {a.seeds}: query class at "
          f"alpha, web-search classes at {a.web:g}\n")
    print("| alpha | " + " | ".join(COLS) + " | long_tput_vs_dt | within 5% of dt-static "
          "| never worse than DT |")
    print("|---" * (len(COLS) + 4) + "|")
    for label, rows in table.items():
        tput = [m["long_tput_vs_dt"] for m in rows]
        target = "–"
        if static:
            ok, q, r, r_s = report.tuning_target(rows, table[static_label])
            target = f"{'yes' if ok else 'no'} (p99 {q:+.0%}, {r:.1f} vs {r_s:.1f} flows)"
        ok, worse = report.never_worse(rows, table["DT"])
        never = "yes" if ok else "no (" + ", ".join(
            [*worse, *(["long flows"] if np.mean(tput) < report.LONG_TPUT_MIN else [])]) + ")"
        print(f"| {label} | " + " | ".join(f"{np.mean([m[c] for m in rows]):.3g}" for c in COLS)
              + f" | {np.mean(tput):.3f} ({min(tput):.3f}..{max(tput):.3f}) | {target} | {never} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
