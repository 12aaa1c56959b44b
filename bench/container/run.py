"""Benchmark: the alphad image as SONiC runs it.

Reports the image's size and, over several runs of the container against the virtual
SONiC switch (its Redis socket bind-mounted at /var/run/redis, the journal in a named
volume; container/harness.py), the time from ``run`` to:

- the container running (the engine's ``run -d`` returned),
- the first control cycle (``alphad_loop_intervals_total`` >= 1 on /metrics, polled
  every 20 ms),
- the first per-queue profile on the switch (container/harness.py's configuration:
  a class's alpha below the switch's own under the static scheme dt, so the first
  interval writes),

and the time ``stop`` (SIGTERM) takes, the restore included. Writes
bench/results/container.json. ``make bench-container`` (after ``make image``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from container.engine import IMAGE, engine, engine_name, image_exists, storage_driver
from container.harness import (
    Alphad,
    Switch,
    container_config,
    free_port,
    new_volume,
    podman,
    remove_volume,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[2]


def image_size(ref: str) -> dict[str, object]:
    info = json.loads(podman("image", "inspect", ref))[0]
    return {"bytes": int(info["Size"]), "layers": len(info.get("RootFS", {}).get("Layers", [])),
            "id": str(info["Id"])[:12]}


def one_run(switch: Switch, tmp: Path, i: int) -> dict[str, float]:
    vol = new_volume()
    port = free_port()
    a = Alphad(switch, vol, container_config(tmp / f"alphad-{i}.yaml", port, free_port()), port)
    try:
        t0 = time.monotonic()
        a.start()
        started = time.monotonic() - t0
        try:
            wait_for(lambda: a.intervals() >= 1, 120, "the first cycle")
            first_cycle = time.monotonic() - t0
            wait_for(switch.clones, 60, "the first per-queue profile")
            first_write = time.monotonic() - t0
        except AssertionError:
            print(a.logs()[-4000:], file=sys.stderr)
            raise
        t1 = time.monotonic()
        podman("stop", "-t", "15", a.name, timeout=60)
        stop_s = time.monotonic() - t1
        return {"started_s": started, "first_cycle_s": first_cycle,
                "first_write_s": first_write, "stop_s": stop_s}
    finally:
        a.remove()
        remove_volume(vol)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--image", default=IMAGE)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "container.json")
    a = ap.parse_args(argv)
    if not image_exists(a.image):
        print(f"image {a.image} not found: run `make image` first", file=sys.stderr)
        return 1
    size = image_size(a.image)
    rows = []
    with tempfile.TemporaryDirectory(prefix="alphad-bench-container-") as tmp:
        switch = Switch(Path(tmp)).start()
        try:
            for i in range(a.runs):
                rows.append(one_run(switch, Path(tmp), i))
                r = rows[-1]
                print(f"run {i + 1}: running {r['started_s']:.2f} s, first cycle "
                      f"{r['first_cycle_s']:.2f} s, first write {r['first_write_s']:.2f} s, "
                      f"stop {r['stop_s']:.2f} s")
        finally:
            switch.stop()
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    load = os.getloadavg()[0]
    print(f"image {a.image} ({size['id']}): {size['bytes'] / 1e6:.0f} MB in {size['layers']} "
          f"layers; engine {' '.join(engine())}")
    print(f"median of {a.runs}: running {med['started_s']:.2f} s, first cycle "
          f"{med['first_cycle_s']:.2f} s, first write {med['first_write_s']:.2f} s, "
          f"stop (SIGTERM, restore included) {med['stop_s']:.2f} s")
    print(f"load average (1 min) {load:.2f} on {os.cpu_count()} CPUs")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({
        "benchmark": "container", "image": a.image, "image_size": size,
        "engine": engine_name(), "storage_driver": storage_driver()
        if engine_name() == "podman" else None,
        "machine": {"python": sys.version.split()[0], "platform": platform.platform(),
                    "cpus": os.cpu_count(), "loadavg_1min": load,
                    "engine_version": podman("--version").strip()},
        "median": med, "runs": rows}, indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
