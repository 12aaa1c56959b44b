"""Closed loop on SYNTHETIC traffic: the P4 model drives the switch instead of the
exact scheme, with its real SYNC staleness, egress records and cell accounting."""

from __future__ import annotations

from typing import Any

from .pipeline import Pipeline
from .replay import _control
from .synth import SynthConfig, simulate

__all__ = ["compare", "plan_for"]


def plan_for(cfg: SynthConfig, cell_bytes: int, sync_ns: int = 1000) -> tuple[Any, Any]:
    """Control-plane plan and deployment for the synthetic switch ``cfg``."""
    ctl = _control()
    prios = ctl.parse_priorities({"priorities": [
        {"name": n, "queues": list(q), "alpha": a} for n, q, a in cfg.priorities]})
    dep_doc: dict[str, Any] = {
        "scheme": cfg.scheme, "pool_bytes": cfg.pool_bytes, "cell_bytes": cell_bytes,
        "queues_per_port": cfg.queues_per_port, "frame_overhead_bytes": 0,
        "ports": [{"dev_port": i} for i in range(cfg.ports)], "admit_rule": cfg.admit_rule,
        "congestion_fraction": cfg.cong_frac, "sync": {"period_ns": sync_ns}}
    if cfg.alpha_unsched is not None:
        dep_doc["alpha_unsched"] = cfg.alpha_unsched
    dep = ctl.parse_deployment(dep_doc)
    return ctl.build_plan(prios, dep), dep


def compare(cfg: SynthConfig, *, cell_bytes: int, sync_ns: list[int]) -> list[str]:
    """Drops per priority: exact scheme vs P4 model (Tofino 1 SYNC; Tofino 2 ghost+SYNC)."""
    names = [p[0] for p in cfg.priorities]
    exact = simulate(cfg)
    out = [f"SYNTHETIC switch: {cfg.ports} ports x {cfg.queues_per_port} queues, pool "
           f"{cfg.pool_bytes} B, scheme {cfg.scheme}; packets offered per priority "
           f"{dict(zip(names, exact.offered.tolist(), strict=True))}",
           f"  exact scheme (float, per packet, instantaneous state): dropped "
           f"{dict(zip(names, exact.dropped.tolist(), strict=True))}"]
    for s in sync_ns:
        plan, dep = plan_for(cfg, cell_bytes, s)
        qidx = {(q["dev_port"], q["queue"]): q["qidx"] for q in plan.queues}
        for ghost in (False, True):
            pipe = Pipeline(plan.entries, pool_units=dep.pool_units, ghost=ghost,
                            recirc_port=dep.recirc_port)
            res = simulate(cfg, pipe, cell_bytes=cell_bytes, sync_ns=s, qidx_of=qidx)
            label = "Tofino 2 (ghost + SYNC)" if ghost else "Tofino 1 (SYNC)"
            out.append(f"  P4 model, {label}, SYNC every {s} ns, {cell_bytes} B units: "
                       f"dropped {dict(zip(names, res.dropped.tolist(), strict=True))} "
                       f"(of which {res.tm_dropped} by the full pool)")
    return out
