"""Fig. 12-style PNGs of the fidelity sweep (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

STYLE = {
    "abm": ("tab:red", "o", "-"),
    "abm-core": ("tab:orange", "s", "-"),
    "alphad-abm-cont": ("tab:blue", "^", "-"),
    "alphad-abm-2k": ("tab:blue", "v", "--"),
    "alphad-fb-cont": ("tab:green", "^", "-"),
    "alphad-fb-2k": ("tab:green", "v", "--"),
    "alphad-auto-2k": ("tab:purple", "D", "-"),
}
PANELS = (
    ("short_slowdown_p999", "short flows (<100 KB)\np99.9 FCT slowdown"),
    ("short_slowdown_p99", "short flows\np99 FCT slowdown"),
    ("qct_ms_p99", "incast query\np99 completion (ms)"),
    ("qct_ms_mean", "incast query\nmean completion (ms)"),
    ("rto_flows", "flows that hit\nan RTO"),
)


def draw(doc: dict[str, Any], outdir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for name, sc in doc["scenarios"].items():
        if "configs" not in sc:
            continue
        fig, axes = plt.subplots(1, len(PANELS), figsize=(3.9 * len(PANELS), 3.6))
        all_k = sorted({float(k) for per in sc["configs"].values() for k in per if k != "-"})
        for ax, (key, label) in zip(axes, PANELS, strict=True):
            for cfg, per in sc["configs"].items():
                if "-" in per:  # interval-free baselines as horizontal lines
                    v = per["-"]["pooled"][key]
                    if v is not None:
                        dt = cfg == "dt"
                        ax.axhline(v, color="black" if dt else "gray", ls=(0, (2, 2)) if dt
                                   else "-", lw=2.0 if dt else 3.0, alpha=1.0 if dt else 0.4,
                                   zorder=3 if dt else 1, label=cfg)
                    continue
                ks = sorted(per, key=float)
                xs = [float(k) for k in ks]
                ys = [per[k]["pooled"][key] for k in ks]
                color, marker, ls = STYLE.get(cfg, ("gray", ".", "-"))
                ax.plot(xs, ys, color=color, marker=marker, ls=ls, label=cfg)
            if all_k:
                ax.set_xscale("log")
                ax.set_xlim(all_k[0] / 2, all_k[-1] * 2)
            ax.set_xlabel("update interval (x RTT = 80 us)")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7, loc="best")
        fig.suptitle(sc["title"], fontsize=10)
        fig.tight_layout()
        p = outdir / f"fidelity-{name}.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    if doc.get("burst"):
        t = doc["burst"]["table"]
        fracs = sorted(t, key=float)
        cfgs = sorted({c for row in t.values() for c in row})
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        for c in cfgs:
            ys = [t[f].get(c, {}).get("burst_absorption") for f in fracs]
            ax.plot([float(f) for f in fracs], ys, marker="o",
                    ls="--" if c.startswith("fba") else "-", label=c)
        ax.set_xlabel("query size (fraction of the leaf buffer)")
        ax.set_ylabel("queries without a drop")
        ax.set_title("Burst absorption (FB §6.2, scaled)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        p = outdir / "fidelity-burst.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    return written
