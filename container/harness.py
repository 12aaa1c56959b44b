"""The alphad image run against the virtual SONiC switch, as SONiC runs an Application
Extension: the switch's Redis socket directory bind-mounted at /var/run/redis, the
journal in a named volume at /var/lib/alphad. Shared by the container tests and the
container benchmark.

The switch side runs on the host: a real redis-server (socket in ``run/``) and
``alphad-vswitch`` loaded with configs/sonic/. ``run/sonic-db/database_config.json``
names the socket by its path inside the container, as on a switch.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis
import yaml

from alphad_vswitch import configdb
from alphad_vswitch.redisproc import RedisServer, write_database_config
from alphad_vswitch.switch import READY_KEY
from container.engine import IMAGE, engine, run_options

ROOT = Path(__file__).resolve().parents[1]
SONIC = ROOT / "configs" / "sonic"
CFG_PATTERNS = ["BUFFER_*", "FLEX_COUNTER_TABLE*"]
APPL_PATTERNS = ["BUFFER_POOL_TABLE:*", "BUFFER_PROFILE_TABLE:*", "BUFFER_QUEUE_TABLE:*"]
JOURNAL = "sonic-journal.json"
CONFIG_IN_IMAGE = "/etc/alphad/alphad-sonic.yaml"


def wait_for(cond: Callable[[], object], timeout: float, what: str) -> float:
    """Poll ``cond`` every 20 ms; returns the seconds it took."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            if cond():
                return time.monotonic() - t0
        except (redis.RedisError, OSError, ValueError):
            pass
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def podman(*args: str, check: bool = True, timeout: float = 120) -> str:
    r = subprocess.run([*engine(), *args], capture_output=True, text=True, timeout=timeout,
                       check=False)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(args[:2])}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


@dataclass
class Switch:
    """redis-server + alphad-vswitch on the host; ``run`` is what the container mounts."""

    workdir: Path
    run: Path = field(init=False)
    server: RedisServer = field(init=False)
    proc: subprocess.Popen[bytes] | None = None

    def __post_init__(self) -> None:
        self.run = self.workdir / "run-redis"
        self.run.mkdir(parents=True, exist_ok=True)
        self.server = RedisServer(self.workdir / "redis", unix_socket=self.run / "redis.sock")

    def start(self) -> Switch:
        self.server.start()
        write_database_config(self.run / "sonic-db" / "database_config.json",
                              "/var/run/redis/redis.sock", None)
        log = open(self.workdir / "vswitch.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "alphad_vswitch.cli", "--config-db",
             str(SONIC / "config_db.json"), "--traffic", str(SONIC / "traffic.scn"),
             "--redis", self.server.address], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for(lambda: self.client(6).hget(READY_KEY, "status") == "ready", 30,
                 "the virtual switch ready")
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.server.stop()

    def client(self, db: int) -> redis.Redis:
        return self.server.client(db)

    def dump(self) -> tuple[str, str]:
        """CONFIG_DB buffer and flex-counter tables, APPL_DB buffer tables (sorted)."""
        return (configdb.dump(self.client(4), CFG_PATTERNS),
                configdb.dump(self.client(0), APPL_PATTERNS))

    def clones(self) -> list[str]:
        return list(self.client(4).scan_iter(match="BUFFER_PROFILE|alphad_*"))


def container_config(path: Path, metrics_port: int, api_port: int) -> Path:
    """The image's own configuration (configs/sonic/alphad-sonic.yaml) with the metrics
    and API on free loopback ports (the container shares the host's network), the last
    class's alpha set to 0.5, below the switch's own, and the static scheme dt: the
    switch's configuration changes in the first interval (per-queue profiles) and stays
    so, which makes what a restore must undo known."""
    cfg = yaml.safe_load((SONIC / "alphad-sonic.yaml").read_text())
    cfg["metrics"]["listen"] = f"127.0.0.1:{metrics_port}"
    cfg.setdefault("api", {})["listen"] = f"127.0.0.1:{api_port}"
    cfg["scheme"] = "dt"
    cfg["priorities"][-1].update(alpha=0.5, allow_lower=True)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


@dataclass
class Alphad:
    """One alphad container (the image's CMD) on the switch's socket and a volume."""

    switch: Switch
    volume: str
    config: Path
    metrics_port: int
    name: str = field(default_factory=lambda: f"alphad-test-{uuid.uuid4().hex[:8]}")
    image: str = IMAGE

    def command(self, *cmd: str) -> list[str]:
        return ["run", "-d", "--name", self.name, *run_options(),
                "-v", f"{self.switch.run}:/var/run/redis",
                "-v", f"{self.volume}:/var/lib/alphad",
                "-v", f"{self.config}:{CONFIG_IN_IMAGE}:ro",
                "--stop-timeout", "15", self.image, *cmd]

    def start(self, *cmd: str) -> Alphad:
        podman(*self.command(*cmd))
        return self

    def metrics(self) -> str:
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=2) as r:
            return str(r.read().decode())

    def intervals(self) -> float:
        for line in self.metrics().splitlines():
            if line.startswith("alphad_loop_intervals_total"):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    def state(self) -> dict:  # type: ignore[type-arg]
        out = json.loads(podman("inspect", self.name))
        return out[0]["State"]  # type: ignore[no-any-return]

    def logs(self) -> str:
        r = subprocess.run([*engine(), "logs", self.name], capture_output=True, text=True,
                           check=False)
        return r.stdout + r.stderr

    def remove(self) -> None:
        podman("rm", "-f", "-t", "0", self.name, check=False)


def volume_path(name: str) -> Path:
    return Path(podman("volume", "inspect", "--format", "{{.Mountpoint}}", name).strip())


def new_volume() -> str:
    name = f"alphad-state-{uuid.uuid4().hex[:8]}"
    podman("volume", "create", name)
    return name


def remove_volume(name: str) -> None:
    podman("volume", "rm", "-f", name, check=False)


def environment_note() -> str:
    return f"engine: {' '.join(engine())}; run options: {' '.join(run_options())}"


__all__ = ["JOURNAL", "Alphad", "Switch", "container_config", "environment_note",
           "free_port", "new_volume", "podman", "remove_volume", "volume_path", "wait_for"]

if os.environ.get("ALPHAD_CONTAINER_DEBUG"):
    print(environment_note(), file=sys.stderr)
