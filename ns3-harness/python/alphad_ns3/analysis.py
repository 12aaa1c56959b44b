"""Metrics of a run (or of several seeds pooled): slowdowns, query times, drops, buffer.

Definitions (see doc/harness.md):
- slowdown = FCT / ideal FCT (the flow alone: handshake, propagation, serialisation);
- short flows: web-search flows below one BDP (100 KB at 10 Gb/s x 80 us, as the ABM
  artifact); long flows: web-search flows of at least ``long_min`` bytes;
- a flow or query unfinished at the end of the run is censored there: its time is the
  run's end minus its start (a lower bound), and it is counted as unfinished;
- burst absorption: the share of queries none of whose packets was dropped (FB §6);
- G = 1 - M / M_DT: the reduction of metric M relative to DT (negative: worse).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Run", "gain", "load_run", "metrics", "percentile", "pooled_metrics"]

SHORT_MAX = 100_000  # bytes: one BDP (ABM artifact: short = non-incast flow < BDP)
LONG_MIN = 1_000_000  # bytes: long flows in short runs (the artifact uses 30 MB)


@dataclass
class Run:
    out: Path
    summary: dict[str, Any]
    flows: np.ndarray  # structured, one row per flow
    queries: np.ndarray  # structured, one row per query
    buffer: np.ndarray  # structured: t_ns, switch, occupancy_bytes

    @property
    def end_ns(self) -> float:
        return float(self.summary["sim_seconds"]) * 1e9


def _csv(path: Path) -> np.ndarray:
    arr = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding="ascii")
    return np.atleast_1d(arr)


def load_run(out: str | Path) -> Run:
    out = Path(out)
    summary = json.loads((out / "summary.json").read_text())
    return Run(out, summary, _csv(out / "flows.csv"), _csv(out / "queries.csv"),
               _csv(out / "buffer.csv"))


def percentile(x: np.ndarray, q: float) -> float:
    """q-th percentile (linear interpolation); NaN for no samples."""
    x = np.asarray(x, dtype=np.float64)
    return float(np.percentile(x, q)) if x.size else float("nan")


def _flow_times(flows: np.ndarray, end_ns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(slowdown, unfinished) with unfinished flows censored at the run's end."""
    done = flows["end_ns"] >= 0
    fct = np.where(done, flows["fct_ns"], end_ns - flows["start_ns"]).astype(np.float64)
    return fct / flows["ideal_ns"], ~done


def _stats(x: np.ndarray, prefix: str, qs: Sequence[float] = (50, 99, 99.9)) -> dict[str, float]:
    out = {f"{prefix}_p{str(q).replace('.', '')}": percentile(x, q) for q in qs}
    out[f"{prefix}_mean"] = float(np.mean(x)) if x.size else float("nan")
    return out


def metrics(runs: Run | Iterable[Run], short_max: int = SHORT_MAX,
            long_min: int = LONG_MIN) -> dict[str, Any]:
    """Metrics of one run, or of several runs pooled (flows and queries concatenated)."""
    runs = [runs] if isinstance(runs, Run) else list(runs)
    if not runs:
        raise ValueError("no runs")
    flows = np.concatenate([r.flows for r in runs])
    f_end = np.concatenate([np.full(len(r.flows), r.end_ns) for r in runs])
    queries = np.concatenate([r.queries for r in runs]) if any(len(r.queries) for r in runs) \
        else runs[0].queries[:0]
    q_end = np.concatenate([np.full(len(r.queries), r.end_ns) for r in runs]) \
        if len(queries) else np.zeros(0)
    slow, unfinished = _flow_times(flows, f_end)
    ws = flows["kind"] == "ws"
    inc = flows["kind"] == "incast"
    short = ws & (flows["size"] < short_max)
    long_ = ws & (flows["size"] >= long_min)
    m: dict[str, Any] = {
        "runs": len(runs),
        "flows": len(flows),
        "short_n": int(short.sum()),
        "short_unfinished": int((short & unfinished).sum()),
        "short_rto_flows": int((short & (flows["rto"] > 0)).sum()),
        "incast_flows": int(inc.sum()),
        "incast_rto_flows": int((inc & (flows["rto"] > 0)).sum()),
        "rto_flows": int((flows["rto"] > 0).sum()),
        "incast_drop_bytes": int(flows["drop_bytes"][inc].sum()),
        "ws_drop_bytes": int(flows["drop_bytes"][ws].sum()),
        "long_n": int(long_.sum()),
        "long_unfinished": int((long_ & unfinished).sum()),
    }
    m.update(_stats(slow[short], "short_slowdown"))
    m.update(_stats(slow[inc], "incast_slowdown", (50, 99)))
    fct_ms = slow * flows["ideal_ns"] / 1e6
    m.update(_stats(fct_ms[inc], "incast_fct_ms", (50, 99, 99.9)))
    m.update(_stats(fct_ms[short], "short_fct_ms", (50, 99, 99.9)))
    m["long_slowdown_p50"] = percentile(slow[long_], 50)
    done_long = long_ & ~unfinished
    m["long_fct_ms_mean"] = float(np.mean(flows["fct_ns"][done_long]) / 1e6) if done_long.any() \
        else float("nan")
    if len(queries):
        qdone = queries["end_ns"] >= 0
        qct = np.where(qdone, queries["qct_ns"], q_end - queries["start_ns"]) / 1e6
        m["queries"] = len(queries)
        m["queries_unfinished"] = int((~qdone).sum())
        m.update(_stats(qct, "qct_ms", (50, 99)))
        m["burst_absorption"] = float(np.mean(queries["drop_pkts"] == 0))
    else:
        m.update({"queries": 0, "queries_unfinished": 0, "qct_ms_p50": float("nan"),
                  "qct_ms_p99": float("nan"), "qct_ms_mean": float("nan"),
                  "burst_absorption": float("nan")})
    occ = []
    util = []
    sim_s = wall_s = events = 0.0
    for r in runs:
        s = r.summary
        pools = {sw["name"]: sw["pool_bytes"] for sw in s["switches"]}
        b = r.buffer
        if len(b):
            t0, t1 = s["params"]["start_s"] * 1e9, s["gen_end_s"] * 1e9
            sel = (b["t_ns"] >= t0) & (b["t_ns"] <= t1)
            frac = b["occupancy_bytes"][sel] / np.array([pools[n] for n in b["switch"][sel]])
            occ.append(frac)
        util.extend(s["uplink_utilisation"])
        sim_s += s["sim_seconds"]
        wall_s += s["run_wall_seconds"]
        events += s["events"]
    occ_all = np.concatenate(occ) if occ else np.zeros(0)
    m["buffer_occupancy_mean"] = float(np.mean(occ_all)) if occ_all.size else float("nan")
    m["buffer_occupancy_p99"] = percentile(occ_all, 99)
    m["uplink_utilisation"] = float(np.mean(util)) if util else float("nan")
    m["sim_seconds"] = sim_s
    m["sim_speed"] = sim_s / wall_s if wall_s > 0 else float("nan")  # simulated s per wall s
    m["events_per_second"] = events / wall_s if wall_s > 0 else float("nan")
    return m


def pooled_metrics(outs: Iterable[str | Path], **kw: Any) -> dict[str, Any]:
    return metrics([load_run(o) for o in outs], **kw)


def gain(value: float, baseline: float) -> float:
    """G = 1 - value / baseline: reduction relative to the baseline (negative: worse)."""
    if not np.isfinite(value) or not np.isfinite(baseline) or baseline == 0:
        return float("nan")
    return 1.0 - value / baseline
