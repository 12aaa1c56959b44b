"""Trace replay and closed loop on SYNTHETIC traffic (Python packet simulator, not ns-3).

Real ns-3 traces are replayed by ``test_ns3_traces.py``; these tests exercise the same
code on traces produced by :mod:`p4ref.synth`, labelled ``# source=synthetic``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from p4ref import synth
from p4ref.closed_loop import plan_for
from p4ref.pipeline import ST_ACTIVE, ST_CONGESTED, Pipeline
from p4ref.replay import _switch, replay
from p4ref.trace import Trace, TraceError, read_trace, write_trace

BASE = synth.SynthConfig(duration_ns=1_500_000)


@cache
def _cfg(scheme: str) -> synth.SynthConfig:
    return replace(BASE, scheme=scheme, cong_frac=0.0 if scheme == "fb" else 0.9,
                   alpha_unsched=64.0 if scheme == "abm" else None)


@cache
def _trace(scheme: str) -> Trace:
    res = synth.simulate(_cfg(scheme))
    text = write_trace(res.rows, res.meta)
    assert "# source=synthetic" in text
    return read_trace(f"synthetic-{scheme}.csv", text)


@pytest.mark.parametrize("scheme", ["abm", "fb", "dt"])
def test_model_agrees_with_exact_scheme(scheme: str) -> None:
    tr = _trace(scheme)
    adm = tr.cols["admitted"]
    assert 0 < adm.sum() < len(adm)                       # the workload drops and admits
    rep = replay(tr)
    assert rep.rate("exact vs recorded") == 1.0           # formula == simulator, exactly
    assert rep.rate("model vs exact(gamma=1/active)") >= 0.99
    assert rep.thr_rel_mean < 0.01                        # Protean: < 1% mean error
    # 80-byte cells: the P4 counts ceil(size / 80) per packet, the exact scheme bytes
    cells = replay(tr, cell_bytes=80)
    assert cells.rate("model vs exact(gamma=1/active)") >= 0.95


def test_disagreements_are_near_the_threshold() -> None:
    """Where model and exact differ, the packet sits within the arithmetic's error band."""
    tr = _trace("abm")
    rep = replay(tr)
    c = tr.cols
    thr = c["threshold_bytes"]
    need = c["qlen_bytes"] + c["bytes"]
    parts = _switch(tr, 1, 1000, 6)
    differ = parts["fresh"] != parts["exact_rr"]
    assert differ.sum() == len(tr) - round(rep.rate("model vs exact(gamma=1/active)") * len(tr))
    assert (np.abs(need[differ] - thr[differ]) <= 0.013 * thr[differ] + 1).all()


def test_sync_longer_than_the_trace_sees_an_empty_switch() -> None:
    tr = _trace("abm")
    parts = _switch(tr, 1, 10**12, 6)
    empty = parts["stale"]
    # nothing synced yet: q = 0, Q = 0, n_p = 0, active = 0 -> admit iff the packet alone fits
    # under alpha * B (alpha_p or alpha_unsched), which every packet here does
    assert empty.all()


def test_unordered_trace_is_rejected() -> None:
    res = synth.simulate(replace(BASE, duration_ns=200_000))
    rows = list(reversed(res.rows))
    with pytest.raises(TraceError, match="not in time order"):
        replay(read_trace("rev.csv", write_trace(rows, res.meta)))


def test_closed_loop_tracks_the_exact_scheme_and_keeps_registers_consistent() -> None:
    cfg = _cfg("abm")
    exact = synth.simulate(cfg)
    plan, dep = plan_for(cfg, 80, 1000)
    qidx = {(q["dev_port"], q["queue"]): q["qidx"] for q in plan.queues}
    pipe = Pipeline(plan.entries, pool_units=dep.pool_units, recirc_port=dep.recirc_port)
    res = synth.simulate(cfg, pipe, cell_bytes=80, sync_ns=1000, qidx_of=qidx)
    assert (res.offered == exact.offered).all()
    total_p4, total_exact = int(res.dropped.sum()), int(exact.dropped.sum())
    assert abs(total_p4 - total_exact) <= 0.15 * total_exact
    assert res.dropped[1] > 0                              # the incast class is stressed too
    for idx in sorted(set(qidx.values())):                 # one more SYNC round
        pipe.sync(idx)
    managed = sorted(set(qidx.values()))
    depth = pipe.qlen_eg.data[managed].astype(np.int64)
    state = pipe.state_eg.data[managed].astype(np.int64)
    assert pipe.occupancy_units() == depth.sum()
    assert sum(pipe.n_p(i) for i in range(2)) == int(((state & ST_CONGESTED) > 0).sum())
    assert sum(pipe.active(i) for i in range(cfg.ports)) == int(((state & ST_ACTIVE) > 0).sum())


def test_abm_core_trace_with_integer_priorities_and_groups() -> None:
    """The ns-3 harness labels priorities by class index and may name FB groups."""
    res = synth.simulate(replace(_cfg("abm"), alpha_unsched=None, duration_ns=500_000))
    rows = [(*r[:4], str(int(r[4] == "query")), *r[5:]) for r in res.rows]
    meta = dict(res.meta, scheme="abm-core", alpha_unsched="64", groups="0,1")
    rep = replay(read_trace("core.csv", write_trace(rows, meta)))
    assert rep.rate("exact vs recorded") == 1.0
    assert rep.rate("model vs exact(gamma=1/active)") >= 0.99
