"""Soak benchmark: alphad on the virtual ASIC (real-time clock) for a long run.

Cases (default): 8192 queues at a 10 ms interval and 512 queues at 1 ms, 30 minutes
each. Each case runs in a fresh process: the daemon's loop with its metrics and HTTP
API served, while this process scrapes /metrics and /v1/state every few seconds as
Prometheus and the live page would. Measured: resident memory (RSS) over time and its
growth after the first two minutes (warm-up: the API's history ring, 600 entries 0.1 s
apart, fills in the first minute), overruns, the duration of every cycle (p50, p99,
p99.9, max), alpha writes, fail-safe entries and the virtual ASIC's lag behind the
wall clock. Writes bench/results/soak.json.

    python -m bench.soak                      # both cases, 30 min each
    python -m bench.soak --minutes 2 --case 512:1ms
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
QUEUES_PER_PORT = 8
RSS_EVERY = 10.0  # seconds between two RSS samples
WARMUP = 120.0  # seconds before RSS growth is counted
SCRAPE_EVERY = 5.0  # seconds between two scrapes of /metrics and /v1/state


def scenario(n: int) -> str:
    """A switch of n queues; up to 32 ports carry traffic (long flows, incast bursts,
    on/off background), the rest idle. 10 us model steps (20 us above 2048 queues) so
    that the model thread keeps up with the wall clock on a 2-core machine (the
    virtual ASIC runs at most 20 us of model time per chunk: steps must not exceed it)."""
    ports = n // QUEUES_PER_PORT
    busy = min(max(ports // 4, 2), 32)
    half = busy // 2
    step = 10_000 if n <= 2048 else 20_000
    return (f"switch ports={ports} queues={QUEUES_PER_PORT} speed_gbps=10 "
            f"buffer_kb_per_port_per_gbps=9.6 dynamic_th=-1 step_ns={step} pkt_bytes=9000 "
            "seed=1\n"
            f"greedy port=0-{half - 1} queue=0,1 rate_gbps=10\n"
            f"incast port={half}-{busy - 1} queue=3 buffer_pct=2 fanin=16 sender_gbps=10 "
            "poisson_hz=20\n"
            f"onoff port={half}-{busy - 1} queue=5 rate_gbps=4 on_ms=5 off_ms=15\n")


def config(scn: Path, interval: str) -> str:
    return (f"interval: {interval}\nscheme: abm\n"
            "priorities:\n"
            "  - {name: bulk, queues: [0, 1, 2, 4, 5, 6, 7], alpha: 0.5}\n"
            "  - {name: query, queues: [3], alpha: 0.5}\n"
            f"backend: {{type: vasic, scenario: {scn}, clock: realtime, compare_dt: false}}\n"
            "metrics: {enabled: false}\n"
            "api: {listen: '127.0.0.1:0'}\n")


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def worker(n: int, interval: str, seconds: float, port_file: Path) -> dict[str, Any]:
    """The daemon, in this process: its loop, metrics and API, timed cycle by cycle."""
    from alphad.api import ApiServer, create_app
    from alphad.backends.sai import VasicBackend
    from alphad.config import parse_config
    from alphad.history import History
    from alphad.loop import Daemon
    from alphad.metrics import Metrics

    tmp = Path(tempfile.mkdtemp(prefix="alphad-soak-"))
    scn = tmp / "soak.scn"
    scn.write_text(scenario(n))
    cfg = parse_config(config(scn, interval), "soak", tmp)
    be = VasicBackend(cfg.backend.scenario, clock="realtime")
    metrics = Metrics()
    cap = int(seconds / cfg.interval * 1.1) + 1000
    cycles = np.full(cap, np.nan)  # written now: its pages count in RSS from the start
    rss = np.full(int(seconds / RSS_EVERY) + 10, np.nan)
    state = {"i": 0, "r": 0, "next_rss": 0.0}
    t_start = time.monotonic()

    class Timed(Daemon):
        def cycle(self) -> None:
            t0 = time.perf_counter()
            super().cycle()
            i = state["i"]
            if i < cap:
                cycles[i] = time.perf_counter() - t0
                state["i"] = i + 1
            now = time.monotonic()
            if now >= state["next_rss"] and state["r"] < len(rss):
                rss[state["r"]] = _rss_bytes()
                state["r"] += 1
                state["next_rss"] = now + RSS_EVERY

    d = Timed(cfg, be, metrics)
    history = History()
    d.on_cycle = history
    app = create_app(d, None, metrics, history, None)
    server = ApiServer(app, "127.0.0.1", 0)
    server.start()
    port_file.write_text(str(server.port))
    try:
        rc = d.run(seconds)
        totals = be.totals()
    finally:
        server.stop()
        be.close()
    wall = time.monotonic() - t_start
    c = cycles[: state["i"]] * 1e3
    r = rss[: state["r"]] / 2**20
    warm = min(int(WARMUP / RSS_EVERY), max(len(r) - 1, 0))
    st = d.stats
    return {
        "queues": n, "interval": interval, "seconds": round(wall, 1), "rc": rc,
        "intervals": st.intervals, "overruns": st.overruns,
        "overrun_pct": round(100 * st.overruns / max(st.intervals, 1), 3),
        "cycle_ms": {"p50": float(np.percentile(c, 50)), "p99": float(np.percentile(c, 99)),
                     "p999": float(np.percentile(c, 99.9)), "max": float(c.max())},
        "writes": st.writes, "write_errors": st.write_errors, "read_errors": st.read_errors,
        "failsafe_entries": st.failsafe_entries, "deferred_writes": st.deferred_writes,
        "restored": st.restored,
        "rss_mib": {"start": float(r[0]), "after_warmup": float(r[warm]), "end": float(r[-1]),
                    "max": float(r.max()), "growth_after_warmup": float(r[-1] - r[warm])},
        "rss_series_mib": [round(float(x), 2) for x in r],
        "vasic_max_lag_ms": totals["max_lag_ns"] / 1e6,
        "vasic_lag_ms_at_end": totals["lag_ns"] / 1e6,
    }


def _scrape(port_file: Path, stop: threading.Event, counts: dict[str, int]) -> None:
    while not stop.is_set() and not port_file.exists():
        stop.wait(0.2)
    if stop.is_set():
        return
    base = f"http://127.0.0.1:{port_file.read_text().strip()}"
    while not stop.wait(SCRAPE_EVERY):
        for path in ("/metrics", "/v1/state"):
            try:
                with urllib.request.urlopen(base + path, timeout=10) as r:
                    r.read()
                counts[path] = counts.get(path, 0) + 1
            except OSError:
                counts["errors"] = counts.get("errors", 0) + 1


def run_case(n: int, interval: str, minutes: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        port_file = Path(d) / "port"
        out = Path(d) / "result.json"
        stop = threading.Event()
        counts: dict[str, int] = {}
        th = threading.Thread(target=_scrape, args=(port_file, stop, counts), daemon=True)
        th.start()
        proc = subprocess.run([sys.executable, "-m", "bench.soak", "--worker", f"{n}:{interval}",
                               "--minutes", str(minutes), "--port-file", str(port_file),
                               "--result", str(out)], cwd=ROOT, check=False)
        stop.set()
        th.join(timeout=15)
        if proc.returncode != 0 or not out.exists():
            raise SystemExit(f"case {n}:{interval} failed (exit {proc.returncode})")
        res: dict[str, Any] = json.loads(out.read_text())
        res["scrapes"] = counts
        return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", help="QUEUES:INTERVAL (default 8192:10ms and "
                    "512:1ms)")
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "soak.json"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--port-file", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        n, interval = a.worker.split(":")
        res = worker(int(n), interval, a.minutes * 60, a.port_file)
        a.result.write_text(json.dumps(res))
        return 0
    cases = a.case or ["8192:10ms", "512:1ms"]
    results = []
    for c in cases:
        n, interval = c.split(":")
        print(f"soak: {n} queues at {interval} for {a.minutes:g} min ...", flush=True)
        r = run_case(int(n), interval, a.minutes)
        results.append(r)
        cm, rs = r["cycle_ms"], r["rss_mib"]
        print(f"  {r['intervals']} intervals, {r['overruns']} overruns ({r['overrun_pct']}%), "
              f"cycle p50 {cm['p50']:.3f} ms p99 {cm['p99']:.3f} ms p99.9 {cm['p999']:.3f} ms "
              f"max {cm['max']:.1f} ms; RSS {rs['after_warmup']:.1f} -> {rs['end']:.1f} MiB "
              f"(+{rs['growth_after_warmup']:.2f} after {WARMUP:g} s); writes {r['writes']}, "
              f"fail-safe entries {r['failsafe_entries']}, vasic max lag "
              f"{r['vasic_max_lag_ms']:.1f} ms; scrapes {r['scrapes']}", flush=True)
    doc = {"python": platform.python_version(), "machine": platform.machine(),
           "cpus": os.cpu_count(), "load_avg_at_end": os.getloadavg(), "minutes": a.minutes,
           "cases": results}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
