"""(a), ABM §4.4's mix over 8 classes, under DT with one alpha on every class: what the
common alpha buys, on the result seeds (the expert's grid is tuned on seed 101).

    python -m experiments.strategies.grid_a [--alphas 0.5,1,2,4,8] [--seeds 1,2,3]

Prints, per alpha, the means over the seeds of the query p99, the short-flow p99
slowdown, the short flows with a timeout and the long flows' throughput against
alpha 0.5's flow by flow. Runs are cached with the campaign's DT runs.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from alphad_ns3.scenario import RunSpec
from alphad_ns3.window import long_vs_dt, windowed

from experiments.strategies import run as campaign

COLS = ["qct_ms_p99", "short_slowdown_p99", "short_rto_flows", "long_tput_vs_dt"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--alphas", default="0.5,1,2,4,8")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--workers", type=int, default=None)
    a = ap.parse_args()
    alphas = [float(x) for x in a.alphas.split(",")]
    seeds = [int(x) for x in a.seeds.split(",")]
    specs = {(x, s): RunSpec(scenario=campaign.scen_a(s, 4.0), scheme="dt", alphas=(x,))
             for x in [0.5, *alphas] for s in seeds}
    paths = campaign.Runner(campaign.REPO / "build" / "strategies-cache", a.workers)(
        list(specs.values()))
    print("| alpha | " + " | ".join(COLS) + " |")
    print("|---" * (len(COLS) + 1) + "|")
    for x in alphas:
        rows = []
        for s in seeds:
            out, dt = paths[specs[(x, s)].key()], paths[specs[(0.5, s)].key()]
            m = windowed(out, 0.0)
            m["long_tput_vs_dt"] = long_vs_dt(out, dt, 0.0)
            rows.append(m)
        print(f"| {x:g} | " + " | ".join(f"{np.mean([m[c] for m in rows]):.2f}" for c in COLS)
              + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
