"""Benchmark: what observability costs the daemon.

1. Per request, by switch size (128 .. 8192 queues): one Prometheus scrape
   (``Metrics.exposition``), one ``/v1/state`` body (``state_json`` + JSON), one
   ``/v1/queues/...`` body, and the per-cycle work of the history ring and the
   recorder hand-off (both run in the loop thread).
2. Loop timing under load: the real-time loop at a 10 ms interval with the
   HTTP server in its process, alone and while a separate client process
   polls the live page's two endpoints twice a second and scrapes /metrics
   every second. Reports the spread of cycle start times (jitter) and overruns.

Writes bench/results/observability.json. Telemetry is synthetic (an in-memory
backend), so only alphad's own cost is measured.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from alphad.api import ApiServer, create_app, state_json
from alphad.config import parse_config
from alphad.history import History
from alphad.loop import Daemon
from alphad.metrics import Metrics
from alphad.model import Changes, Sample, Topology
from alphad.report import Recorder

ROOT = Path(__file__).resolve().parents[2]
SIZES = (128, 512, 2048, 8192)
QUEUES = 8
CONFIG = """
interval: {interval}
scheme: abm
priorities:
  - {{name: bulk, queues: [0, 1, 2, 4, 5, 6, 7], alpha: 0.5}}
  - {{name: query, queues: [3], alpha: 0.5}}
backend: {{type: vasic, scenario: {scenario}, clock: manual}}
metrics: {{enabled: false}}
"""


class SyntheticBackend:
    """Random telemetry for n queues; applies writes to its alpha array."""

    name = "synthetic"

    def __init__(self, n: int, seed: int = 1) -> None:
        ports = n // QUEUES
        self._topo = Topology(
            ports=tuple(f"Ethernet{4 * i}" for i in range(ports)),
            port_speed_bps=np.full(ports, 10e9),
            queue_port=np.repeat(np.arange(ports, dtype=np.int32), QUEUES),
            queue_index=np.tile(np.arange(QUEUES, dtype=np.int32), ports),
            buffer_bytes=9.6 * 1024 * 10 * ports)
        self._rng = np.random.default_rng(seed)
        self._tx = np.zeros(n, dtype=np.uint64)
        self._drop = np.zeros(n, dtype=np.uint64)
        self._alpha = np.full(n, 0.5)
        self._t0 = time.monotonic()

    def topology(self) -> Topology:
        return self._topo

    def sample(self) -> Sample:
        n = self._topo.n
        self._tx = self._tx + self._rng.integers(0, 125_000, n).astype(np.uint64)
        self._drop = self._drop + self._rng.integers(0, 3, n).astype(np.uint64) * 1500
        wm = self._rng.uniform(0, 40_000, n)
        return Sample(t=time.monotonic() - self._t0, watermark=wm, occupancy=wm * 0.5,
                      tx_bytes=self._tx, tx_packets=self._tx // 1500, drop_bytes=self._drop,
                      drop_packets=self._drop // 1500, alpha=self._alpha.copy(),
                      pool_watermark=float(self._rng.uniform(0, self._topo.buffer_bytes)),
                      pool_occupancy=float(self._rng.uniform(0, self._topo.buffer_bytes)))

    def apply(self, changes: Changes) -> None:
        self._alpha[changes.idx] = changes.alpha

    def restore(self) -> None:
        self._alpha[:] = 0.5

    def close(self) -> None:
        pass


def _config(interval: str) -> object:
    scn = ROOT / "configs" / "scenarios" / "default.scn"
    return parse_config(CONFIG.format(interval=interval, scenario=scn), "bench", ROOT)


def _median_us(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6


def per_request(n: int, repeat: int) -> dict[str, float]:
    be = SyntheticBackend(n)
    m = Metrics()
    d = Daemon(_config("10ms"), be, m)  # type: ignore[arg-type]
    h = History(min_step=0.0)
    for _ in range(60):
        d.cycle()
        h(d)
    with tempfile.TemporaryDirectory() as tmp:
        rec = Recorder(Path(tmp) / "run.jsonl")
        out = {
            "queues": n,
            "scrape_us": _median_us(lambda: m.exposition(), repeat),
            "scrape_bytes": len(m.exposition()),
            "state_us": _median_us(lambda: json.dumps(state_json(d)), repeat),
            "state_bytes": len(json.dumps(state_json(d))),
            "queue_us": _median_us(lambda: json.dumps(h.queue(n // 2)), repeat),
            "history_push_us": _median_us(lambda: h.push(d.snapshot), repeat * 5),  # type: ignore
            "record_handoff_us": _median_us(lambda: rec(d), repeat * 5),
        }
        t0 = time.perf_counter()
        rec.close()
        out["record_write_us_per_interval"] = (time.perf_counter() - t0) / max(
            rec.records, 1) * 1e6
    return out


CLIENT = """
import sys, time, httpx
url, seconds = sys.argv[1], float(sys.argv[2])
end = time.monotonic() + seconds
next_scrape = 0.0
with httpx.Client(timeout=10) as c:
    while time.monotonic() < end:
        c.get(url + "/v1/state"); c.get(url + "/v1/queues/Ethernet0/3")
        if time.monotonic() >= next_scrape:
            c.get(url + "/metrics"); next_scrape = time.monotonic() + 1.0
        time.sleep(0.5)
