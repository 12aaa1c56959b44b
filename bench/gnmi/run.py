"""Benchmark: the gNMI latency budget through the virtual switch.

Runs the real virtual switch (redis-server + virtual ASIC process, the shipped
32 x 100G config_db.json, 160 managed queues) and its gNMI server as a separate
process, then measures with the alphad ``gnmi`` backend's own client code:

- Set round trip (request to SetResponse): one dynamic_th leaf, and one
  SetRequest carrying 16 or 160 leaves (steady state: every queue has its
  per-queue profile), sonic-db and OpenConfig, plain TCP and TLS;
- the first apply of all 160 queues (clones + BUFFER_QUEUE split + journal);
- Set to switch: from the Set call until the virtual switch's buffer manager has
  copied the value into APPL_DB (what orchagent would program);
- SAMPLE cadence of ``COUNTERS/Ethernet*/Queues`` (and of the OpenConfig queue
  state) at 100 ms, 200 ms and 1 s: inter-arrival times, notification size,
  server-stamp-to-client delay, client decode time;
- one backend cycle (sample() + apply() of 10% of the queues).

Writes bench/results/gnmi.json. All traffic is on loopback.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import redis
from alphad.backends.gnmi import GnmiConfig
from alphad.gnmi.backend import GnmiBackend
from alphad.gnmi.channel import Connection, TargetSpec
from alphad.gnmi.proto import make_path, pb
from alphad.gnmi.telemetry import QueueTable
from alphad.model import Changes
from alphad_vswitch.redisproc import RedisServer

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DB = ROOT / "configs" / "sonic" / "config_db.json"
TRAFFIC = "greedy port=0-7 queue=0,1 rate_gbps=100\n"


def pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(xs), p)) if xs else float("nan")


def summary(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50_ms": pct(xs, 50) * 1e3, "p90_ms": pct(xs, 90) * 1e3,
            "p99_ms": pct(xs, 99) * 1e3, "max_ms": max(xs) * 1e3 if xs else float("nan")}


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def make_tls(d: Path) -> tuple[Path, Path, Path]:
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())

    def name(n: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, n)])

    def build(subj: str, k: Any, ca: bool) -> x509.Certificate:
        b = (x509.CertificateBuilder().subject_name(name(subj)).issuer_name(name("bench CA"))
             .public_key(k.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - dt.timedelta(days=1))
             .not_valid_after(now + dt.timedelta(days=1)))
        b = (b.add_extension(x509.BasicConstraints(ca=True, path_length=None), True) if ca else
             b.add_extension(x509.SubjectAlternativeName(
                 [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False))
        return b.sign(ca_key, hashes.SHA256())

    pem = serialization.Encoding.PEM
    (d / "ca.pem").write_bytes(build("bench CA", ca_key, True).public_bytes(pem))
    (d / "srv.pem").write_bytes(build("srv", key, False).public_bytes(pem))
    (d / "srv.key").write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                  serialization.NoEncryption()))
    return d / "ca.pem", d / "srv.pem", d / "srv.key"


class Bench:
    def __init__(self, d: Path, tls: bool) -> None:
        self.d = d
        self.redis = RedisServer(d / "redis").start()
        (d / "traffic.scn").write_text(TRAFFIC)
        self.procs: list[subprocess.Popen[bytes]] = []
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "alphad_vswitch.cli", "--config-db", str(CONFIG_DB),
             "--traffic", str(d / "traffic.scn"), "--redis", self.redis.address],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        self.wait(lambda: self.redis.client(6).hget("VSWITCH|state", "status") == "ready")
        self.port = free_port()
        args = [sys.executable, "-m", "alphad_vswitch_gnmi.cli", "--redis", self.redis.address,
                "--listen", f"127.0.0.1:{self.port}", "--min-sample-interval", "100ms",
                "--state-dir", str(d), "--log-level", "warning"]
        self.ca: Path | None = None
        if tls:
            self.ca, cert, key = make_tls(d)
            args += ["--tls-cert", str(cert), "--tls-key", str(key)]
        else:
            args.append("--insecure")
        self.procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL))
        self.spec = TargetSpec(f"127.0.0.1:{self.port}", insecure=not tls, ca=self.ca)
        self.conn = Connection(self.spec, 5.0)
        self.conn.wait_ready(20)

    @staticmethod
    def wait(cond: Any, timeout: float = 30) -> None:
        t = time.monotonic() + timeout
        while time.monotonic() < t:
            try:
                if cond():
                    return
            except (redis.RedisError, OSError):
                pass
            time.sleep(0.05)
        raise RuntimeError("timed out")

    def backend(self, telemetry: str, actuation: str, interval: float) -> GnmiBackend:
        cfg = GnmiConfig.model_validate({
            "type": "gnmi", "address": self.spec.address, "insecure": self.ca is None,
            "tls": {"ca": str(self.ca)} if self.ca else {}, "telemetry": telemetry,
            "actuation": actuation, "sample_interval": interval,
            "journal": str(self.d / f"journal-{telemetry}-{actuation}.json")})
        return GnmiBackend(cfg)

    def close(self) -> None:
        self.conn.close()
        for p in reversed(self.procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        self.redis.stop()


def bench_sets(b: Bench, reps: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for actuation in ("sonic-db", "openconfig"):
        be = b.backend("sonic", actuation, 1.0)
        n = be.topo.n
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        be.apply(Changes(np.arange(n), np.full(n, 0.5), np.full(n, -1)))
        first = time.perf_counter() - t0
        res: dict[str, Any] = {"first_apply_all_queues_ms": first * 1e3, "queues": n}
        for m in (1, 16, n):
            xs = []
            for r in range(reps):
                idx = np.sort(rng.choice(n, m, replace=False))
                k = np.full(m, -2 - (r % 3))
                t = time.perf_counter()
                be.apply(Changes(idx, np.exp2(k.astype(float)), k))
                xs.append(time.perf_counter() - t)
            res[f"set_{m}_leaves"] = summary(xs)
        # Set until the switch has it (buffer manager -> APPL_DB)
        c0 = b.redis.client(0)
        i = be.topo.find("Ethernet0", 0)
        name = "alphad_Ethernet0_0"
        xs = []
        for r in range(min(reps, 30)):
            k = -3 - (r % 4)
            t = time.perf_counter()
            be.apply(Changes(np.array([i]), np.array([2.0 ** k]), np.array([k])))
            while c0.hget(f"BUFFER_PROFILE_TABLE:{name}", "dynamic_th") != str(k):
                time.sleep(0.0005)
            xs.append(time.perf_counter() - t)
        res["set_to_appl_db"] = summary(xs)
        t = time.perf_counter()
        be.restore()
        res["restore_ms"] = (time.perf_counter() - t) * 1e3
        be.close()
        out[actuation] = res
    return out


def bench_sample(b: Bench, seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    qmap = b.redis.client(2).hgetall("COUNTERS_QUEUE_NAME_MAP")
    names = sorted(qmap)
    for family, prefix, path in (
            ("sonic", pb.Path(target="COUNTERS_DB"), make_path(["COUNTERS", "Ethernet*",
                                                                 "Queues"])),
            ("openconfig", pb.Path(), make_path(["qos", "interfaces", "interface", "output",
                                                 "queues", "queue", "state"]))):
        for iv in (0.1, 0.2, 1.0):
            if family == "openconfig" and iv != 0.2:
                continue
            req = pb.SubscribeRequest(subscribe=pb.SubscriptionList(
                prefix=prefix, mode=pb.SubscriptionList.STREAM, encoding=pb.JSON_IETF,
                subscription=[pb.Subscription(path=path, mode=pb.SAMPLE,
                                              sample_interval=int(iv * 1e9))]))
            table = QueueTable(names, family)
            done = threading.Event()

            def reqs(done: threading.Event = done, req: Any = req) -> Any:
                yield req
                done.wait()

            call = b.conn.stub.Subscribe(reqs(), metadata=b.conn.metadata)
            arrivals, delays, decode, sizes = [], [], [], []
            end = time.monotonic() + max(seconds, 12 * iv)
            synced = False
            for resp in call:
                now_wall, now = time.time(), time.monotonic()
                if resp.WhichOneof("response") == "sync_response":
                    synced = True
                elif synced:
                    arrivals.append(now)
                    delays.append(now_wall - resp.update.timestamp / 1e9)
                    sizes.append(resp.ByteSize())
                    t = time.perf_counter()
                    table.apply(resp.update)
                    decode.append(time.perf_counter() - t)
                if now > end:
                    break
            call.cancel()
            done.set()
            gaps = list(np.diff(arrivals))
            out[f"{family}_{int(iv * 1000)}ms"] = {
                "interval_ms": iv * 1e3, "samples": len(arrivals),
                "gap_mean_ms": statistics.fmean(gaps) * 1e3 if gaps else float("nan"),
                "gap_p99_ms": pct(gaps, 99) * 1e3, "gap_max_ms": max(gaps) * 1e3,
                "delay_p50_ms": pct(delays, 50) * 1e3, "delay_p99_ms": pct(delays, 99) * 1e3,
                "bytes_per_sample": int(statistics.fmean(sizes)),
                "decode_p50_ms": pct(decode, 50) * 1e3}
    return out


def bench_cycle(b: Bench, cycles: int) -> dict[str, Any]:
    be = b.backend("sonic", "sonic-db", 0.1)
    n = be.topo.n
    rng = np.random.default_rng(2)
    be.apply(Changes(np.arange(n), np.full(n, 0.5), np.full(n, -1)))  # clones first
    xs = []
    for r in range(cycles):
        t = time.perf_counter()
        be.sample()
        idx = np.sort(rng.choice(n, n // 10, replace=False))
        k = np.full(len(idx), -2 - (r % 3))
        be.apply(Changes(idx, np.exp2(k.astype(float)), k))
        xs.append(time.perf_counter() - t)
    be.restore()
    be.close()
    return {"queues": n, "changed": n // 10, "cycle": summary(xs),
            "note": "sample() waits up to half a SAMPLE interval for a fresh sample"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "gnmi.json")
    a = ap.parse_args()
    result: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version()}}
    for tls in (False, True):
        with tempfile.TemporaryDirectory(prefix="bench-gnmi-") as td:
            b = Bench(Path(td), tls)
            try:
                key = "tls" if tls else "plain"
                result[f"set_{key}"] = bench_sets(b, a.reps)
                if not tls:
                    result["sample"] = bench_sample(b, a.seconds)
                    result["cycle_100ms"] = bench_cycle(b, 50)
            finally:
                b.close()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    for k in ("set_plain", "set_tls"):
        for act, r in result[k].items():
            print(f"{k:9s} {act:10s} first apply {r['first_apply_all_queues_ms']:7.1f} ms | "
                  + " | ".join(f"{m}: p50 {r[m]['p50_ms']:.2f} p99 {r[m]['p99_ms']:.2f} ms"
                               for m in r if m.startswith("set_")))
    for k, r in result["sample"].items():
        print(f"sample {k:16s} gaps mean {r['gap_mean_ms']:.1f} p99 {r['gap_p99_ms']:.1f} ms, "
              f"delay p50 {r['delay_p50_ms']:.1f} ms, {r['bytes_per_sample']} B, decode "
              f"{r['decode_p50_ms']:.2f} ms")
    c = result["cycle_100ms"]["cycle"]
    print(f"cycle (sample + apply 10%): p50 {c['p50_ms']:.1f} p99 {c['p99_ms']:.1f} ms")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
