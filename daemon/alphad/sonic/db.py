"""SONiC's Redis databases: ids, separators and connections.

SONiC describes its databases in ``database_config.json`` (instances with a
unix socket and/or TCP port; databases with an id, a key separator and an
instance). When that file is absent the well-known layout applies: APPL_DB 0,
COUNTERS_DB 2, CONFIG_DB 4, STATE_DB 6 on ``/var/run/redis/redis.sock``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

__all__ = [
    "DEFAULT_LAYOUT",
    "DEFAULT_SOCKET",
    "DbLayout",
    "DbSpec",
    "LayoutError",
    "RedisAddress",
    "connect",
    "layout_from_file",
    "parse_address",
]

DEFAULT_SOCKET = "/var/run/redis/redis.sock"


class LayoutError(ValueError):
    """database_config.json or a Redis address is unusable (message names the key)."""


@dataclass(frozen=True)
class RedisAddress:
    """Where one Redis instance listens: a unix socket or host:port."""

    unix_socket: str | None = None
    host: str = "127.0.0.1"
    port: int = 6379

    def __str__(self) -> str:
        return f"unix://{self.unix_socket}" if self.unix_socket else f"tcp://{self.host}:{self.port}"


@dataclass(frozen=True)
class DbSpec:
    name: str
    id: int
    separator: str
    address: RedisAddress


@dataclass(frozen=True)
class DbLayout:
    """The databases alphad uses, by SONiC name."""

    dbs: dict[str, DbSpec] = field(default_factory=dict)
    source: str = "built-in defaults"

    def __getitem__(self, name: str) -> DbSpec:
        return self.dbs[name]

    def with_address(self, address: RedisAddress) -> DbLayout:
        """The same ids and separators on another instance (an explicit ``redis:`` address)."""
        dbs = {n: DbSpec(s.name, s.id, s.separator, address) for n, s in self.dbs.items()}
        return DbLayout(dbs, self.source)


_DEFAULT_DBS = {"APPL_DB": (0, ":"), "COUNTERS_DB": (2, ":"), "CONFIG_DB": (4, "|"),
                "STATE_DB": (6, "|")}


def _default(address: RedisAddress) -> DbLayout:
    return DbLayout({n: DbSpec(n, i, s, address) for n, (i, s) in _DEFAULT_DBS.items()})


DEFAULT_LAYOUT = _default(RedisAddress(DEFAULT_SOCKET))


def parse_address(text: str) -> RedisAddress:
    """``unix:///path``, a plain ``/path``, ``tcp://host:port`` or ``host:port``."""
    t = text.strip()
    if t.startswith("/"):
        return RedisAddress(unix_socket=t)
    if "://" not in t:
        t = "tcp://" + t
    u = urlparse(t)
    if u.scheme == "unix":
        if not u.path:
            raise LayoutError(f"redis address {text!r}: unix:// needs a socket path")
        return RedisAddress(unix_socket=u.path)
    if u.scheme not in ("tcp", "redis"):
        raise LayoutError(f"redis address {text!r}: scheme must be unix:// or tcp://")
    try:
        port = u.port or 6379
    except ValueError:
        raise LayoutError(f"redis address {text!r}: bad port") from None
    return RedisAddress(host=u.hostname or "127.0.0.1", port=port)


def layout_from_file(path: str | Path) -> DbLayout:
    """Parse SONiC's database_config.json; errors name the offending key."""
    p = Path(path)
    try:
        raw: Any = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise LayoutError(f"{p}: cannot read: {e.strerror or e}") from None
    except ValueError as e:
        raise LayoutError(f"{p}: not valid JSON: {e}") from None
    if not isinstance(raw, dict):
        raise LayoutError(f"{p}: the top level must be an object")
    inst_raw = raw.get("INSTANCES")
    dbs_raw = raw.get("DATABASES")
    if not isinstance(inst_raw, dict) or not isinstance(dbs_raw, dict):
        raise LayoutError(f"{p}: needs the objects 'INSTANCES' and 'DATABASES'")
    instances: dict[str, RedisAddress] = {}
    for name, inst in inst_raw.items():
        if not isinstance(inst, dict):
            raise LayoutError(f"{p}: INSTANCES.{name} must be an object")
        sock = inst.get("unix_socket_path")
        try:
            port = int(inst.get("port", 6379))
        except (TypeError, ValueError):
            raise LayoutError(f"{p}: INSTANCES.{name}.port is not a number") from None
        instances[name] = RedisAddress(unix_socket=str(sock) if sock else None,
                                       host=str(inst.get("hostname", "127.0.0.1")), port=port)
    out: dict[str, DbSpec] = {}
    for name, (default_id, default_sep) in _DEFAULT_DBS.items():
        d = dbs_raw.get(name)
        if d is None:
            raise LayoutError(f"{p}: DATABASES.{name} is missing")
        if not isinstance(d, dict):
            raise LayoutError(f"{p}: DATABASES.{name} must be an object")
        inst_name = d.get("instance", "redis")
        if inst_name not in instances:
            raise LayoutError(f"{p}: DATABASES.{name}.instance {inst_name!r} is not in INSTANCES")
        try:
            db_id = int(d.get("id", default_id))
        except (TypeError, ValueError):
            raise LayoutError(f"{p}: DATABASES.{name}.id is not a number") from None
        sep = str(d.get("separator", default_sep))
        out[name] = DbSpec(name, db_id, sep, instances[inst_name])
    return DbLayout(out, str(p))


def connect(spec: DbSpec, timeout: float = 1.0) -> redis.Redis:
    """A client of one database. Replies are decoded as UTF-8 strings."""
    a = spec.address
    # One immediate retry: a pooled connection that died with a Redis restart fails once
    # and the retry runs on a fresh one; no backoff, the control loop has its own deadline.
    common: dict[str, Any] = dict(db=spec.id, socket_timeout=timeout,
                                  socket_connect_timeout=timeout, decode_responses=True,
                                  health_check_interval=0, retry=Retry(NoBackoff(), 1))
    if a.unix_socket:
        return redis.Redis(unix_socket_path=a.unix_socket, **common)
    return redis.Redis(host=a.host, port=a.port, **common)
