"""Fidelity sweep (ABM §4.4, Fig. 12, scaled): how close alphad's per-interval alpha gets
to the exact per-packet schemes, and how it compares with DT and the best static DT.

    python -m bench.fidelity                       # everything, local process pool
    python -m bench.fidelity --scenarios a --seeds 1 --intervals 1,100
    python -m bench.fidelity --scheduler tcp://10.0.0.5:8786   # an existing Dask cluster

Runs are cached by their parameters under --cache (resume after an interruption: run
the same command again). Writes --out (bench/results/fidelity.json) and Fig. 12-style
PNGs next to it. See ns3-harness/doc/harness.md for the scale and the definitions.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

from alphad_ns3.sweep import execute

from bench.fidelity import plan, report

REPO = Path(__file__).resolve().parents[2]


def _floats(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of numbers")\
            from None


def _ints(text: str) -> list[int]:
    try:
        v = [int(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers")\
            from None
    if not v or min(v) < 1:
        raise argparse.ArgumentTypeError("seeds are integers >= 1")
    return v


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenarios", default="a,b,c", help="subset of a,b,c (default: all)")
    p.add_argument("--intervals", type=_floats, default=list(plan.INTERVALS_RTT),
                   help="update intervals in RTTs (default: 1,10,100,1000,10000)")
    p.add_argument("--seeds", type=_ints, default=[1, 2], help="evaluation seeds")
    p.add_argument("--tune-seed", type=int, default=101, help="seed of the dt-static grid search")
    p.add_argument("--gen", type=float, default=0.05, help="seconds of flow arrivals per run")
    p.add_argument("--drain", type=float, default=0.03, help="seconds after the last arrival")
    p.add_argument("--no-burst", action="store_true", help="skip the FB/FBA burst sweep")
    p.add_argument("--workers", type=int, default=None, help="local processes (default: CPUs)")
    p.add_argument("--scheduler", default=None, help="Dask distributed scheduler address")
    p.add_argument("--cache", type=Path, default=REPO / "build" / "fidelity-cache")
    p.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "fidelity.json")
    p.add_argument("--program", default=None, help="alphad-ns3-sim (default: the build's)")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per plain run")
    a = p.parse_args(argv)
    wanted = [s.strip() for s in a.scenarios.split(",") if s.strip()]
    bad = [s for s in wanted if s not in ("a", "b", "c")]
    if bad or not wanted:
        p.error(f"--scenarios: unknown scenario {bad[0] if bad else '(none)'!r} (a, b, c)")
    a.scenarios = wanted
    if not a.gen > 0 or a.drain < 0:
        p.error("--gen must be > 0 and --drain >= 0")
    if any(not (math.isfinite(k) and k > 0) for k in a.intervals):
        p.error("--intervals must be positive")
    if a.workers is not None and a.workers < 1:
        p.error("--workers must be >= 1")
    return a


class Progress:
    """A tqdm bar when tqdm is installed, else one line per finished run."""

    def __init__(self, total: int, label: str) -> None:
        self.n = 0
        self.total = total
        self.label = label
        self.failed = 0
        try:
            from tqdm import tqdm

            self.bar: Any = tqdm(total=total, desc=label, unit="run", dynamic_ncols=True)
        except ImportError:
            self.bar = None

    def __call__(self, r: dict[str, Any]) -> None:
        self.n += 1
        if "error" in r:
            self.failed += 1
            print(f"\nrun {r['key']} failed: {r['error']}", file=sys.stderr)
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(failed=self.failed)
        else:
            print(f"{self.label}: {self.n}/{self.total}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_all(specs: list[Any], label: str, a: argparse.Namespace) -> dict[str, dict[str, Any]]:
    bar = Progress(len(specs), label)
    try:
        return execute(specs, a.cache, workers=a.workers, scheduler=a.scheduler,
                       program=a.program, timeout=a.timeout, progress=bar)
    finally:
        bar.close()


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    t0 = time.time()
    sets = plan.settings(a.gen, a.drain)
    doc: dict[str, Any] = {"scenarios": {}, "burst": None}

    # 1. dt-static: the best per-class 2^k alphas on a tuning seed (an expert's grid search)
    tune = {name: [plan.exact(sets[name], a.tune_seed, "dt", alphas=g) for g in sets[name].grid]
            for name in a.scenarios}
    res = run_all([s for v in tune.values() for s in v], "dt-static grid", a)
    best: dict[str, tuple[float, ...]] = {}
    for name in a.scenarios:
        best[name], table = report.pick_static(tune[name], res)
        doc["scenarios"][name] = {"dt_static_grid": table}

    # 2. the interval sweep on the evaluation seeds
    runs: list[tuple[str, str, float | None, int, Any]] = []
    for name in a.scenarios:
        st = sets[name]
        for cfg, _kind, k in plan.configs(st):
            if k is not None and k not in a.intervals:
                continue
            for seed in a.seeds:
                runs.append((name, cfg, k, seed, plan.spec_for(st, cfg, k, seed, best[name])))
    res = run_all([r[4] for r in runs], "interval sweep", a)
    for name in a.scenarios:
        st = sets[name]
        mine = [r for r in runs if r[0] == name]
        doc["scenarios"][name].update(report.scenario(st, mine, res, best[name], a.cache))

    # 3. FB / FBA burst absorption (FB §6.2)
    if not a.no_burst:
        bs = plan.burst_specs(a.seeds, a.gen, a.drain)
        res = run_all([s for _, s in bs], "burst sweep", a)
        doc["burst"] = report.burst(bs, res, a.cache)

    doc["meta"] = report.meta(a, sets, time.time() - t0)
    report.write(doc, a.out)
    print(report.text(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
