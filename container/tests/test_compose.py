"""The compose demo stack through podman-compose: docker-compose.yml with the local
override (redis and Prometheus built from Debian packages): the virtual switch, alphad
managing it, and alphad's metrics queried through that Prometheus."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from container.engine import build_compose_images, engine, engine_name, run_options
from container.harness import ROOT, free_port, podman, wait_for

FILES = ["-f", str(ROOT / "docker-compose.yml"), "-f", str(ROOT / "docker-compose.local.yml")]


def compose_cmd(project: str) -> list[str]:
    exe = shutil.which("podman-compose", path=str(Path(sys.executable).parent) + os.pathsep
                       + os.environ.get("PATH", ""))
    if not exe:
        pytest.fail("podman-compose not installed (pip install -e 'daemon[test]')",
                    pytrace=False)
    glob = " ".join(engine()[1:])
    runo = " ".join(o for o in run_options() if o not in ("--network", "host"))
    return [exe, f"--podman-args={glob}", f"--podman-run-args={runo}", "-p", project, *FILES]


@pytest.fixture
def stack(image: str) -> Iterator[tuple[list[str], int]]:
    if engine_name() != "podman":
        pytest.skip("the compose test drives podman-compose")
    build_compose_images()
    project = f"alphadtest{uuid.uuid4().hex[:6]}"
    cmd = compose_cmd(project)
    prom_port = free_port()
    env = {**os.environ, "ALPHAD_METRICS_PORT": str(free_port()),
           "ALPHAD_PROMETHEUS_PORT": str(prom_port)}
    up = subprocess.run([*cmd, "up", "-d", "--no-build"], cwd=ROOT, env=env, capture_output=True,
                        text=True, timeout=300, check=False)
    try:
        assert up.returncode == 0, up.stdout[-2000:] + up.stderr[-2000:]
        yield cmd, prom_port
    finally:
        names = podman("ps", "-a", "--filter", f"label=io.podman.compose.project={project}",
                       "--format", "{{.Names}}", check=False).split()
        inspected = [json.loads(podman("inspect", n, check=False) or "[{}]")[0] for n in names]
        volumes = [m["Name"] for c in inspected for m in c.get("Mounts", [])
                   if m.get("Type") == "volume"]
        subprocess.run([*cmd, "down", "-v"], cwd=ROOT, env=env, capture_output=True,
                       timeout=120, check=False)
        for v in volumes:
            podman("volume", "rm", "-f", v, check=False)


def prom_query(port: int, q: str) -> list[dict]:  # type: ignore[type-arg]
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=5) as r:
        body = json.loads(r.read())
    assert body["status"] == "success", body
    return body["data"]["result"]  # type: ignore[no-any-return]


def value(port: int, q: str) -> float | None:
    """The first sample of an instant query, None while there is none."""
    r = prom_query(port, q)
    return float(r[0]["value"][1]) if r else None


def test_prometheus_scrapes_alphad_in_the_compose_stack(stack: tuple[list[str], int]) -> None:
    _, port = stack
    # Prometheus (5 s scrape interval) sees alphad's control cycles advance
    wait_for(lambda: value(port, 'up{job="alphad"}') == 1, 120, "Prometheus scraping alphad")
    wait_for(lambda: value(port, "alphad_loop_intervals_total") is not None, 30, "the series")
    first = value(port, "alphad_loop_intervals_total")
    assert first is not None
    wait_for(lambda: (value(port, "alphad_loop_intervals_total") or 0) > first + 10, 60,
             "alphad's cycles advancing in Prometheus")
    series = prom_query(port, "alphad_loop_intervals_total")[0]["metric"]
    assert series["switch"] == "sonic-vs" and series["instance"] == "alphad:9464"
    # per-queue series of the 160 managed queues of the virtual switch
    assert value(port, "count(alphad_queue_watermark_bytes)") == 160
    # the alert rules mounted beside the scrape configuration are loaded
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/rules", timeout=5) as r:
        rules = json.loads(r.read())["data"]["groups"]
    assert rules and any(g["rules"] for g in rules)
