"""Simulation speed of the sweep scenario, one run at a time (no other run competing).

    python -m bench.fidelity.speed [--gen 0.05] [--repeat 1]

Writes bench/results/fidelity-speed.json: simulated seconds per wall second and events
per second of scenario (a) under DT, exact ABM and alphad co-simulated at 1, 10 and
100 RTT, and the co-simulation's share of the wall time (controller and protocol).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from alphad_ns3.run import run

from bench.fidelity import plan

REPO = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gen", type=float, default=0.05)
    ap.add_argument("--drain", type=float, default=0.03)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "fidelity-speed.json")
    a = ap.parse_args(argv)
    if a.repeat < 1 or not a.gen > 0:
        ap.error("--repeat >= 1 and --gen > 0")
    st = plan.settings(a.gen, a.drain)["a"]
    cases = [("dt", plan.exact(st, 1, "dt")), ("abm", plan.exact(st, 1, "abm"))]
    for k in (1, 10, 100):
        cases.append((f"alphad-abm-cont@{k}rtt", plan.cosim(st, 1, "abm", "continuous", k)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in cases:
            for i in range(a.repeat):
                r = run(spec, Path(tmp) / f"{name}-{i}")
                s = r.summary
                row = {"config": name, "sim_seconds": s["sim_seconds"],
                       "run_wall_seconds": s["run_wall_seconds"],
                       "wall_seconds": r.wall_seconds, "events": s["events"],
                       "sim_s_per_wall_s": s["sim_seconds"] / r.wall_seconds,
                       "events_per_s": s["events"] / s["run_wall_seconds"],
                       "load_average": os.getloadavg()[0]}
                if "cosim" in s:
                    c = s["cosim"]
                    row.update({"intervals": c["intervals"],
                                "controller_seconds": c["controller_seconds"],
                                "controller_us_per_interval":
                                    1e6 * c["controller_seconds"] / max(c["intervals"], 1),
                                "cosim_wait_seconds": s.get("cosim_wait_seconds")})
                rows.append(row)
                print(json.dumps(row), flush=True)
    doc = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "cpus": os.cpu_count(),
           "scenario": st.title, "gen_s": a.gen, "runs": rows}
    a.out.write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
