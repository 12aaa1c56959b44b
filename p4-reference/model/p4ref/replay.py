"""Replay an admission trace through the P4 model and through the exact scheme.

For every packet of the trace three decisions are compared:

* ``recorded``: what the simulator's exact scheme decided (column ``admitted``);
* ``exact``: :mod:`p4ref.reference` on the same inputs (checks that the trace and the
  formula agree; with gamma from the trace, and with gamma = 1/active as the P4 computes it);
* ``model``: the bit-exact pipeline, executing the entries the control plane builds for
  the trace's priorities, on the trace's state (``fresh``) or on the state as a SYNC round
  of period ``sync_ns`` would have left it in the ingress registers (``stale``; with
  ``ghost`` the queue length itself stays fresh, as Tofino 2's ghost threads provide).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from . import reference
from .entries import T
from .pipeline import Pipeline
from .trace import Trace, TraceError

__all__ = ["Agreement", "ReplayReport", "packet_decisions", "replay"]

_CONTROL = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "control")


def _control() -> ModuleType:
    if _CONTROL not in sys.path:
        sys.path.insert(0, _CONTROL)
    import p4ref_control

    return p4ref_control


@dataclass(frozen=True)
class Agreement:
    name: str
    rows: int
    agree: int
    only_a: int
    """Admitted by the first, dropped by the second."""
    only_b: int

    @property
    def rate(self) -> float:
        return self.agree / self.rows if self.rows else 1.0

    def line(self) -> str:
        return (f"{self.name:34s} {100 * self.rate:8.3f}%  ({self.rows - self.agree} of "
                f"{self.rows} differ: {self.only_a} admitted only by the first, "
                f"{self.only_b} only by the second)")


def _agree(name: str, a: npt.NDArray[np.bool_], b: npt.NDArray[np.bool_]) -> Agreement:
    return Agreement(name, len(a), int((a == b).sum()), int((a & ~b).sum()), int((~a & b).sum()))


@dataclass
class ReplayReport:
    source: str
    scheme: str
    rule: str
    rows: int
    cell_bytes: int
    sync_ns: int
    agreements: list[Agreement] = field(default_factory=list)
    thr_rel_mean: float = 0.0
    """Mean |T_model - T_exact| / T_exact over packets with T_exact >= 1024 units."""
    thr_rel_max: float = 0.0
    recorded_thr_rel_max: float = 0.0
    """max |T_exact - threshold_bytes| / threshold_bytes: trace vs formula consistency."""
    gamma_matches_rr: float = 1.0
    """Fraction of packets whose trace gamma equals 1/active (the P4's estimator)."""

    def text(self) -> str:
        out = [f"trace {self.source}: {self.rows} packets, scheme={self.scheme}, "
               f"admit_rule={self.rule}, units={self.cell_bytes} B, sync={self.sync_ns} ns",
               f"  trace gamma == 1/active for {100 * self.gamma_matches_rr:.2f}% of packets; "
               f"formula vs recorded threshold: max rel diff {self.recorded_thr_rel_max:.2e}",
               f"  model threshold vs float (T >= 1024 units): mean rel err "
               f"{100 * self.thr_rel_mean:.3f}%, max {100 * self.thr_rel_max:.3f}%"]
        out += ["  " + a.line() for a in self.agreements]
        return "\n".join(out)

    def rate(self, name: str) -> float:
        for a in self.agreements:
            if a.name == name:
                return a.rate
        raise KeyError(name)


def _plan_for(tr: Trace, cell_bytes: int, mantissa_bits: int) -> tuple[Any, Any, list[str]]:
    ctl = _control()
    c = tr.cols
    prios: dict[str, tuple[float, set[int]]] = {}
    owner: dict[int, str] = {}
    for p, q, a in zip(c["priority"], c["queue"], c["alpha_p"], strict=True):
        alpha, qs = prios.setdefault(str(p), (float(a), set()))
        if alpha != float(a):
            raise TraceError(f"{tr.source}: priority {p} has alpha_p {alpha} and {a}")
        if owner.setdefault(int(q), str(p)) != str(p):
            raise TraceError(f"{tr.source}: queue {q} carries priorities {owner[int(q)]} and {p}")
        qs.add(int(q))
    doc = {"priorities": [{"name": n, "queues": sorted(qs), "alpha": a, "group": tr.group_of(n)}
                          for n, (a, qs) in sorted(prios.items())]}
    pools = np.unique(c["pool_bytes"])
    if len(pools) != 1:
        raise TraceError(f"{tr.source}: pool_bytes varies within switch {c['switch'][0]}")
    max_len = int(c["bytes"].max()) if len(c["bytes"]) else 64
    dep = {"scheme": "abm" if tr.scheme == "abm-core" else tr.scheme,
           "pool_bytes": int(pools[0]), "cell_bytes": cell_bytes,
           "queues_per_port": int(c["queue"].max()) + 1,
           "ports": [{"dev_port": int(p)} for p in np.unique(c["port"])],
           "log_mantissa_bits": mantissa_bits, "frame_overhead_bytes": 0,
           "max_frame_bytes": max(max_len, 64), "admit_rule": tr.admit_rule}
    if tr.alpha_unsched is not None:
        dep["alpha_unsched"] = tr.alpha_unsched
    try:
        d = ctl.parse_deployment(dep)
        pr = ctl.parse_priorities(doc, d.queues_per_port)
        return ctl.build_plan(pr, d), d, [p.name for p in pr]
    except ctl.ConfigError as exc:
        raise TraceError(f"{tr.source}: {exc}") from None


def _state_at(t: npt.NDArray[np.int64], keys: npt.NDArray[np.int64],
              before: npt.NDArray[np.int64], after: npt.NDArray[np.int64],
              cut: npt.NDArray[np.int64], interpolate: bool) -> npt.NDArray[np.int64]:
    """Value of a per-key quantity at time ``cut[i]`` for each row i, from the rows of the
    same key: the value after the last arrival j with t[j] <= cut[i]; with
    ``interpolate``, moved linearly towards the value the next arrival recorded (between
    two arrivals a queue or the pool only drains). Before the first arrival of a key, the
    value that arrival recorded. Rows are in time order."""
    out = np.zeros(len(t), dtype=np.int64)
    for k in np.unique(keys):
        idx = np.nonzero(keys == k)[0]
        tk = t[idx]
        pos = np.searchsorted(tk, cut[idx], side="right") - 1
        nxt = np.minimum(pos + 1, len(idx) - 1)
        first = pos < 0
        v = np.where(first, before[idx[0]], after[idx[np.maximum(pos, 0)]]).astype(np.float64)
        if interpolate:
            t0, t1 = tk[np.maximum(pos, 0)], tk[nxt]
            span = np.maximum(t1 - t0, 1)
            frac = np.clip((cut[idx] - t0) / span, 0.0, 1.0)
            v = np.where(first | (nxt == np.maximum(pos, 0)), v,
                         v + (before[idx[nxt]] - v) * frac)
        out[idx] = np.round(v).astype(np.int64)
    return out


def _ceil_div(a: npt.NDArray[np.int64], b: int) -> npt.NDArray[np.int64]:
    return -(-a // b)


def _switch(tr: Trace, cell_bytes: int, sync_ns: int, mantissa_bits: int
            ) -> dict[str, npt.NDArray[np.bool_] | npt.NDArray[np.float64]]:
    plan, dep, names = _plan_for(tr, cell_bytes, mantissa_bits)
    pipe = Pipeline(plan.entries, pool_units=dep.pool_units, recirc_port=dep.recirc_port)
    c = tr.cols
    t = tr.int_col("t_ns")
    order = np.argsort(t, kind="stable")
    if not np.array_equal(order, np.arange(len(t))):
        raise TraceError(f"{tr.source}: rows of switch {c['switch'][0]} are not in time order")
    aidx = np.array([names.index(str(p)) for p in c["priority"]], dtype=np.int64)
    unsched = tr.int_col("unsched")
    alpha_img = pipe.tables[T.ALPHA]
    la = alpha_img.param_array(alpha_img.lookup_array((aidx << 1) | unsched), "l")
    size, qlen = tr.int_col("bytes"), tr.int_col("qlen_bytes")
    occ, pool = tr.int_col("pool_occupancy_bytes"), tr.int_col("pool_bytes")
    n_p, act = tr.int_col("n_p"), tr.int_col("port_active_queues")
    units_img = pipe.tables[T.PKT_UNITS]
    units = units_img.param_array(units_img.lookup_array(size), "units").astype(np.int64)

    def model(q: npt.NDArray[np.int64], o: npt.NDArray[np.int64], n: npt.NDArray[np.int64],
              a: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
        rem = np.maximum(dep.pool_units - _ceil_div(o, cell_bytes), 0)
        need = _ceil_div(q, cell_bytes) + units
        thr, _, _ = pipe.threshold_array(la, np.minimum(n, 0xFFFF), np.minimum(a, 0xFFFF), rem)
        thr = thr.astype(np.int64)
        return (need <= thr) & (units <= rem), thr.astype(np.float64)

    rem_b = pool - occ
    au = tr.alpha_unsched
    thr_trace = reference.threshold(tr.scheme, c["alpha_p"], c["gamma"], n_p, rem_b, unsched, au)
    exact_trace = reference.admit(tr.admit_rule, qlen, size, thr_trace, rem_b)
    gamma_rr = 1.0 / np.maximum(act, 1)
    thr_rr = reference.threshold(tr.scheme, c["alpha_p"], gamma_rr, n_p, rem_b, unsched, au)
    exact_rr = reference.admit(tr.admit_rule, qlen, size, thr_rr, rem_b)
    fresh, thr_model = model(qlen, occ, n_p, act)
    # stale: the state at the start of the current SYNC round, reconstructed from the
    # arrivals around it (queue and pool drain linearly between arrivals)
    cut = (t // sync_ns) * sync_ns - 1
    after_q = qlen + size * tr.int_col("admitted")
    after_o = occ + size * tr.int_col("admitted")
    qkey = tr.int_col("port") * 64 + tr.int_col("queue")
    nidx_of = {(r["dev_port"], r["queue"]): r["nidx"] for r in plan.queues}
    nkey = np.array([nidx_of[(int(p), int(q))] for p, q in zip(c["port"], c["queue"],
                                                                 strict=True)], dtype=np.int64)
    zeros = np.zeros(len(t), dtype=np.int64)
    s_q = _state_at(t, qkey, qlen, after_q, cut, True)
    s_o = _state_at(t, zeros, occ, after_o, cut, True)
    s_n = _state_at(t, nkey, n_p, n_p, cut, False)
    s_a = _state_at(t, tr.int_col("port"), act, act, cut, False)
    stale, _ = model(s_q, s_o, s_n, s_a)
    ghost, _ = model(qlen, s_o, s_n, s_a)
    return {"recorded": c["admitted"].astype(bool), "exact": exact_trace, "exact_rr": exact_rr,
            "fresh": fresh, "stale": stale, "ghost": ghost, "thr_model": thr_model,
            "thr_rr": thr_rr / cell_bytes, "thr_trace": thr_trace,
            "thr_recorded": c["threshold_bytes"], "gamma_ok": np.isclose(c["gamma"], gamma_rr)}


def packet_decisions(tr: Trace, *, cell_bytes: int = 1, sync_ns: int = 1000,
                     mantissa_bits: int = 6) -> dict[str, np.ndarray]:
    """Per-packet arrays of every switch of ``tr``, grouped by switch in order of first
    appearance: decisions ``recorded``, ``exact``, ``exact_rr``, ``fresh``, ``stale``,
    ``ghost``; thresholds ``thr_model`` (units), ``thr_rr`` (units), ``thr_trace`` (bytes)."""
    if sync_ns <= 0:
        raise ValueError("sync_ns must be positive")
    parts = [_switch(tr.select(tr.cols["switch"] == s), cell_bytes, sync_ns, mantissa_bits)
             for s in dict.fromkeys(tr.cols["switch"])]
    if not parts:
        return {}
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def replay(tr: Trace, *, cell_bytes: int = 1, sync_ns: int = 1000,
           mantissa_bits: int = 6) -> ReplayReport:
    """Replay every switch of ``tr`` and report decision agreement."""
    cat = packet_decisions(tr, cell_bytes=cell_bytes, sync_ns=sync_ns,
                           mantissa_bits=mantissa_bits)
    rep = ReplayReport(tr.source, tr.scheme, tr.admit_rule, len(tr), cell_bytes, sync_ns)
    if not cat:
        return rep
    b = {k: cat[k].astype(bool) for k in ("recorded", "exact", "exact_rr", "fresh", "stale",
                                          "ghost")}
    rep.agreements = [
        _agree("exact vs recorded", b["exact"], b["recorded"]),
        _agree("exact(gamma=1/active) vs exact", b["exact_rr"], b["exact"]),
        _agree("model vs exact(gamma=1/active)", b["fresh"], b["exact_rr"]),
        _agree("model vs recorded", b["fresh"], b["recorded"]),
        _agree(f"model+sync {sync_ns}ns vs recorded", b["stale"], b["recorded"]),
        _agree("model+ghost+sync vs recorded", b["ghost"], b["recorded"]),
    ]
    sel = cat["thr_rr"] >= 1024
    if sel.any():
        rel = np.abs(cat["thr_model"][sel] - cat["thr_rr"][sel]) / cat["thr_rr"][sel]
        rep.thr_rel_mean, rep.thr_rel_max = float(rel.mean()), float(rel.max())
    rec = cat["thr_recorded"] > 0
    if rec.any():
        rep.recorded_thr_rel_max = float(np.max(np.abs(cat["thr_trace"][rec] - cat[
            "thr_recorded"][rec]) / cat["thr_recorded"][rec]))
    rep.gamma_matches_rr = float(cat["gamma_ok"].astype(bool).mean())
    return rep

