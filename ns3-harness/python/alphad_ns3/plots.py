"""PNG plots of runs: slowdown CDFs, query times, buffer occupancy, queue traces.

    python -m alphad_ns3.plots OUT_DIR [OUT_DIR ...] -o plots/
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from alphad_ns3.analysis import SHORT_MAX, Run, load_run

__all__ = ["plot_runs"]


def _cdf(ax: object, x: np.ndarray, label: str) -> None:
    xs = np.sort(x)
    ys = np.arange(1, len(xs) + 1) / max(len(xs), 1)
    ax.step(xs, ys, where="post", label=f"{label} (n={len(xs)})")  # type: ignore[attr-defined]


def _label(r: Run) -> str:
    p = r.summary["params"]
    s = p["scheme"]
    if p.get("cosim"):
        c = r.summary.get("cosim", {})
        s = f"alphad-{c.get('scheme', '?')}-{c.get('quantize', '?')} @{p['cosim_interval_us']:g}us"
    return s


def plot_runs(outs: list[str | Path], dest: str | Path) -> list[Path]:
    """Compare runs (one line each): short-flow slowdown CDF, QCT CDF, leaf buffer occupancy;
    plus each run's queue trace when it has one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    runs = [load_run(o) for o in outs]
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    for r in runs:
        f = r.flows
        done = f["end_ns"] >= 0
        short = (f["kind"] == "ws") & (f["size"] < SHORT_MAX) & done
        _cdf(axes[0], f["slowdown"][short], _label(r))
        q = r.queries
        if len(q):
            _cdf(axes[1], q["qct_ns"][q["end_ns"] >= 0] / 1e6, _label(r))
        b = r.buffer
        if len(b):
            pools = {sw["name"]: sw["pool_bytes"] for sw in r.summary["switches"]}
            for sw in sorted(set(b["switch"])):
                sel = b["switch"] == sw
                axes[2].plot(b["t_ns"][sel] / 1e6, b["occupancy_bytes"][sel] / pools[sw],
                             lw=0.6, label=f"{_label(r)} {sw}")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("short-flow FCT slowdown")
    axes[1].set_xscale("log")
    axes[1].set_xlabel("query completion time (ms)")
    axes[2].set_xlabel("time (ms)")
    axes[2].set_ylabel("leaf pool occupancy (of B)")
    for ax in axes[:2]:
        ax.set_ylabel("CDF")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    written = [dest / "runs.png"]
    fig.savefig(written[0], dpi=110)
    plt.close(fig)
    for i, r in enumerate(runs):
        qf = r.out / "queues.csv"
        if not qf.is_file():
            continue
        q = np.genfromtxt(qf, delimiter=",", names=True)
        busy = {}
        for port, queue in {(int(a), int(b)) for a, b in zip(q["port"], q["queue"], strict=True)}:
            sel = (q["port"] == port) & (q["queue"] == queue)
            busy[(port, queue)] = (sel, q["len_bytes"][sel].max())
        top = sorted(busy.items(), key=lambda kv: -kv[1][1])[:4]
        fig, axes = plt.subplots(len(top), 1, figsize=(10, 2.2 * len(top)), squeeze=False)
        for ax, ((port, queue), (sel, _)) in zip(axes[:, 0], top, strict=True):
            t = q["t_ns"][sel] / 1e6
            ax.plot(t, q["len_bytes"][sel] / 1e3, lw=0.7, label="length")
            ax.plot(t, q["threshold_bytes"][sel] / 1e3, lw=0.7, label="threshold")
            ax.set_ylabel(f"port {port} q{queue} (KB)")
            ax.grid(alpha=0.3)
        axes[0, 0].legend(fontsize=7)
        axes[-1, 0].set_xlabel("time (ms)")
        fig.suptitle(f"{_label(r)}: the four busiest queues", fontsize=9)
        fig.tight_layout()
        p = dest / f"queues-{i}.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="plot runs of the ns-3 harness")
    ap.add_argument("runs", nargs="+", type=Path, help="output directories of runs")
    ap.add_argument("-o", "--out", type=Path, default=Path("plots"))
    a = ap.parse_args(argv)
    missing = [str(r) for r in a.runs if not (r / "summary.json").is_file()]
    if missing:
        ap.error(f"not a run directory (no summary.json): {', '.join(missing)}")
    for p in plot_runs(a.runs, a.out):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
