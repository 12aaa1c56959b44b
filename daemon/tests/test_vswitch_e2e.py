"""End to end: alphad's control loop against the virtual SONiC switch running as its
own process (real redis-server, real virtual ASIC), including a Redis restart in
mid-run and the docker-compose services started directly as processes."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import yaml
from alphad_vswitch import configdb
from alphad_vswitch.redisproc import RedisServer
from alphad_vswitch.switch import READY_KEY

from alphad.config import parse_config
from alphad.loop import Daemon

ROOT = Path(__file__).resolve().parents[2]
SONIC = ROOT / "configs" / "sonic"
CFG_PATTERNS = ["BUFFER_*", "FLEX_COUNTER_TABLE*"]
APPL_PATTERNS = ["BUFFER_POOL_TABLE:*", "BUFFER_PROFILE_TABLE:*", "BUFFER_QUEUE_TABLE:*"]
VSWITCH = [sys.executable, "-m", "alphad_vswitch.cli"]


def dump(server_or_sock: RedisServer | Path) -> tuple[str, str]:
    if isinstance(server_or_sock, RedisServer):
        c4, c0 = server_or_sock.client(4), server_or_sock.client(0)
    else:
        c4 = redis.Redis(unix_socket_path=str(server_or_sock), db=4, decode_responses=True)
        c0 = redis.Redis(unix_socket_path=str(server_or_sock), db=0, decode_responses=True)
    return configdb.dump(c4, CFG_PATTERNS), configdb.dump(c0, APPL_PATTERNS)


def wait_for(cond, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if cond():
                return
        except (redis.RedisError, OSError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def stop(p: subprocess.Popen[bytes], timeout: float = 15) -> int:
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return int(p.returncode)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    s = RedisServer(tmp_path / "redis", persist=True)
    s.start()
    yield s
    s.stop()


@pytest.fixture
def vswitch(server: RedisServer, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    log = open(tmp_path / "vswitch.log", "wb")
    p = subprocess.Popen([*VSWITCH, "--config-db", str(SONIC / "config_db.json"),
                          "--traffic", str(SONIC / "traffic.scn"), "--redis", server.address],
                         stdout=log, stderr=subprocess.STDOUT)
    wait_for(lambda: server.client(6).hget(READY_KEY, "status") == "ready", 20, "vswitch ready")
    yield p
    stop(p)
    log.close()


def daemon_config(server: RedisServer, tmp_path: Path) -> str:
    return (f"interval: &iv 100ms\nscheme: abm\n"
            "priorities:\n  - {name: bulk, queues: [0, 1, 2], alpha: 0.5, allow_lower: true}\n"
            "  - {name: query, queues: [5, 6], alpha: 0.5, allow_lower: true}\n"
            "quantize: {kmin: -7, kmax: 3}\n"
            f"backend:\n  type: sonic\n  redis: {server.address}\n"
            f"  database_config: {tmp_path}/none.json\n  journal: {tmp_path}/state/j.json\n"
            "  poll_interval: *iv\n  timeout: 0.3\n"
            "metrics: {enabled: false}\n")


def test_control_loop_through_the_virtual_switch(server: RedisServer, vswitch,  # type: ignore[no-untyped-def]
                                                 tmp_path: Path) -> None:
    from alphad.backends import open_backend

    before = dump(server)
    cfg = parse_config(daemon_config(server, tmp_path))
    be = open_backend(cfg.backend)
    seen: dict[str, object] = {}

    def on_cycle(d: Daemon) -> None:
        if d.stats.intervals == 15:
            c4, c0 = server.client(4), server.client(0)
            clones = {k.split("|", 1)[1]: c4.hget(k, "dynamic_th")
                      for k in c4.scan_iter(match="BUFFER_PROFILE|alphad_*")}
            seen["clones"] = clones

            def appl() -> dict[str, str | None]:
                return {k.split(":", 1)[1]: c0.hget(k, "dynamic_th")
                        for k in c0.scan_iter(match="BUFFER_PROFILE_TABLE:alphad_*")}

            deadline = time.monotonic() + 2.0  # let the switch apply the latest writes
            while appl() != clones and time.monotonic() < deadline:
                time.sleep(0.02)
            seen["appl"] = appl()
            seen["flex"] = c4.hget("FLEX_COUNTER_TABLE|QUEUE_WATERMARK", "POLL_INTERVAL")
            seen["wm"] = d.snapshot.sample.watermark.max() if d.snapshot else 0

    d = Daemon(cfg, be, on_cycle=on_cycle)
    rc = d.run(duration=3.5)
    be.close()
    assert rc == 0 and d.stats.restored
    assert d.stats.intervals >= 15 and d.stats.read_errors == 0 and d.stats.write_errors == 0
    assert d.stats.writes > 0
    clones = seen["clones"]
    assert isinstance(clones, dict) and clones  # ABM moved alphas away from the profile's 2^3
    assert seen["appl"] == clones  # the switch accepted every clone (buffermgrd -> APPL_DB)
    assert seen["flex"] == "100"
    assert float(seen["wm"]) > 0  # type: ignore[arg-type]
    wait_for(lambda: dump(server) == before, 5, "the switch back on its original configuration")


def test_redis_restart_in_mid_run(server: RedisServer, vswitch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from alphad.backends import open_backend

    before = dump(server)
    cfg = parse_config(daemon_config(server, tmp_path))
    be = open_backend(cfg.backend)
    marks: dict[str, float] = {}

    def bounce() -> None:
        time.sleep(1.5)
        marks["down"] = time.monotonic()
        server.stop()  # saves the RDB, as SONiC's database container keeps its data
        time.sleep(1.0)
        server.start()
        marks["up"] = time.monotonic()

    checks: list[tuple[set[str], set[str]]] = []

    def on_cycle(d: Daemon) -> None:
        if "up" in marks and time.monotonic() - marks["up"] > 1.0 and len(checks) < 3:
            state = set(server.client(6).hkeys("ALPHAD_JOURNAL|config_db"))
            checks.append((set(be.journal.entries), state))

    t = threading.Thread(target=bounce)
    d = Daemon(cfg, be, on_cycle=on_cycle)
    t.start()
    rc = d.run(duration=5.0)
    t.join()
    be.close()
    assert rc == 0 and d.stats.restored
    assert d.stats.read_errors >= 3  # about one second without Redis at 100 ms
    assert checks, "no interval completed after the restart"
    for journal, state in checks:
        assert journal and journal <= state  # no journal entry lost
    wait_for(lambda: dump(server) == before, 5, "the switch back on its original configuration")
    assert server.client(6).hget(READY_KEY, "status") == "ready"


# -- docker-compose services as processes -------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_compose_services_started_as_processes(tmp_path: Path) -> None:
    """No Docker engine here: start redis, vswitch and alphad with the compose file's
    commands and environment, mapping the containers' paths (named volumes, the
    image's /etc/alphad = configs/sonic/) to directories of this test."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^COPY configs/sonic/ /etc/alphad/$", dockerfile, re.M)
    env_image = dict(re.findall(r"^\s*(ALPHAD_SAI_LIB_DIR)=(\S+)", dockerfile, re.M))
    assert env_image == {"ALPHAD_SAI_LIB_DIR": "/usr/lib/alphad"}
    svc = compose["services"]
    port = _free_port()
    etc = tmp_path / "etc-alphad"
    shutil.copytree(SONIC, etc)
    paths = {"/var/run/redis": tmp_path / "run-redis", "/var/lib/alphad": tmp_path / "state",
             "/etc/alphad": etc}
    for vol, target in (("redis-run", "/var/run/redis"), ("alphad-state", "/var/lib/alphad")):
        assert vol in compose["volumes"]
        assert any(v == f"{vol}:{target}" for s in svc.values() for v in s.get("volumes", []))
    for p in paths.values():
        p.mkdir(exist_ok=True)

    def host(s: str) -> str:
        for c, h in paths.items():
            s = s.replace(c, str(h))
        return s.replace("0.0.0.0:9464", f"127.0.0.1:{port}")

    yml = etc / "alphad-sonic.yaml"
    yml.write_text(host(yml.read_text()))
    lib_dir = os.environ.get("ALPHAD_SAI_LIB_DIR", "")
    procs: list[subprocess.Popen[bytes]] = []

    def start(name: str, cwd: Path) -> subprocess.Popen[bytes]:
        s = svc[name]
        env = {**os.environ, "ALPHAD_SAI_LIB_DIR": lib_dir,
               **{k: host(str(v)) for k, v in (s.get("environment") or {}).items()}}
        cmd = [host(a) for a in s["command"]]
        exe = shutil.which(cmd[0], path=str(Path(sys.executable).parent) + os.pathsep
                           + os.environ.get("PATH", ""))
        assert exe, f"{cmd[0]} not found"
        log = open(tmp_path / f"{name}.log", "wb")
        p = subprocess.Popen([exe, *cmd[1:]], cwd=cwd, env=env, stdout=log,
                             stderr=subprocess.STDOUT)
        procs.append(p)
        return p

    sock = paths["/var/run/redis"] / "redis.sock"
    try:
        (tmp_path / "redis-data").mkdir()
        start("redis", tmp_path / "redis-data")
        wait_for(lambda: redis.Redis(unix_socket_path=str(sock)).ping(), 10, "redis")
        vs = start("vswitch", tmp_path)
        c = redis.Redis(unix_socket_path=str(sock), db=6, decode_responses=True)
        wait_for(lambda: c.hget(READY_KEY, "status") == "ready", 20, "vswitch ready")
        assert (paths["/var/run/redis"] / "sonic-db" / "database_config.json").exists()
        before = dump(sock)
        ad = start("alphad", tmp_path)
        cdb = redis.Redis(unix_socket_path=str(sock), db=4, decode_responses=True)
        # the shipped configuration keeps the switch's own alphas as baseline: alphad
        # manages the queues from its first cycle on, which sets the flex counter polls
        wait_for(lambda: cdb.hget("FLEX_COUNTER_TABLE|QUEUE_WATERMARK", "POLL_INTERVAL")
                 == "100", 20, "alphad's flex counter poll interval")
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
        assert b"alphad_" in body
        assert (paths["/var/lib/alphad"] / "sonic-journal.json").exists()
        assert stop(ad) == 128 + signal.SIGTERM  # restored, then the signal's exit code
        assert not (paths["/var/lib/alphad"] / "sonic-journal.json").exists()
        wait_for(lambda: dump(sock) == before, 5, "the switch back on its original configuration")
        assert stop(vs) == 128 + signal.SIGTERM
    finally:
        for p in reversed(procs):
            stop(p)
