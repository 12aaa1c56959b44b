"""`auto9` and `auto` make the decisions recorded in golden/<scheme>-levels.json on seeded
random traffic.

The suite's evaluation rows were measured with this behaviour; a change to either that
alters one decision is a new candidate, not a refactoring. Rewrite the files on purpose
with ``python daemon/tests/test_auto_golden.py --write``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import make_sample, make_topology

from alphad import schemes
from alphad.controller import build_classes
from alphad.estimate import Estimator
from alphad.quantize import Quantizer

GOLDEN = Path(__file__).parent / "golden"
SCHEMES = ("auto9", "auto")
PER_QUEUE = ("auto9",)  # schemes whose queues of one class can differ: every queue recorded
RUNS = 40
INTERVALS = 300
SPEED_BPS = 10e9


def _levels(seed: int, scheme: str = "auto") -> list[list[int]]:
    """[interval, level of each class (PER_QUEUE: of each managed queue)...] whenever the
    levels change, on one random switch
    whose traffic moves between quiet, bursts, bursts with losses elsewhere and saturation
    (no class in strict priority)."""
    r = random.Random(seed)
    ports, qpp = 1 + int(r.random() * 6), 2 + int(r.random() * 5)
    n = ports * qpp
    B = 2e5 + r.random() * 4e6
    topo = make_topology(ports, qpp, speed=SPEED_BPS, buffer_bytes=B)
    ncls = 1 + int(r.random() * min(qpp - 1, 3))  # one queue per port left unmanaged
    queues = list(range(qpp - 1))
    r.shuffle(queues)
    prios = [(f"c{i}", queues[i::ncls], 2.0 ** (int(r.random() * 6) - 2), None)
             for i in range(ncls)]
    cl = build_classes(topo, prios)
    interval = (0.01, 0.1, 1.0)[int(r.random() * 3)]
    params = {} if r.random() < 0.5 else {"hold": (0.05, 0.5, 2.0)[int(r.random() * 3)],
                                           "safety": (1.0, 2.0, 4.0)[int(r.random() * 3)]}
    auto = schemes.get(scheme)(schemes.SchemeContext(topo, cl, Quantizer(), interval), params)
    est = Estimator(topo, cl)
    alpha = cl.alpha_q()
    tx = np.zeros(n, dtype=np.uint64)
    dr = np.zeros(n, dtype=np.uint64)
    t = 0.0
    est.update(make_sample(topo, t, alpha=alpha, pool_wm=0.0))
    rep = ([int(q) for q in np.flatnonzero(cl.prio >= 0)] if scheme in PER_QUEUE
           else [int(np.flatnonzero(cl.prio == c)[0]) for c in range(cl.n_prio)])
    out, last, regime = [], None, 0
    for i in range(INTERVALS):
        if r.random() < 0.05:
            regime = int(r.random() * 4)
        dt = interval * (5.0 if r.random() < 0.01 else 1.0)  # now and then a stale gap
        t += dt
        util = np.array([r.random() if r.random() < 0.5 else 0.0 for _ in range(n)])
        if regime == 3:  # every port saturated
            util = np.array([(0.9 + 0.1 * r.random()) * 2 / qpp for _ in range(n)])
        wm = np.array([r.random() * 0.05 * B if u > 0 else 0.0 for u in util])
        drops = np.zeros(n)
        if regime in (1, 2):  # bursts on one class's queues, on half the ports
            q0 = prios[int(r.random() * ncls)][1][0]
            for p in range(ports):
                if r.random() < 0.5:
                    q = p * qpp + q0
                    util[q] = 0.005
                    wm[q] = (0.05 + 0.85 * r.random()) * B
                    drops[q] = 0.5 * r.random() * wm[q]
        sent = util * SPEED_BPS / 8 * dt
        if regime == 2 or r.random() < 0.1:  # losses elsewhere
            for q in range(n):
                if r.random() < 0.2:
                    drops[q] += sent[q] * 0.05 * r.random()
        tx = tx + sent.astype(np.uint64)
        dr = dr + drops.astype(np.uint64)
        e = est.update(make_sample(topo, t, tx=tx.copy(), wm=wm, alpha=alpha,
                                   pool_wm=float(min(wm.sum(), B)), drops=dr.copy()))
        assert e is not None
        a = auto(e)
        assert (a[cl.prio < 0] == alpha[cl.prio < 0]).all()  # unmanaged queues untouched
        lv = [round(float(np.log2(a[q] / alpha[q]))) for q in rep]
        if lv != last:
            out.append([i, *lv])
            last = lv
    return out


def _file(scheme: str) -> Path:
    return GOLDEN / f"{scheme}-levels.json"


def _all(scheme: str) -> dict[str, list[list[int]]]:
    return {str(s): _levels(s, scheme) for s in range(RUNS)}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_decides_as_recorded(scheme: str) -> None:
    want = json.loads(_file(scheme).read_text())
    got = _all(scheme)
    raised = sum(any(any(x) for x in (row[1:] for row in v)) for v in got.values())
    assert raised >= RUNS // 2, "the traffic no longer exercises the raises"
    for seed, w in want.items():
        assert got[seed] == w, f"seed {seed}: first change at " + str(
            next((a, b) for a, b in zip([*got[seed], None], [*w, None], strict=False)
                 if a != b))


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        for name in SCHEMES:
            _file(name).write_text(json.dumps(_all(name), separators=(",", ":")) + "\n")
            print(f"wrote {_file(name)}")
