"""SONiC-native gNMI paths over the switch's Redis databases, as sonic-gnmi serves them.

Reads: the target (prefix ``target``) names the database; the path is
``TABLE``, ``TABLE/KEY``, ``TABLE/KEY1/KEY2`` (key ``KEY1<sep>KEY2``),
``TABLE/KEY/FIELD`` or ``TABLE/KEY1/KEY2/FIELD``. An element that is not a key
is tried as a field (``COUNTERS_QUEUE_NAME_MAP/Ethernet0:3``). Virtual paths:
``COUNTERS/Ethernet*/Queues`` (or one port) gives every queue's COUNTERS hash
keyed ``Ethernet0:3`` plus ``Ethernet0:3:periodic`` with the shared watermark of
PERIODIC_WATERMARKS (sonic-gnmi's v2rEthPortQueStats);
``{USER,PERSISTENT,PERIODIC}_WATERMARKS/Ethernet*/Queues`` gives those tables
keyed the same way (an addition of this server).

Writes (origin ``sonic-db``): ``CONFIG_DB/localhost/TABLE[/KEY[/FIELD]]`` with a
JSON_IETF value (an object of fields for a key, a scalar for a field). Every
operation of a SetRequest is checked first and all are applied in one Redis
transaction, or none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

from alphad.gnmi.proto import Elem
from alphad.sonic import db as sdb
from alphad.sonic.keys import SonicSyntaxError, parse_dynamic_th, parse_ports, parse_queue_range
from alphad_vswitch_gnmi.errors import GnmiError, invalid, not_found, unimplemented

__all__ = ["DATABASES", "NativeDb", "WriteOp"]

DATABASES = ("APPL_DB", "COUNTERS_DB", "CONFIG_DB", "STATE_DB")
NAMESPACE = "localhost"  # sonic-gnmi: the instance element of sonic-db paths
QUEUE_NAME_MAP = "COUNTERS_QUEUE_NAME_MAP"
SHARED_WM = "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"
WM_TABLES = ("USER_WATERMARKS", "PERSISTENT_WATERMARKS", "PERIODIC_WATERMARKS")

Value = dict[str, Any] | str | None  # JSON object, a field's string, or absent


@dataclass
class WriteOp:
    op: str  # delete | replace | update
    elems: list[str]  # after DB/localhost: TABLE[/KEY[/FIELD]]
    value: Any = None  # decoded JSON for replace/update
    shown: str = ""  # the path as the client wrote it (for messages)


def _names(elems: list[Elem], where: str) -> list[str]:
    out = []
    for name, keys in elems:
        if keys:
            raise invalid(f"{where}: SONiC-native paths have no keys ([...]) in {name!r}")
        if not name:
            raise invalid(f"{where}: empty path element")
        out.append(name)
    return out


def _field_str(v: Any, where: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float | str):
        return str(v)
    raise invalid(f"{where}: a field value must be a string or a number, got {json.dumps(v)}")


def _fields(v: Any, where: str) -> dict[str, str]:
    """CONFIG_DB fields of a JSON object; lists become ``field@`` = comma list."""
    if not isinstance(v, dict):
        raise invalid(f"{where}: expected a JSON object of fields, got {json.dumps(v)}")
    out: dict[str, str] = {}
    for f, x in v.items():
        if isinstance(x, list):
            out[f if f.endswith("@") else f"{f}@"] = ",".join(_field_str(e, where) for e in x)
        else:
            out[f] = _field_str(x, where)
    return out


class NativeDb:
    """Reads and writes of SONiC-native paths; one client per database."""

    def __init__(self, layout: sdb.DbLayout, timeout: float = 2.0) -> None:
        self.layout = layout
        self.r = {n: sdb.connect(layout[n], timeout) for n in DATABASES}
        self.sep = {n: layout[n].separator for n in DATABASES}

    def close(self) -> None:
        for c in self.r.values():
            c.close()

    def db(self, target: str, where: str) -> redis.Redis:
        if target not in self.r:
            raise not_found(f"{where}: unknown target {target!r} (databases: "
                            f"{', '.join(DATABASES)})")
        return self.r[target]

    # -- reads ---------------------------------------------------------------------
    def reader(self, target: str, elems: list[Elem], where: str) -> Callable[[], Value]:
        """A function returning the current value at the path (None: absent). Path
        syntax and the target are checked now; existence at every call."""
        r = self.db(target, where)
        sep = self.sep[target]
        names = _names(elems, where)
        if not names:
            raise unimplemented(f"{where}: reading a whole database is not supported; name a "
                                "table")
        if len(names) > 5:
            raise invalid(f"{where}: too many elements for TABLE/KEY/FIELD")
        if target == "COUNTERS_DB" and len(names) == 3 and names[2] == "Queues" and (
                names[0] == "COUNTERS" or names[0] in WM_TABLES):
            table, port = names[0], names[1]
            if not (port.startswith("Ethernet")):
                raise not_found(f"{where}: {port!r} is not an Ethernet port or Ethernet*")
            return lambda: self._queues(r, sep, table, port)
        table = names[0]
        if len(names) == 1:
            return lambda: self._table(r, sep, table)
        rest = names[1:]
        return lambda: self._entry(r, sep, table, rest)

    def _table(self, r: redis.Redis, sep: str, table: str) -> Value:
        keyless = r.hgetall(table)
        if keyless:
            return dict(keyless)
        keys = sorted(r.scan_iter(match=f"{table}{sep}*", count=1000))
        if not keys:
            return None
        pipe = r.pipeline(transaction=False)
        for k in keys:
            pipe.hgetall(k)
        n = len(table) + len(sep)
        out = {k[n:]: v for k, v in zip(keys, pipe.execute(), strict=True) if v}
        return out or None

    def _entry(self, r: redis.Redis, sep: str, table: str, rest: list[str]) -> Value:
        # longest key first, then the last element as a field
        for nk in range(min(len(rest), 3), 0, -1):
            key = sep.join([table, *rest[:nk]])
            extra = rest[nk:]
            if len(extra) > 1:
                continue
            if extra:
                v = r.hget(key, extra[0])
                if v is not None:
                    return str(v)
            else:
                f = r.hgetall(key)
                if f:
                    return dict(f)
        if len(rest) == 1:  # keyless hash (COUNTERS_DB maps): TABLE/FIELD
            v = r.hget(table, rest[0])
            if v is not None:
                return str(v)
        return None

    def _queues(self, r: redis.Redis, sep: str, table: str, port: str) -> Value:
        qmap = self.r["COUNTERS_DB"].hgetall(QUEUE_NAME_MAP)
        names = sorted(q for q in qmap if port == "Ethernet*" or q.rpartition(":")[0] == port)
        if not names:
            return None
        pipe = r.pipeline(transaction=False)
        for q in names:
            pipe.hgetall(f"{table}{sep}{qmap[q]}")
            if table == "COUNTERS":
                pipe.hget(f"PERIODIC_WATERMARKS{sep}{qmap[q]}", SHARED_WM)
        res = pipe.execute()
        out: dict[str, Any] = {}
        step = 2 if table == "COUNTERS" else 1
        for i, q in enumerate(names):
            f = res[i * step]
            if f:
                out[q] = dict(f)
            if step == 2 and res[i * step + 1] is not None:
                out[f"{q}:periodic"] = {SHARED_WM: str(res[i * step + 1])}
        return out or None

    def read(self, target: str, elems: list[Elem], where: str) -> Value:
        return self.reader(target, elems, where)()

    # -- sonic-db paths --------------------------------------------------------------
    @staticmethod
    def split_sonic_db(elems: list[Elem], where: str) -> tuple[str, list[Elem]]:
        """``DB/localhost/...`` -> (DB, rest)."""
        names = _names(elems, where)
        if len(names) < 2:
            raise invalid(f"{where}: sonic-db paths are <DB>/localhost/<TABLE>/...")
        if names[1] != NAMESPACE:
            raise not_found(f"{where}: unknown namespace {names[1]!r} (this switch has "
                            f"{NAMESPACE!r})")
        return names[0], elems[2:]

    # -- writes --------------------------------------------------------------------
    def write(self, ops: list[WriteOp]) -> None:
        """Check every operation, then apply all in one transaction."""
        r = self.r["CONFIG_DB"]
        sep = self.sep["CONFIG_DB"]
        staged: dict[str, dict[str, str] | None] = {}  # key -> full new content (None: gone)
        # read every entry the request names, and the pools, in one round trip
        named = sorted({sep.join(op.elems[:2]) for op in ops if len(op.elems) >= 2})
        pools = sorted(r.scan_iter(match=f"BUFFER_POOL{sep}*", count=1000))
        pipe = r.pipeline(transaction=False)
        for k in (*named, *pools):
            pipe.hgetall(k)
        cache: dict[str, dict[str, str] | None] = {
            k: (dict(f) if f else None)
            for k, f in zip((*named, *pools), pipe.execute(), strict=True)}

        def current(key: str) -> dict[str, str] | None:
            if key in staged:
                return staged[key]
            if key not in cache:
                f = r.hgetall(key)
                cache[key] = dict(f) if f else None
            return cache[key]

        for op in ops:
            where = op.shown
            if not op.elems:
                raise invalid(f"{where}: name a table")
            if len(op.elems) > 3:
                raise invalid(f"{where}: too many elements for TABLE/KEY/FIELD (write keys with "
                              "several parts as one element, e.g. Ethernet0|3)")
            table = op.elems[0]
            if len(op.elems) == 1:
                keys = [k for k in r.scan_iter(match=f"{table}{sep}*", count=1000)]
                keys += [k for k in staged if k.startswith(f"{table}{sep}") and k not in keys]
                if op.op == "delete" or op.op == "replace":
                    for k in keys:
                        staged[k] = None
                if op.op in ("replace", "update"):
                    if not isinstance(op.value, dict):
                        raise invalid(f"{where}: expected a JSON object of keys")
                    for k, v in op.value.items():
                        full = f"{table}{sep}{k}"
                        new = _fields(v, f"{where} key {k!r}")
                        old = current(full) if op.op == "update" else None
                        staged[full] = {**(old or {}), **new}
                continue
            full = f"{table}{sep}{op.elems[1]}"
            if len(op.elems) == 2:
                if op.op == "delete":
                    staged[full] = None
                else:
                    new = _fields(op.value, where)
                    if not new:
                        raise invalid(f"{where}: an entry needs at least one field")
                    old = current(full) if op.op == "update" else None
                    staged[full] = {**(old or {}), **new}
                continue
            field = op.elems[2]
            old = current(full)
            if op.op == "delete":
                if old is not None and field in old:
                    rest = {f: v for f, v in old.items() if f != field}
                    staged[full] = rest or None
                continue
            if old is None:
                raise not_found(f"{where}: entry {full!r} does not exist; create it with its "
                                "fields first")
            staged[full] = {**old, field: _field_str(op.value, where)}
        self._validate(staged, sep, current)
        pipe = r.pipeline(transaction=True)
        for key, fields in staged.items():
            pipe.delete(key)
            if fields:
                pipe.hset(key, mapping=fields)
        pipe.execute()

    def _validate(self, staged: dict[str, dict[str, str] | None], sep: str,
                  current: Callable[[str], dict[str, str] | None]) -> None:
        """The checks of SONiC's YANG models that matter for buffers."""
        for key, f in staged.items():
            if f is None:
                continue
            table, _, name = key.partition(sep)
            if table == "BUFFER_PROFILE":
                if "dynamic_th" in f:
                    try:
                        parse_dynamic_th(f["dynamic_th"])
                    except SonicSyntaxError as e:
                        raise invalid(f"CONFIG_DB {key}: {e} (sonic-buffer-profile.yang)") from None
                if "dynamic_th" in f and "static_th" in f:
                    raise invalid(f"CONFIG_DB {key}: dynamic_th and static_th together")
                pool = f.get("pool", "").strip("[]").rpartition("|")[2]
                if pool and current(f"BUFFER_POOL{sep}{pool}") is None:
                    raise invalid(f"CONFIG_DB {key}: pool {pool!r} does not exist")
            elif table == "BUFFER_QUEUE":
                ports, _, rng = name.rpartition(sep)
                try:
                    parse_ports(ports)
                    parse_queue_range(rng)
                except SonicSyntaxError as e:
                    raise invalid(f"CONFIG_DB {key}: {e} (sonic-buffer-queue.yang)") from None
                prof = f.get("profile", "").strip("[]").rpartition("|")[2]
                if not prof or current(f"BUFFER_PROFILE{sep}{prof}") is None:
                    raise invalid(f"CONFIG_DB {key}: profile {prof!r} does not exist")
        for key, f in staged.items():  # a profile still referenced cannot go
            table, _, name = key.partition(sep)
            if table == "BUFFER_PROFILE" and f is None:
                for qk in self.r["CONFIG_DB"].scan_iter(match=f"BUFFER_QUEUE{sep}*", count=1000):
                    qf = current(qk)
                    if qf and qf.get("profile", "").strip("[]").rpartition("|")[2] == name:
                        raise invalid(f"CONFIG_DB {key}: still referenced by {qk}")


def classify(e: Exception) -> GnmiError:
    """A Redis failure as a gNMI error."""
    if isinstance(e, GnmiError):
        return e
    import grpc

    return GnmiError(grpc.StatusCode.UNAVAILABLE, f"switch database: {e}")
