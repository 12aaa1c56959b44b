"""Aggregation of the fidelity sweep: pooled metrics, G tables, fidelity.json, PNG plots.

G = 1 - M / M_ref (the reduction of metric M relative to a reference: DT, or dt-static);
the ABM paper's "-84.05% vs DT at 10 RTT" is G = 0.8405 of the p99.9 short-flow slowdown.
R = (M_DT - M) / (M_DT - M_ABM): the share of exact ABM's gain over DT that a
configuration keeps (1: as good as exact ABM, 0: as DT, < 0: worse than DT).
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from alphad_ns3.analysis import gain, load_run, metrics

KEYS = ("short_slowdown_p99", "short_slowdown_p999", "qct_ms_p99", "qct_ms_mean")


def _ok(r: dict[str, Any] | None) -> bool:
    return r is not None and "metrics" in r


def _objective(m: dict[str, Any]) -> float:
    """dt-static's choice: the geometric mean of p99 short-flow slowdown and p99 QCT."""
    a, b = m["short_slowdown_p99"], m["qct_ms_p99"]
    if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return 0.5 * (math.log(a) + math.log(b))


def pick_static(specs: list[Any], res: dict[str, dict[str, Any]]
                ) -> tuple[tuple[float, ...], list[dict[str, Any]]]:
    table = []
    for s in specs:
        r = res.get(s.key())
        if not _ok(r):
            continue
        m = r["metrics"]
        table.append({"alphas": list(s.alphas), "short_slowdown_p99": m["short_slowdown_p99"],
                      "qct_ms_p99": m["qct_ms_p99"], "objective": _objective(m)})
    if not table:
        raise SystemExit("dt-static: every grid run failed (see the errors above)")
    best = min(table, key=lambda t: t["objective"])
    return tuple(best["alphas"]), sorted(table, key=lambda t: t["objective"])


def _pooled(results: list[dict[str, Any]], cache: Path) -> dict[str, Any]:
    outs = [cache / r["key"] for r in results]
    return metrics([load_run(o) for o in outs])


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if isinstance(x, np.generic):
        return _clean(x.item())
    return x


def scenario(st: Any, runs: list[tuple[str, str, float | None, int, Any]],
             res: dict[str, dict[str, Any]], best: tuple[float, ...], cache: Path
             ) -> dict[str, Any]:
    groups: dict[tuple[str, float | None], list[dict[str, Any]]] = defaultdict(list)
    failed = []
    for _, cfg, k, seed, spec in runs:
        r = res.get(spec.key())
        if _ok(r):
            groups[(cfg, k)].append(r)
        else:
            failed.append({"config": cfg, "interval_rtt": k, "seed": seed,
                           "error": (r or {}).get("error", "missing")})
    configs: dict[str, Any] = {}
    for (cfg, k), rs in sorted(groups.items(), key=lambda x: (x[0][0], x[0][1] or 0)):
        pooled = _pooled(rs, cache)
        entry = {"pooled": pooled, "seeds": [r["spec"]["scenario"]["seed"] for r in rs],
                 "per_seed": [{k2: r["metrics"][k2] for k2 in KEYS + ("incast_drop_bytes",
                                                                       "rto_flows")} for r in rs]}
        if "cosim" in rs[0]["summary"]:
            entry["cosim"] = [r["summary"]["cosim"] for r in rs]
        configs.setdefault(cfg, {})[str(int(k)) if k else "-"] = entry
    out: dict[str, Any] = {"title": st.title, "notes": st.notes, "alphas": list(st.alphas),
                           "dt_static": list(best), "configs": configs, "failed": failed}
    out["gains"] = gains(configs)
    return out


def gains(configs: dict[str, Any]) -> dict[str, Any]:
    """G vs DT and vs dt-static, and R (share of exact ABM's gain), per config and interval."""
    def ref(name: str) -> dict[str, Any] | None:
        c = configs.get(name, {}).get("-")
        return c["pooled"] if c else None

    dt, static = ref("dt"), ref("dt-static")
    abm1 = configs.get("abm", {}).get("1", {}).get("pooled")
    out: dict[str, Any] = {}
    for cfg, per in configs.items():
        for k, e in per.items():
            m = e["pooled"]
            row = {}
            for key in KEYS + ("incast_drop_bytes",):
                v = m[key]
                row[f"G_dt_{key}"] = gain(v, dt[key]) if dt else None
                row[f"G_static_{key}"] = gain(v, static[key]) if static else None
                if dt and abm1 and dt[key] != abm1[key]:
                    row[f"R_{key}"] = (dt[key] - v) / (dt[key] - abm1[key])
            out.setdefault(cfg, {})[k] = row
    return out


def burst(bs: list[tuple[dict[str, Any], Any]], res: dict[str, dict[str, Any]], cache: Path
          ) -> dict[str, Any]:
    groups: dict[tuple[float, str], list[dict[str, Any]]] = defaultdict(list)
    for info, spec in bs:
        r = res.get(spec.key())
        if _ok(r):
            groups[(info["frac"], info["config"])].append(r)
    table: dict[str, dict[str, Any]] = {}
    for (frac, cfg), rs in sorted(groups.items()):
        m = _pooled(rs, cache)
        table.setdefault(f"{frac:g}", {})[cfg] = {
            "burst_absorption": m["burst_absorption"], "queries": m["queries"],
            "qct_ms_p99": m["qct_ms_p99"], "short_slowdown_p99": m["short_slowdown_p99"]}
    for row in table.values():
        base = row.get("dt", {}).get("burst_absorption")
        for v in row.values():
            ba = v["burst_absorption"]
            v["vs_dt"] = ba / base if base else None
    return {"setting": "FB §6.2 multi-queue, scaled: 5 queues, query class alpha 20 (FBA: 16), "
                       "web-search 4 classes alpha 0.5 at 90% load", "table": table}


