"""Markdown tables of bench/results/fidelity.json and reproduction.json (for docs/).

    python -m bench.fidelity.tables > /tmp/tables.md
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parents[1] / "results"


def f(x: Any, pct: bool = False, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if pct:
        return f"{100 * x:+.1f}%"
    return f"{x:.{digits}g}"


def fidelity(doc: dict[str, Any]) -> list[str]:
    out = []
    for sc in doc["scenarios"].values():
        if "configs" not in sc:
            continue
        out += [f"### {sc['title']}", "",
                (f"Operator alphas {sc['alphas']}; dt-static (grid on the tuning seed) "
                f"{sc['dt_static']}. {sc['notes']}."), "",
                ("| config | interval (RTT) | short p99 | short p99.9 | QCT p99 (ms) | QCT mean (ms) "
                "| RTO flows | incast drop (KB) | long p50 | G vs DT (p99.9 / p99 / QCT p99) "
                "| G vs dt-static (p99 / QCT p99) |"),
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
        order = ["dt", "dt-static", "abm", "abm-core"] + sorted(
            c for c in sc["configs"] if c.startswith("alphad"))
        for cfg in order:
            per = sc["configs"].get(cfg, {})
            for k in sorted(per, key=lambda x: -1 if x == "-" else float(x)):
                m = per[k]["pooled"]
                g = sc["gains"][cfg][k]
                out.append(
                    f"| {cfg} | {k} | {f(m['short_slowdown_p99'])} | "
                    f"{f(m['short_slowdown_p999'])} | {f(m['qct_ms_p99'])} | "
                    f"{f(m['qct_ms_mean'])} | {m['rto_flows']} | "
                    f"{f(m['incast_drop_bytes'] / 1e3, digits=4)} | {f(m['long_slowdown_p50'])} | "
                    f"{f(g['G_dt_short_slowdown_p999'], True)} / "
                    f"{f(g['G_dt_short_slowdown_p99'], True)} / {f(g['G_dt_qct_ms_p99'], True)} | "
                    f"{f(g['G_static_short_slowdown_p99'], True)} / "
                    f"{f(g['G_static_qct_ms_p99'], True)} |")
        n = sc["configs"]["dt"]["-"]["pooled"]
        out += ["", (f"Samples per configuration: {n['short_n']} short flows, {n['queries']} "
                f"queries, {n['flows']} flows ({n['runs']} seed(s))."), ""]
    if doc.get("burst"):
        t = doc["burst"]["table"]
        cfgs = sorted({c for row in t.values() for c in row})
        out += ["### Burst absorption (FB §6.2, scaled)", "", doc["burst"]["setting"], "",
                "| query size (of B) | " + " | ".join(cfgs) + " |",
                "|---:|" + "---:|" * len(cfgs)]
        for frac in sorted(t, key=float):
            cells = []
            for c in cfgs:
                v = t[frac].get(c)
                cells.append("–" if v is None else
                             f"{f(v['burst_absorption'])} ({f(v['vs_dt'])}x)")
            out.append(f"| {frac} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def reproduction(doc: dict[str, Any]) -> list[str]:
    out = [("| id | paper (seed) | conditions (ours, scaled) | metric | paper vs DT | ours vs DT "
           "| ours: DT / scheme / CS | samples |"),
           "|---|---|---|---|---:|---:|---|---|"]
    for r in doc["rows"]:
        for p in r["points"]:
            v = p["values"]
            mine = "protean" if "protean" in v else "abm"
            cells = " / ".join(f(v[s]["value"]) if s in v else "–" for s in ("dt", mine, "cs"))
            samples = v.get("dt", {})
            out.append(
                f"| {r['id']} | {r['claim']} | {r['cond']}; {json.dumps(p['conditions'])} | "
                f"{r['metric']} | {f(p['paper_change_vs_dt'], True)} | "
                f"{f(p['ours_change_vs_dt'], True)} | {cells} | "
                f"{samples.get('n_short', '–')} short, {samples.get('queries', '–')} queries |")
    return out


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    lines: list[str] = []
    fp = RESULTS / "fidelity.json"
    if fp.is_file():
        lines += fidelity(json.loads(fp.read_text()))
    rp = RESULTS / "reproduction.json"
    if rp.is_file():
        lines += ["", "### Reproduction", ""] + reproduction(json.loads(rp.read_text()))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
