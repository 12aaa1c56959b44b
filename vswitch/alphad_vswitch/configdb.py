"""SONiC config_db.json <-> CONFIG_DB, and a deterministic dump of Redis tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import redis

__all__ = ["ConfigDbError", "dump", "dump_tables", "load_config_db", "write_config_db"]

INIT_FLAG = "CONFIG_DB_INITIALIZED"


class ConfigDbError(ValueError):
    """config_db.json is malformed (the message names the file and the table/key)."""


def load_config_db(path: str | Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Read and check the shape of a config_db.json: table -> key -> field -> value."""
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigDbError(f"{p}: cannot read: {e.strerror or e}") from None
    except ValueError as e:
        raise ConfigDbError(f"{p}: not valid JSON: {e}") from None
    if not isinstance(raw, dict):
        raise ConfigDbError(f"{p}: the top level must be an object of tables")
    for table, entries in raw.items():
        if not isinstance(entries, dict):
            raise ConfigDbError(f"{p}: table {table} must be an object of keys")
        for key, fields in entries.items():
            if not isinstance(fields, dict):
                raise ConfigDbError(f"{p}: {table}|{key} must be an object of fields")
            for f, v in fields.items():
                if isinstance(v, dict) or (isinstance(v, list)
                                           and any(isinstance(x, dict | list) for x in v)):
                    raise ConfigDbError(f"{p}: {table}|{key} field {f!r}: nested values are not "
                                        "supported")
    return raw


def _fields(fields: dict[str, Any]) -> dict[str, str]:
    """ConfigDBConnector's typing: lists are stored as ``<field>@`` = "a,b"; an empty
    entry as ``NULL`` = ``NULL``."""
    out: dict[str, str] = {}
    for f, v in fields.items():
        if isinstance(v, list):
            out[f"{f}@"] = ",".join(str(x) for x in v)
        elif isinstance(v, bool):
            out[f] = "true" if v else "false"
        else:
            out[f] = str(v)
    return out or {"NULL": "NULL"}


def write_config_db(r: redis.Redis, cfg: dict[str, dict[str, dict[str, Any]]],
                    sep: str = "|", flush: bool = True) -> int:
    """Load ``cfg`` into CONFIG_DB (``sonic-cfggen -j ... --write-to-db``). Returns the
    number of keys written."""
    pipe = r.pipeline(transaction=True)
    if flush:
        pipe.flushdb()
    n = 0
    for table, entries in cfg.items():
        for key, fields in entries.items():
            pipe.hset(f"{table}{sep}{key}", mapping=_fields(fields))
            n += 1
    pipe.set(INIT_FLAG, "1")
    pipe.execute()
    return n


def dump_tables(r: redis.Redis, patterns: list[str]) -> dict[str, dict[str, str]]:
    """Every hash matching one of ``patterns``: key -> fields."""
    keys = sorted({k for pat in patterns for k in r.scan_iter(match=pat, count=1000)})
    pipe = r.pipeline(transaction=False)
    for k in keys:
        pipe.hgetall(k)
    return {k: v for k, v in zip(keys, pipe.execute(), strict=True)}


def dump(r: redis.Redis, patterns: list[str]) -> str:
    """Deterministic serialisation (sorted keys and fields) of the matching hashes."""
    return json.dumps(dump_tables(r, patterns), sort_keys=True, indent=1)
