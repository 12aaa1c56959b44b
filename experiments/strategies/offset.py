"""(c) with its traffic changes off the control interval's clock.

    python -m experiments.strategies.offset [--offset-ms 50] [--intervals 0.1]
                                            [--seeds 1,2,3]

(c)'s phases change every 2 s, on a tick of every interval's clock, so a controller at
100 ms learns each phase a whole interval late: the worst case. Traffic that changes at
a random point of an interval is learnt half an interval late on average (the phase
oracle at 0.05 s in `bound.py --seeds 1,2,3`). This moves every phase change
`--offset-ms` later (the first phase that much longer, the last that much shorter) and
runs DT, `dt-static`'s (1, 1) and `auto` at the given intervals on the result seeds.
Prints the means over the seeds (per seed in brackets). Runs are cached with the
campaign's.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from alphad_ns3.scenario import RunSpec, Scenario
from alphad_ns3.window import windowed

from experiments.strategies import run as campaign
from experiments.strategies.bound import DT_STATIC, OPERATOR

COLS = [("qct_ms_p99", "query p99 (ms)", ".1f"), ("query_timeouts", "queries timed out", ".3f"),
        ("short_rto_flows", "short RTO flows", ".1f"),
        ("long_fct_ms_rmean", "long FCT restricted mean (ms)", ".0f")]


def shifted(seed: int, offset_ms: int) -> Scenario:
    """scen_c with every phase change offset_ms later."""
    sc = campaign.scen_c(seed, 8.0)
    ph = sc.phases.split(";")
    d0, r0 = ph[0].split(",", 1)
    dn, rn = ph[-1].split(",", 1)
    ph[0], ph[-1] = f"{int(d0) + offset_ms},{r0}", f"{int(dn) - offset_ms},{rn}"
    return sc.model_copy(update={"phases": ";".join(ph)})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--offset-ms", type=int, default=50)
    ap.add_argument("--intervals", default="0.1", help="auto's intervals, s (comma-separated)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--workers", type=int, default=None)
    a = ap.parse_args()
    if not 0 < a.offset_ms < 2000:
        ap.error("--offset-ms: between 1 and 1999")
    seeds = [int(x) for x in a.seeds.split(",")]
    specs: dict[str, list[RunSpec]] = {}
    for s in seeds:
        sc = shifted(s, a.offset_ms)
        specs.setdefault("dt", []).append(RunSpec(scenario=sc, scheme="dt", alphas=OPERATOR))
        specs.setdefault(f"dt-static {DT_STATIC}", []).append(
            RunSpec(scenario=sc, scheme="dt", alphas=DT_STATIC))
        for iv in (float(x) for x in a.intervals.split(",")):
            specs.setdefault(f"auto@{iv * 1e3:g}ms", []).append(
                campaign.alphad(sc, "auto", iv, OPERATOR))
    paths = campaign.Runner(campaign.REPO / "build" / "strategies-cache", a.workers)(
        [s for v in specs.values() for s in v])
    print(f"(c), every phase change {a.offset_ms} ms later, seeds {a.seeds}\n")
    print("| config | " + " | ".join(c for _, c, _ in COLS) + " |")
    print("|---" * (len(COLS) + 1) + "|")
    p99 = {}
    for name, sp in specs.items():
        ms = [windowed(paths[s.key()], 0.0) for s in sp]
        cells = []
        for key, _, f in COLS:
            v = [float(m[key]) for m in ms]
            cells.append(f"{np.mean(v):{f}} ({' / '.join(f'{x:{f}}' for x in v)})")
        p99[name] = float(np.mean([m["qct_ms_p99"] for m in ms]))
        print(f"| {name} | " + " | ".join(cells) + " |")
    ref = p99[f"dt-static {DT_STATIC}"]
    for name, v in p99.items():
        if name.startswith("auto"):
            print(f"\n{name}: query p99 {v / ref - 1:+.1%} against dt-static (target: -30%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
