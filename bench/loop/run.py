"""Benchmark: cost of one control step and of one full cycle.

compute step = estimate + scheme + quantize (Controller.step) on synthetic
telemetry, for 128/512/2048/8192 queues, without drops (where the default scheme stays on
DT's fast path) and with 5% of the queues dropping every interval (its full path); guards = the loop's fail-safe checks of a
sample and of its estimates plus the write limiter (alphad.failsafe, alphad.limits);
full cycle = read + compute (with the guards) + write against the virtual ASIC
through libalphad-sai (manual clock, so the model thread does not compete), with
`abm` and with the default scheme (whose raises the virtual ASIC's incasts trigger). Targets at 512 queues: <= 50 us per compute step, <= 200 us per full
cycle. Writes bench/results/loop.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import alphad.schemes.superseded  # noqa: F401  (`auto9` and `auto`, timed beside the default)
import numpy as np
from alphad.config import Config
from alphad.controller import Controller, build_classes
from alphad.failsafe import FailSafe
from alphad.limits import Limiter
from alphad.model import Sample, Topology
from alphad.quantize import Quantizer

ROOT = Path(__file__).resolve().parents[2]
SIZES = (128, 512, 2048, 8192)
QUEUES = 8
PRIOS = [("bulk", [0, 1, 2, 4, 5, 6, 7], 0.5, None), ("query", [3], 0.5, None)]
WARM = 2100  # untimed intervals (1 ms) before the paired timing: past `auto`'s hold of 2 s
LOSSY = 0.05  # intervals in which 5% of the queues drop: the default's full path, not its fast path
DEFAULT = str(Config.model_fields["scheme"].default)  # the scheme a configuration runs unless it names one


def topology(n: int) -> Topology:
    ports = n // QUEUES
    return Topology(
        ports=tuple(f"Ethernet{4 * i}" for i in range(ports)),
        port_speed_bps=np.full(ports, 10e9),
        queue_port=np.repeat(np.arange(ports, dtype=np.int32), QUEUES),
        queue_index=np.tile(np.arange(QUEUES, dtype=np.int32), ports),
        buffer_bytes=9.6 * 1024 * 10 * ports,
    )


def samples(topo: Topology, count: int, seed: int = 1, lossy: float = 0.0) -> list[Sample]:
    """Synthetic telemetry; ``lossy``: the share of queues that drop in each interval."""
    return list(stream(topo, count, seed, lossy))


def stream(topo: Topology, count: int, seed: int = 1, lossy: float = 0.0) -> Iterator[Sample]:
    """`samples` one at a time, for runs too long to hold."""
    rng = np.random.default_rng(seed)
    n = topo.n
    tx = np.zeros(n, dtype=np.uint64)
    drop = np.zeros(n, dtype=np.uint64)
    alpha = np.full(n, 0.5)
    for i in range(count):
        tx = tx + rng.integers(0, 125_000, n).astype(np.uint64)
        if lossy:
            drop = drop + ((rng.random(n) < lossy) * rng.integers(0, 30_000, n)).astype(np.uint64)
        yield Sample(
            t=i * 1e-3,
            watermark=rng.uniform(0, 40_000, n),
            tx_bytes=tx.copy(), tx_packets=tx // 1500,
            drop_bytes=drop.copy(), drop_packets=drop // 1500,
            alpha=alpha, pool_watermark=float(rng.uniform(0, topo.buffer_bytes)),
        )


def bench_compute(n: int, scheme: str, reps: int, lossy: float = 0.0) -> dict:
    topo = topology(n)
    ctl = Controller(topo, build_classes(topo, PRIOS), scheme=scheme, quantizer=Quantizer(),
                     interval=1e-3)
    ss = samples(topo, reps + 1, lossy=lossy)
    ctl.step(ss[0])
    times = []
    for s in ss[1:]:
        t0 = time.perf_counter_ns()
        ctl.step(s)
        times.append(time.perf_counter_ns() - t0)
    return {"queues": n, "scheme": scheme, "lossy": lossy,
            "median_us": statistics.median(times) / 1e3,
            "p99_us": float(np.percentile(times, 99)) / 1e3}


def bench_paired(n: int, reps: int, lossy: float = LOSSY, warm: int = WARM,
                 configs: tuple[str, ...] = ("dt", "abm", DEFAULT, "auto9", "auto",
                                             "auto4+sp")
                 ) -> dict:
    """The compute step of several schemes on the same telemetry, one interval of each in
    turn, so that a noisy machine slows all of them alike: medians and ratios to the first.
    ``scheme+sp``: the query class is served in strict priority before the bulk class.
    The first ``warm`` intervals are not timed: every scheme is past its first ``hold`` (the
    `auto` schemes' averages and decay) when the timing starts."""
    topo = topology(n)
    ctls = []
    for name in configs:
        scheme, _, sched = name.partition("+")
        classes = build_classes(topo, PRIOS, strict=(1, 0) if sched == "sp" else ())
        ctls.append(Controller(topo, classes, scheme=scheme, quantizer=Quantizer(),
                               interval=1e-3))
    times: list[list[int]] = [[] for _ in ctls]
    for i, s in enumerate(stream(topo, warm + reps + 1, lossy=lossy)):
        for c, ts in zip(ctls, times, strict=True):
            t0 = time.perf_counter_ns()
            c.step(s)
            if i > warm:
                ts.append(time.perf_counter_ns() - t0)
    med = [statistics.median(ts) / 1e3 for ts in times]
    return {"queues": n, "lossy": lossy, "median_us": dict(zip(configs, med, strict=True)),
            "ratio": {c: m / med[0] for c, m in zip(configs, med, strict=True)}}


def bench_guards(n: int, reps: int, scheme: str = DEFAULT) -> dict:
    """Fail-safe checks and write limiter of one interval, on top of Controller.step."""
    topo = topology(n)
    ctl = Controller(topo, build_classes(topo, PRIOS), scheme=scheme, quantizer=Quantizer(),
                     interval=1e-3)
    fs = FailSafe(topo, interval=1e-3)
    lim = Limiter(n, ctl.quantizer)
    ss = samples(topo, reps + 1)
    ctl.step(ss[0])
    times = []
    for i, s in enumerate(ss[1:]):
        ch = ctl.step(s)
        t0 = time.perf_counter_ns()
        fs.check_sample(s, i * 1e-3)
        fs.check_estimates(ctl.last.est)
        lim(ch, s.alpha, s.t)
        times.append(time.perf_counter_ns() - t0)
    return {"queues": n, "median_us": statistics.median(times) / 1e3,
            "p99_us": float(np.percentile(times, 99)) / 1e3}


def bench_cycle(n: int, reps: int, scheme: str) -> dict | None:
    try:
        from alphad.backends.sai import VasicBackend
    except ImportError:
        return None
    ports = n // QUEUES
    scn = (f"switch ports={ports} queues={QUEUES} speed_gbps=10 "
           f"buffer_kb_per_port_per_gbps=9.6 dynamic_th=-1 seed=1\n"
           f"greedy port=0-{ports // 2 - 1} queue=0,1 rate_gbps=10\n"
           f"incast port={ports // 2}-{ports - 1} queue=3 buffer_pct=20 fanin=16 "
           f"sender_gbps=10 poisson_hz=200\n")
    with tempfile.NamedTemporaryFile("w", suffix=".scn", delete=False) as f:
        f.write(scn)
    be = VasicBackend(Path(f.name), clock="manual")
    try:
        topo = be.topology()
        ctl = Controller(topo, build_classes(topo, PRIOS), scheme=scheme, quantizer=Quantizer(),
                         interval=1e-3)
        fs = FailSafe(topo, interval=1e-3)
        lim = Limiter(n, ctl.quantizer)
        be.advance(1e-3)
        ctl.step(be.sample())
        rd, comp, wr, tot, writes = [], [], [], [], 0
        for _ in range(reps):
            be.advance(1e-3)  # model time, not measured
            t0 = time.perf_counter_ns()
            s = be.sample()
            t1 = time.perf_counter_ns()
            fs.check_sample(s, s.t)
            ch = ctl.step(s)
            fs.check_estimates(ctl.last.est)
            ch = lim(ch, s.alpha, s.t)
            t2 = time.perf_counter_ns()
            be.apply(ch)
            t3 = time.perf_counter_ns()
            writes += len(ch)
            rd.append(t1 - t0), comp.append(t2 - t1), wr.append(t3 - t2), tot.append(t3 - t0)
        be.restore()
    finally:
        be.close()
        Path(f.name).unlink()
    med = lambda xs: statistics.median(xs) / 1e3
    return {"queues": n, "scheme": scheme, "read_us": med(rd), "compute_us": med(comp),
            "write_us": med(wr), "total_median_us": med(tot), "total_p99_us": float(np.percentile(tot, 99)) / 1e3,
            "writes_per_cycle": writes / reps}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "loop.json"))
    a = ap.parse_args()
    res: dict = {"python": platform.python_version(), "numpy": np.__version__,
                 "machine": platform.machine(), "compute": [], "cycle": []}
    print(f"{'queues':>7} {'scheme':>14} {'drops':>6} {'compute median us':>18} {'p99 us':>8}"
          "  (drops: share of queues dropping each interval)")
    for n in SIZES:
        for scheme, lossy in (("dt", 0.0), ("abm", 0.0), ("fb", 0.0), (DEFAULT, 0.0),
                              ("dt", LOSSY), (DEFAULT, LOSSY), ("auto-reference", LOSSY)):
            r = bench_compute(n, scheme, a.reps if n <= 2048 else a.reps // 4, lossy)
            res["compute"].append(r)
            print(f"{n:>7} {scheme:>14} {lossy:>6.0%} {r['median_us']:>18.1f}"
                  f" {r['p99_us']:>8.1f}")
    print(f"\n{'queues':>7} {'drops':>6}  compute median us, schemes in turn on the same "
          "telemetry (ratio to dt)")
    res["paired"] = []
    for n in SIZES[:3]:
        for lossy in (0.0, LOSSY):
            r = bench_paired(n, a.reps, lossy)
            res["paired"].append(r)
            print(f"{n:>7} {lossy:>6.0%}  " + "  ".join(
                f"{c} {m:.1f} ({r['ratio'][c]:.2f}x)" for c, m in r["median_us"].items()))
    print(f"\n{'queues':>7} {'guards median us':>17} {'p99 us':>8}  (fail-safe checks + "
          "write limiter per interval)")
    res["guards"] = []
    for n in SIZES:
        r = bench_guards(n, a.reps if n <= 2048 else a.reps // 4)
        res["guards"].append(r)
        print(f"{n:>7} {r['median_us']:>17.1f} {r['p99_us']:>8.1f}")
    print(f"\n{'queues':>7} {'scheme':>6} {'read':>8} {'compute':>8} {'write':>8} {'total':>8}"
          f" {'p99':>8} {'writes':>7}  (us, full cycle through libalphad-sai, virtual ASIC)")
    for n in SIZES:
        for scheme in ("abm", DEFAULT):
            try:
                r = bench_cycle(n, a.reps if n <= 2048 else a.reps // 4, scheme)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"{n:>7} cycle benchmark unavailable: {e}")
                continue
            if r is None:
                continue
            res["cycle"].append(r)
            print(f"{n:>7} {scheme:>6} {r['read_us']:>8.1f} {r['compute_us']:>8.1f}"
                  f" {r['write_us']:>8.1f} {r['total_median_us']:>8.1f}"
                  f" {r['total_p99_us']:>8.1f} {r['writes_per_cycle']:>7.1f}")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=2) + "\n")
    print(f"\nwrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
