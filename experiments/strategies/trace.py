"""How `auto-reference` (the previous default) follows the traffic: the alpha it gives each
class, interval by interval, in scenario (c) (which class bursts and which carries
web-search changes every 2 s).

    python -m experiments.strategies.trace [--interval 0.1] [--seed 1]

Co-simulates one run with the scheme wrapped so that every interval's alpha per class
(the highest over the leaf's non-long-flow queues) is kept, and plots it over the
phases at the sample time it was computed from, in force from then on (the first sample
is the counters' baseline, so the first alpha comes one interval in):
bench/results/strategies-trace.png (+ .json).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np
from alphad import schemes
from alphad.schemes import reference
from alphad_ns3.run import run
from alphad_ns3.window import windowed

from experiments.strategies import run as campaign

RES = campaign.REPO / "bench" / "results"
PHASES = ["class 0 bursts hard\nweb in class 1", "class 1 bursts often\nweb in class 0",
          "web in both\nrare bursts in 0", "class 1 bursts very hard\nweb in class 0"]


def traced() -> list[dict[str, Any]]:
    """Registers ``auto-traced``: `auto-reference` that appends, at each leaf's decision,
    its time, switch, highest alpha per class and donors cut to the list returned."""
    trace: list[dict[str, Any]] = []

    @schemes.register("auto-traced", candidate=True)
    def make(ctx: schemes.SchemeContext, params: dict[str, Any]) -> Any:
        inner = reference.make(ctx, params)
        leaf = ctx.topo.buffer_bytes > 50_000  # spines have a small pool, leaves the big one

        def step(est: Any) -> np.ndarray:
            out = inner(est)
            if leaf:
                per = inner._per_class_max(out, inner.managed)
                trace.append({"t": est.sample.t, "switch": id(inner), "alpha": per.tolist(),
                              "cut": inner.cut})
            return out

        step.name = "auto-reference"  # type: ignore[attr-defined]
        return step

    return trace


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", choices=("c", "b"), default="c",
                    help="b: (b) at 60%% load / 75%% requests; prints the share of the "
                         "intervals each class spent raised (no plot)")
    a = ap.parse_args()
    trace = traced()
    if a.scenario == "b":
        return trace_b(a.interval, a.seed, trace)
    sc = campaign.scen_c(a.seed, 8.0)
    spec = campaign.alphad(sc, "auto-traced", a.interval, (0.5, 0.5))
    out = campaign.REPO / "build" / "strategies-trace"
    run(spec, out, timeout=7200)
    m = windowed(out, 0.0)
    RES.mkdir(parents=True, exist_ok=True)
    (RES / "strategies-trace.json").write_text(json.dumps({"interval": a.interval,
                                                          "seed": a.seed, "metrics": m,
                                                          "trace": trace}) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 3.6))
    for k, sw in enumerate(sorted({r["switch"] for r in trace})):
        rows = [r for r in trace if r["switch"] == sw]
        t = [r["t"] for r in rows]
        for c, color in ((0, "tab:blue"), (1, "tab:orange")):
            ax.step(t, [r["alpha"][c] for r in rows], where="post", color=color,
                    ls="-" if k == 0 else ":", label=f"class {c}, leaf {k}")
    for i, text in enumerate(PHASES):
        ax.axvline(2.0 * i, color="#999", lw=0.8)
        ax.text(2.0 * i + 1.0, 20, text, ha="center", va="bottom", fontsize=7)
    ax.set_yscale("log", base=2)
    ax.set_ylim(2**-4, 2**6)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("alpha (highest of the class)")
    ax.set_title(f"auto-reference in scenario (c), interval {a.interval * 1e3:g} ms, seed {a.seed}",
                 fontsize=9)
    ax.legend(fontsize=7, ncol=4, loc="lower center")
    fig.tight_layout()
    fig.savefig(RES / "strategies-trace.png", dpi=110)
    print(f"wrote {RES / 'strategies-trace.png'}")
    return 0


def trace_b(interval: float, seed: int, trace: list[dict[str, Any]]) -> int:
    """(b) at 60% load / 75% requests: per leaf, the share of the intervals after the
    first 2 s in which each class was above alpha_p (0.5), and with donors cut."""
    spec = campaign.alphad(campaign.scen_b(0.6, 0.75, seed, 12.0), "auto-traced", interval,
                           (0.5,) * 3)
    run(spec, campaign.REPO / "build" / "strategies-trace-b", timeout=7200)
    for k, sw in enumerate(sorted({r["switch"] for r in trace})):
        rows = [r for r in trace if r["switch"] == sw and r["t"] > 2.0]
        alpha = np.array([r["alpha"] for r in rows])
        raised = ", ".join(f"class {c} {x:.0%}" for c, x in enumerate((alpha > 0.5).mean(0)))
        cut = np.mean([r["cut"] > 0 for r in rows])
        print(f"leaf {k}: raised {raised}; donors cut {cut:.0%} of {len(rows)} intervals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