"""


def loop_timing(n: int, seconds: float, load: bool) -> dict[str, float]:
    be = SyntheticBackend(n)
    m = Metrics()
    d = Daemon(_config("10ms"), be, m)  # type: ignore[arg-type]
    h = History()
    starts: list[float] = []

    def hook(dm: Daemon) -> None:
        h(dm)
        starts.append(time.monotonic())

    d.on_cycle = hook
    srv = ApiServer(create_app(d, None, m, h), "127.0.0.1", 0)
    srv.start()
    client = None
    try:
        if load:
            client = subprocess.Popen([sys.executable, "-c", CLIENT, srv.url, str(seconds)])
        d.run(duration=seconds)
    finally:
        if client is not None:
            client.wait(timeout=30)
        srv.stop()
    gaps = np.diff(np.asarray(starts)) * 1e3
    dev = np.abs(gaps - 10.0)
    return {"queues": n, "load": load, "cycles": len(starts), "overruns": d.stats.overruns,
            "gap_ms_p50": float(np.percentile(gaps, 50)),
            "jitter_ms_p99": float(np.percentile(dev, 99)),
            "jitter_ms_max": float(dev.max())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "observability.json"))
    args = ap.parse_args()
    req = []
    for n in SIZES:
        r = per_request(n, args.repeat)
        req.append(r)
        print(f"{n:5d} queues: scrape {r['scrape_us'] / 1e3:7.2f} ms ({r['scrape_bytes'] / 1e3:.0f} kB)"
              f"  /v1/state {r['state_us'] / 1e3:6.2f} ms ({r['state_bytes'] / 1e3:.0f} kB)"
              f"  /v1/queues {r['queue_us'] / 1e3:5.2f} ms  history push {r['history_push_us']:.1f} us"
              f"  record hand-off {r['record_handoff_us']:.1f} us"
              f" (writer {r['record_write_us_per_interval'] / 1e3:.2f} ms/interval)")
    timing = []
    for n in (512, 2048):
        for load in (False, True):
            t = loop_timing(n, args.seconds, load)
            timing.append(t)
            print(f"{n:5d} queues, 10 ms loop, {'page + scrape' if load else 'idle API  '}: "
                  f"{t['cycles']} cycles, {t['overruns']} overruns, jitter p99 "
                  f"{t['jitter_ms_p99']:.2f} ms, max {t['jitter_ms_max']:.2f} ms")
    with open(args.out, "w") as f:
        json.dump({"machine": platform.platform(), "python": platform.python_version(),
                   "per_request": req, "loop_timing": timing}, f, indent=2)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
