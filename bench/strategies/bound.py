"""What any per-class static alpha can do in scenario (c), phase by phase.

    python bench/strategies/bound.py      # after run.py --only c (uses its cached runs)

For every point of (c)'s dt-static grid, run on the tuning seed, the share of queries of
each 2 s phase that waited for a timeout (QCT >= the 10 ms minimum RTO). The *phase
oracle* takes, for every phase, the grid point that was best in that phase — a
controller that knows the phases in advance and switches instantly — and reports its
query p99 and timeout share over the whole run. If even the oracle's p99 is the RTO,
no per-class alpha that adapts phase by phase can move (c)'s p99 off it: the queries
it loses are lost within a phase, to first-RTT drops that only a per-packet scheme
(ABM's first-RTT priority) avoids.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
from alphad_ns3.analysis import load_run, percentile
from alphad_ns3.scenario import RunSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench

PHASE_S, PHASES = 2.0, 4


def qcts(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(QCT in ms, phase index, seconds into the phase) of every query of a run."""
    r = load_run(path)
    q = r.queries
    qct = np.where(q["end_ns"] >= 0, q["qct_ns"], r.end_ns - q["start_ns"]) / 1e6
    phase_ns = int(PHASE_S * 1e9)
    return (qct, np.minimum(q["start_ns"] // phase_ns, PHASES - 1),
            (q["start_ns"] % phase_ns) / 1e9)


def main() -> int:
    cache = bench.REPO / "build" / "strategies-cache" / f"sim-{bench.sim_hash()}"
    sc = bench.scen_c(101, 8.0)
    grid = [(0.5, 0.5)] + list(itertools.product(bench.pow2([-2, 0, 2]), repeat=2))
    runs = {}
    for a in grid:
        p = cache / RunSpec(scenario=sc, scheme="dt", alphas=a).key()
        if not (p / "summary.json").exists():
            print(f"missing {a}: run `python bench/strategies/run.py --only c` first")
            return 1
        runs[a] = qcts(p)[:2]
    head = "| alphas | " + " | ".join(f"phase {k}" for k in range(PHASES)) + " | p99 (ms) |"
    print(head + "\n|" + "---|" * (PHASES + 2))
    best: list[tuple[float, tuple[float, float]]] = [(np.inf, grid[0])] * PHASES
    for a, (qct, ph) in runs.items():
        fr = [float(np.mean(qct[ph == k] >= bench.MIN_RTO_MS)) for k in range(PHASES)]
        best = [min(b, (f, a)) for b, f in zip(best, fr, strict=True)]
        print(f"| {a} | " + " | ".join(f"{f:.3f}" for f in fr)
              + f" | {percentile(qct, 99):.1f} |")
    parts = [runs[a][0][runs[a][1] == k] for k, (_, a) in enumerate(best)]
    oracle = np.concatenate(parts)
    print(f"\nphase oracle: {[a for _, a in best]} -> query p99 "
          f"{percentile(oracle, 99):.1f} ms, {np.mean(oracle >= bench.MIN_RTO_MS):.2%} of "
          f"queries timed out ({len(oracle)} queries)")
    per_phase(cache)
    return 0


def per_phase(sim_cache: Path, seeds: tuple[int, ...] = (1, 2, 3)) -> None:
    """Where the result seeds' timeouts fall: queries timed out once (>= 10 ms) and
    twice (>= 25 ms) per phase, summed over the seeds, and in the first 0.4 s of a phase
    (while a controller learns the new bursting class)."""
    ctl_cache = sim_cache.parent / bench.code_hash()
    print("\n| config | " + " | ".join(f"phase {k}" for k in range(PHASES))
          + " | twice, first 0.4 s of a phase | twice, total |")
    print("|" + "---|" * (PHASES + 3))
    cfgs = {"dt": None, "dt-static (1, 1)": None, "auto@0.08ms": 8e-5, "auto@8ms": 0.008,
            "auto@100ms": 0.1}
    for name, iv in cfgs.items():
        once, twice, early = np.zeros(PHASES, int), np.zeros(PHASES, int), 0
        for seed in seeds:
            sc = bench.scen_c(seed, 8.0)
            if iv is None:
                a = (0.5, 0.5) if name == "dt" else (1.0, 1.0)
                path = sim_cache / RunSpec(scenario=sc, scheme="dt", alphas=a).key()
            else:
                path = ctl_cache / bench.alphad(sc, "auto", iv, (0.5, 0.5)).key()
            if not (path / "summary.json").exists():
                break
            qct, ph, into = qcts(path)
            for k in range(PHASES):
                once[k] += int(((ph == k) & (qct >= bench.MIN_RTO_MS)).sum())
                twice[k] += int(((ph == k) & (qct >= 25.0)).sum())
            early += int(((qct >= 25.0) & (into < 0.4)).sum())
        else:
            print(f"| {name} | " + " | ".join(f"{o} ({t})" for o, t in zip(once, twice,
                                                                       strict=True))
                  + f" | {early} | {twice.sum()} |")


if __name__ == "__main__":
    sys.exit(main())