def meta(a: Any, sets: dict[str, Any], wall: float) -> dict[str, Any]:
    cache = Path(a.cache)
    speeds, evs, cos_over = [], [], []
    compute = 0.0
    for d in cache.iterdir() if cache.is_dir() else []:
        f = d / "done.json"
        if not f.is_file():
            continue
        s = json.loads(f.read_text())["summary"]
        compute += s.get("wall_seconds", s["run_wall_seconds"])
        if s["run_wall_seconds"] > 0:
            speeds.append(s["sim_seconds"] / s["run_wall_seconds"])
            evs.append(s["events"] / s["run_wall_seconds"])
        if "cosim" in s and s["cosim"]["intervals"]:
            c = s["cosim"]
            cos_over.append({"interval_s": c["interval_s"], "intervals": c["intervals"],
                             "controller_us_per_interval": 1e6 * c["controller_seconds"]
                             / c["intervals"]})
    per_int: dict[float, list[float]] = defaultdict(list)
    for c in cos_over:
        per_int[c["interval_s"]].append(c["controller_us_per_interval"])
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average_at_end": os.getloadavg()},
        "scale": {"leaves": 2, "servers_per_leaf": 8, "spines": 2, "link_gbps": 10,
                  "link_delay_us": 10, "base_rtt_us": 80, "buffer_kib_per_port_per_gbps": 9.6,
                  "gen_s": a.gen, "drain_s": a.drain},
        "seeds": a.seeds, "tune_seed": a.tune_seed, "intervals_rtt": a.intervals,
        "wall_seconds_this_invocation": wall,  # cached runs cost nothing here
        "runs_in_cache": len(speeds),
        "run_seconds_total": compute,  # wall time of every cached run, summed (2 in parallel)
        "sim_speed": {"sim_s_per_wall_s_median": float(np.median(speeds)) if speeds else None,
                      "events_per_s_median": float(np.median(evs)) if evs else None,
                      "events_per_s_p10_p90": [float(np.percentile(evs, 10)),
                                               float(np.percentile(evs, 90))] if evs else None},
        "controller_us_per_interval": {f"{k * 1e6:g}us": float(np.median(v))
                                       for k, v in sorted(per_int.items())},
        "settings": {n: {"title": s.title, "notes": s.notes,
                         "scenario": _portable(s.scenario.model_dump(mode="json"))}
                     for n, s in sets.items()},
    }


def _portable(scenario: dict[str, Any]) -> dict[str, Any]:
    """The scenario with its CDF path relative to the repository."""
    repo = Path(__file__).resolve().parents[2]
    cdf = Path(scenario["cdf"])
    if cdf.is_absolute() and cdf.is_relative_to(repo):
        scenario = {**scenario, "cdf": str(cdf.relative_to(repo))}
    return scenario


def write(doc: dict[str, Any], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(_clean(doc), indent=1))
    try:
        from bench.fidelity import plots
    except ImportError:
        return
    plots.draw(doc, out.parent)


def _fmt(x: Any, pct: bool = False) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{100 * x:+.1f}%" if pct else f"{x:.3g}"


def text(doc: dict[str, Any]) -> str:
    lines = []
    for sc in doc["scenarios"].values():
        if "configs" not in sc:
            continue
        lines.append(f"\n{sc['title']}\n  dt-static alphas: {sc['dt_static']}")
        lines.append(f"  {'config':22s} {'int':>6s} {'short p99':>9s} {'p99.9':>7s} "
                     f"{'QCT p99':>8s} {'G_dt p99':>9s} {'G_st p99':>9s} {'G_dt QCT':>9s} "
                     f"{'RTO fl':>6s} {'n':>5s}")
        for cfg, per in sc["configs"].items():
            for k, e in per.items():
                m = e["pooled"]
                g = sc["gains"][cfg][k]
                lines.append(
                    f"  {cfg:22s} {k:>6s} {_fmt(m['short_slowdown_p99']):>9s} "
                    f"{_fmt(m['short_slowdown_p999']):>7s} {_fmt(m['qct_ms_p99']):>8s} "
                    f"{_fmt(g['G_dt_short_slowdown_p99'], True):>9s} "
                    f"{_fmt(g['G_static_short_slowdown_p99'], True):>9s} "
                    f"{_fmt(g['G_dt_qct_ms_p99'], True):>9s} {m['rto_flows']:>6d} "
                    f"{m['short_n']:>5d}")
    if doc.get("burst"):
        lines.append("\nburst absorption (FB §6.2, scaled)")
        for frac, row in doc["burst"]["table"].items():
            cells = ", ".join(f"{c} {_fmt(v['burst_absorption'])} ({_fmt(v['vs_dt'])}x)"
                              for c, v in row.items())
            lines.append(f"  request {frac}: {cells}")
    return "\n".join(lines)
