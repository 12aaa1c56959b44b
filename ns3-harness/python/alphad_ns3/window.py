"""Per-run metrics of a time window, paired with DT flow by flow: what the benchmarks score.

``windowed`` counts the queries and flows that start at or after a time, with flows and
queries still running at the end counted until the end (censored); ``long_vs_dt`` compares
long-flow completion times with DT's run of the same seed, flow by flow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from alphad_ns3.analysis import LONG_MIN, SHORT_MAX, load_run, percentile

__all__ = ["MIN_RTO_MS", "censored_fct", "long_vs_dt", "windowed"]

MIN_RTO_MS = 10.0  # the harness's TCP minimum RTO: a query that took this long waited for one


def censored_fct(r: Any) -> np.ndarray:
    """Each flow's FCT (ns); a flow still running at the end counts until the end."""
    f = r.flows
    return np.where(f["end_ns"] >= 0, f["fct_ns"], r.end_ns - f["start_ns"]).astype(np.float64)


def windowed(out: Path, t_from: float) -> dict[str, Any]:
    """Metrics of what starts at or after t_from (s): queries, short and long flows."""
    r = load_run(out)
    f, q = r.flows, r.queries
    t0 = t_from * 1e9
    fin = f["end_ns"] >= 0
    fct = censored_fct(r)
    slow = fct / f["ideal_ns"]
    w = f["start_ns"] >= t0
    ws = f["kind"] == "ws"
    short = w & ws & (f["size"] < SHORT_MAX)
    long_ = w & ws & (f["size"] >= LONG_MIN)
    qw = q["start_ns"] >= t0 if len(q) else np.zeros(0, dtype=bool)
    qct = np.where(q["end_ns"] >= 0, q["qct_ns"], r.end_ns - q["start_ns"])[qw] / 1e6 \
        if len(q) else np.zeros(0)
    s = r.summary
    return {
        "queries": int(qw.sum()),
        "qct_ms_p99": percentile(qct, 99), "qct_ms_mean": float(np.mean(qct)) if len(qct)
        else float("nan"),
        "burst_absorption": float(np.mean(q["drop_pkts"][qw] == 0)) if qw.any() else float("nan"),
        # Queries that took at least the minimum RTO (10 ms): they waited for a timeout.
        "query_timeouts": float(np.mean(qct >= MIN_RTO_MS)) if len(qct) else float("nan"),
        "short_n": int(short.sum()),
        "short_slowdown_p99": percentile(slow[short], 99),
        "short_rto_flows": int((short & (f["rto"] > 0)).sum()),
        "incast_rto_flows": int((w & (f["kind"] == "incast") & (f["rto"] > 0)).sum()),
        "long_n": int(long_.sum()),
        "long_fct_ms_mean": float(np.mean(fct[long_ & fin]) / 1e6) if (long_ & fin).any()
        else float("nan"),
        # Restricted mean: a flow still running at the end counts until the end. The same
        # flows start in every configuration of a seed, so this compares like with like;
        # the mean over finished flows alone drops the slowest ones (a third in (c)).
        "long_fct_ms_rmean": float(np.mean(fct[long_]) / 1e6) if long_.any() else float("nan"),
        "long_finished": float(np.mean(fin[long_])) if long_.any() else float("nan"),
        "uplink_utilisation": float(np.mean(s["uplink_utilisation"])),
        "writes": s.get("cosim", {}).get("writes", 0),
    }


def long_vs_dt(out: Path, dt_out: Path, t_from: float) -> float:
    """Long-flow throughput against DT, flow by flow: the geometric mean over the flows of
    >= 1 MB that start at or after t_from of FCT under DT / FCT here (unfinished flows
    counted to the end). The same flows start in both runs of a seed, so each flow is its
    own control: the big flows that set a mean FCT weigh no more than the others."""
    a, b = load_run(dt_out), load_run(out)
    fa, fb = a.flows, b.flows
    if len(fa) != len(fb) or not np.array_equal(fa["start_ns"], fb["start_ns"]):
        raise ValueError(f"{out} and {dt_out} do not start the same flows")
    sel = (fa["kind"] == "ws") & (fa["size"] >= LONG_MIN) & (fa["start_ns"] >= t_from * 1e9)
    if not sel.any():
        return float("nan")
    return float(np.exp(np.mean(np.log(censored_fct(a)[sel] / censored_fct(b)[sel]))))
