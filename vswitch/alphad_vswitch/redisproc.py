"""A real redis-server with SONiC's database layout, started as a child process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import redis

__all__ = ["RedisServer", "RedisServerError", "database_config", "write_database_config"]

# SONiC's docker-database/database_config.json.j2 (the databases alphad and vswitch use,
# plus the others so that tools reading the file find the usual layout).
_DATABASES = {
    "APPL_DB": (0, ":"),
    "ASIC_DB": (1, ":"),
    "COUNTERS_DB": (2, ":"),
    "LOGLEVEL_DB": (3, ":"),
    "CONFIG_DB": (4, "|"),
    "PFC_WD_DB": (5, ":"),
    "FLEX_COUNTER_DB": (5, ":"),
    "STATE_DB": (6, "|"),
    "SNMP_OVERLAY_DB": (7, "|"),
}


class RedisServerError(RuntimeError):
    pass


def database_config(unix_socket: str | None, port: int | None) -> dict[str, object]:
    inst: dict[str, object] = {"hostname": "127.0.0.1", "port": port or 6379}
    if unix_socket:
        inst["unix_socket_path"] = unix_socket
    return {
        "INSTANCES": {"redis": inst},
        "DATABASES": {n: {"id": i, "separator": s, "instance": "redis"}
                      for n, (i, s) in _DATABASES.items()},
        "VERSION": "1.0",
    }


def write_database_config(path: Path, unix_socket: str | None, port: int | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(database_config(unix_socket, port), indent=4) + "\n")
    os.replace(tmp, path)


class RedisServer:
    """``redis-server`` on a unix socket (and optionally a loopback TCP port).

    ``persist=True`` keeps an RDB file in ``workdir`` that is saved on shutdown and
    loaded on start, so a restart keeps the data (as SONiC's database container does
    across a warm restart).
    """

    def __init__(self, workdir: Path, unix_socket: Path | None = None, port: int = 0,
                 persist: bool = False, binary: str | None = None) -> None:
        # absolute: redis-server changes into --dir before it opens the other paths
        self.workdir = Path(workdir).resolve()
        self.unix_socket = (Path(unix_socket).resolve() if unix_socket
                            else self.workdir / "redis.sock")
        self.port = port
        self.persist = persist
        self.binary = binary or shutil.which("redis-server")
        if not self.binary:
            raise RedisServerError("redis-server not found on PATH (Debian: apt-get install "
                                   "redis-server)")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"unix://{self.unix_socket}"

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.unix_socket), db=db, decode_responses=True)

    def start(self, timeout: float = 10.0) -> RedisServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.unix_socket.parent.mkdir(parents=True, exist_ok=True)
        args = [
            self.binary or "redis-server",
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--unixsocket", str(self.unix_socket),
            "--unixsocketperm", "777",
            "--dir", str(self.workdir),
            "--dbfilename", "dump.rdb",
            "--databases", "16",
            "--appendonly", "no",
            "--save", "3600 1" if self.persist else "",
            "--notify-keyspace-events", "AKE",
            "--logfile", str(self.workdir / "redis.log"),
            "--daemonize", "no",
        ]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RedisServerError(f"redis-server exited with {self.proc.returncode}; see "
                                       f"{self.workdir / 'redis.log'}")
            try:
                if self.client().ping():
                    return self
            except (redis.ConnectionError, redis.BusyLoadingError, FileNotFoundError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RedisServerError(f"redis-server did not answer on {self.unix_socket} "
                                       f"within {timeout:g} s")
            time.sleep(0.02)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (redis saves its RDB first when ``persist``) and wait."""
        p, self.proc = self.proc, None
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
