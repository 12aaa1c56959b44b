"""Topology discovery from CONFIG_DB and COUNTERS_DB.

Reads ``PORT`` (speed in Mb/s), ``BUFFER_POOL``, ``BUFFER_PROFILE``,
``BUFFER_QUEUE``, ``PORT_QOS_MAP`` (pfc_enable), ``QUEUE`` and ``SCHEDULER``
(which queues the port serves in strict priority) from CONFIG_DB and
``COUNTERS_QUEUE_NAME_MAP`` / ``COUNTERS_BUFFER_POOL_NAME_MAP`` from
COUNTERS_DB. Malformed entries are skipped, each with one log line naming
the key and the reason; discovery itself fails only when nothing is left to
manage.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import redis

from alphad.model import Topology
from alphad.sonic.keys import (
    SonicSyntaxError,
    natural_key,
    parse_dynamic_th,
    parse_ports,
    parse_profile_ref,
    parse_queue_range,
)

__all__ = [
    "BufferRuntime",
    "Discovery",
    "DiscoveryError",
    "Pool",
    "Profile",
    "QueueEntry",
    "QueueInfo",
    "discover",
    "discover_tables",
    "read_runtime",
    "read_table",
    "strict_queues",
]

log = logging.getLogger("alphad.sonic")

QUEUE_NAME_MAP = "COUNTERS_QUEUE_NAME_MAP"
POOL_NAME_MAP = "COUNTERS_BUFFER_POOL_NAME_MAP"


class DiscoveryError(ValueError):
    """Nothing on this switch can be managed (the message says why)."""


@dataclass(frozen=True)
class Pool:
    name: str
    type: str  # ingress | egress | both
    mode: str  # static | dynamic
    size: int  # bytes (0: unknown)
    size_from: str = "CONFIG_DB"  # where the size was read


@dataclass(frozen=True)
class Profile:
    name: str
    pool: str
    fields: dict[str, str]
    dynamic_th: int | None  # None for a static-threshold profile
    lossless: bool  # PFC profile (xon/xoff, or a lossless pool): never touched


@dataclass(frozen=True)
class QueueEntry:
    """One ``BUFFER_QUEUE|<ports>|<range>`` entry as found in CONFIG_DB."""

    key: str  # "<ports>|<range>" (without the table name)
    ports: tuple[str, ...]
    queues: tuple[int, ...]
    profile: str
    bracketed: bool  # profile written as [BUFFER_PROFILE|name]
    fields: dict[str, str]


@dataclass(frozen=True)
class QueueInfo:
    port: str
    queue: int
    oid: str
    entry: str  # key of its BUFFER_QUEUE entry
    profile: str
    dynamic_th: int
    managed: bool


@dataclass
class Discovery:
    switch: str
    ports: dict[str, int]  # valid ports -> speed Mb/s
    pools: dict[str, Pool]
    profiles: dict[str, Profile]  # valid profiles
    entries: dict[str, QueueEntry]  # valid BUFFER_QUEUE entries
    pool: Pool  # the shared pool of the managed queues (B)
    queues: list[QueueInfo]  # ordered by port (natural order), then queue index
    pool_oid: str | None
    skipped: list[str] = field(default_factory=list)
    strict: frozenset[tuple[str, int]] = frozenset()  # (port, queue) on a STRICT scheduler

    def topology(self) -> Topology:
        ports = tuple(sorted({q.port for q in self.queues}, key=natural_key))
        pos = {p: i for i, p in enumerate(ports)}
        return Topology(
            ports=ports,
            port_speed_bps=np.array([self.ports[p] * 1e6 for p in ports], dtype=np.float64),
            queue_port=np.array([pos[q.port] for q in self.queues], dtype=np.int32),
            queue_index=np.array([q.queue for q in self.queues], dtype=np.int32),
            buffer_bytes=float(self.pool.size),
            switch=self.switch,
            managed=np.array([q.managed for q in self.queues], dtype=bool),
        )


def read_table(r: redis.Redis, table: str, sep: str) -> dict[str, dict[str, str]]:
    """Every ``<table><sep>*`` hash of one database: key suffix -> fields."""
    keys = sorted(r.scan_iter(match=f"{table}{sep}*", count=1000))
    if not keys:
        return {}
    pipe = r.pipeline(transaction=False)
    for k in keys:
        pipe.hgetall(k)
    plen = len(table) + len(sep)
    return {k[plen:]: v for k, v in zip(keys, pipe.execute(), strict=True) if v}


def _lossless_profile(name: str, f: dict[str, str], pool: Pool) -> bool:
    return ("xoff" in f or "xon" in f or "lossless" in name or "lossless" in pool.name
            or pool.type == "ingress")


@dataclass(frozen=True)
class BufferRuntime:
    """What buffermgrd published besides CONFIG_DB. In the dynamic buffer model
    (``DEVICE_METADATA|localhost buffer_model: dynamic``) a pool without ``size`` in
    CONFIG_DB gets the size buffermgrd computes, in APPL_DB ``BUFFER_POOL_TABLE:<pool>``
    and STATE_DB ``BUFFER_POOL_TABLE|<pool>``; buffermgrd also generates profiles (the
    lossless ``pg_lossless_<speed>_<cable>_profile``, the zero profiles of admin-down
    ports) that exist in APPL_DB/STATE_DB ``BUFFER_PROFILE_TABLE`` only."""

    model: str = "traditional"
    pool_sizes: dict[str, tuple[int, str]] = field(default_factory=dict)  # -> (bytes, where)
    generated: frozenset[str] = frozenset()  # profiles in APPL_DB/STATE_DB only


class _Discoverer:
    def __init__(self, config_tables: dict[str, dict[str, dict[str, str]]],
                 queue_map: dict[str, str], pool_map: dict[str, str], pool_name: str | None,
                 runtime: BufferRuntime | None = None):
        self.t = config_tables
        self.queue_map = queue_map
        self.pool_map = pool_map
        self.pool_name = pool_name
        self.rt = runtime or BufferRuntime()
        self.skipped: list[str] = []
        self.unsized: dict[str, str] = {}  # pool -> why it has no size

    def skip(self, msg: str) -> None:
        self.skipped.append(msg)
        log.warning("skipped %s", msg)

    def ports(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, f in self.t["PORT"].items():
            speed = f.get("speed")
            if speed is None:
                self.skip(f"CONFIG_DB PORT|{name}: no 'speed' field; port not managed")
                continue
            try:
                mbps = int(speed)
                if mbps <= 0:
                    raise ValueError
            except ValueError:
                self.skip(f"CONFIG_DB PORT|{name}: speed {speed!r} is not a positive number of "
                          "Mb/s; port not managed")
                continue
            out[name] = mbps
        return out

    def pools(self) -> dict[str, Pool]:
        out: dict[str, Pool] = {}
        for name, f in self.t["BUFFER_POOL"].items():
            mode = f.get("mode", "dynamic")
            typ = f.get("type", "")
            size = f.get("size")
            if mode not in ("static", "dynamic"):
                self.skip(f"CONFIG_DB BUFFER_POOL|{name}: mode {mode!r} is not static or dynamic")
                continue
            if size is None:  # dynamic buffer model: buffermgrd computes the size
                published = self.rt.pool_sizes.get(name)
                if published is not None:
                    out[name] = Pool(name, typ, mode, *published)
                    continue
                why = (f"BUFFER_POOL|{name} has no size in CONFIG_DB and buffermgrd has not "
                       "published one in STATE_DB/APPL_DB BUFFER_POOL_TABLE "
                       f"(buffer_model {self.rt.model}; buffermgrd not running, or its pools "
                       "not ready yet)")
                self.unsized[name] = why
                out[name] = Pool(name, typ, mode, 0)  # known, but B is unknown
                continue
            try:
                n = int(size)
            except ValueError:
                n = -1
            if n <= 0:
                self.skip(f"CONFIG_DB BUFFER_POOL|{name}: size {size!r} is not a positive "
                          "number of bytes")
                continue
            out[name] = Pool(name, typ, mode, n)
        return out

    def profiles(self, pools: dict[str, Pool]) -> dict[str, Profile]:
        out: dict[str, Profile] = {}
        for name, f in self.t["BUFFER_PROFILE"].items():
            where = f"CONFIG_DB BUFFER_PROFILE|{name}"
            pool_ref = f.get("pool")
            if pool_ref is None:
                self.skip(f"{where}: no 'pool' field")
                continue
            pname = pool_ref
            if pname.startswith("[") and pname.endswith("]"):  # [BUFFER_POOL|name]
                pname = pname[1:-1].split("|", 1)[-1]
            pool = pools.get(pname)
            if pool is None:
                self.skip(f"{where}: unknown pool {pool_ref!r}")
                continue
            lossless = _lossless_profile(name, f, pool)
            if "static_th" in f:
                if not lossless:
                    self.skip(f"{where}: static threshold (static_th); only dynamic_th profiles "
                              "can be managed")
                out[name] = Profile(name, pname, dict(f), None, lossless)
                continue
            if "dynamic_th" not in f:
                self.skip(f"{where}: no 'dynamic_th' field")
                continue
            try:
                th = parse_dynamic_th(f["dynamic_th"])
            except SonicSyntaxError as e:
                self.skip(f"{where}: {e}")
                continue
            if pool.mode != "dynamic":
                self.skip(f"{where}: dynamic_th on pool {pname!r} whose mode is {pool.mode}")
                continue
            out[name] = Profile(name, pname, dict(f), th, lossless)
        return out

    def entries(self, ports: dict[str, int], profiles: dict[str, Profile]) -> dict[str, QueueEntry]:
        out: dict[str, QueueEntry] = {}
        for key, f in self.t["BUFFER_QUEUE"].items():
            where = f"CONFIG_DB BUFFER_QUEUE|{key}"
            plist, sep, rng = key.rpartition("|")
            try:
                if not sep:
                    raise SonicSyntaxError("key is not <ports>|<queues>")
                pl = parse_ports(plist)
                ql = parse_queue_range(rng)
            except SonicSyntaxError as e:
                self.skip(f"{where}: {e}")
                continue
            if "profile" not in f:
                self.skip(f"{where}: no 'profile' field")
                continue
            try:
                prof, bracketed = parse_profile_ref(f["profile"])
            except SonicSyntaxError as e:
                self.skip(f"{where}: {e}")
                continue
            if prof not in profiles:
                if prof in self.rt.generated and prof not in self.t["BUFFER_PROFILE"]:
                    self.skip(f"{where}: profile {prof!r} is generated by buffermgrd (in "
                              "APPL_DB/STATE_DB BUFFER_PROFILE_TABLE only); alphad does not "
                              "clone generated profiles, which buffermgrd recalculates")
                elif prof not in self.t["BUFFER_PROFILE"]:
                    self.skip(f"{where}: unknown profile {prof!r}")
                continue  # profile known but invalid: already reported
            out[key] = QueueEntry(key, tuple(pl), tuple(ql), prof, bracketed, dict(f))
        return out

    def choose_pool(self, pools: dict[str, Pool], profiles: dict[str, Profile],
                    entries: dict[str, QueueEntry]) -> Pool:
        if self.pool_name is not None:
            p = pools.get(self.pool_name)
            if p is None:
                raise DiscoveryError(f"pool {self.pool_name!r} (backend.pool) is not a valid "
                                     "BUFFER_POOL in CONFIG_DB")
            if p.mode != "dynamic":
                raise DiscoveryError(f"pool {p.name!r} is in {p.mode} mode; alpha needs dynamic")
            return p
        use: dict[str, int] = {}
        for e in entries.values():
            pr = profiles[e.profile]
            if pr.dynamic_th is not None and not pr.lossless:
                use[pr.pool] = use.get(pr.pool, 0) + len(e.ports) * len(e.queues)
        cands = [p for p in pools.values() if p.name in use and p.type in ("egress", "both")]
        if not cands:
            why = "; ".join(self.skipped[:3]) + (" ..." if len(self.skipped) > 3 else "")
            raise DiscoveryError("no egress pool in dynamic mode has a BUFFER_QUEUE entry with a "
                                 "lossy dynamic_th profile: nothing to manage"
                                 + (f" ({len(self.skipped)} entries skipped: {why})"
                                    if self.skipped else ""))
        return max(cands, key=lambda p: (use[p.name], p.name))

    def pfc(self) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        for port, f in self.t["PORT_QOS_MAP"].items():
            v = f.get("pfc_enable", "")
            try:
                out[port] = {int(x) for x in v.split(",") if x.strip()}
            except ValueError:
                self.skip(f"CONFIG_DB PORT_QOS_MAP|{port}: pfc_enable {v!r} is not a list of "
                          "priorities; treating every queue of the port as lossless")
                out[port] = set(range(16))
        return out

    def run(self, switch: str) -> Discovery:
        ports = self.ports()
        pools = self.pools()
        profiles = self.profiles(pools)
        entries = self.entries(ports, profiles)
        pool = self.choose_pool(pools, profiles, entries)
        if pool.name in self.unsized:
            raise DiscoveryError(f"pool {pool.name!r}: {self.unsized[pool.name]}")
        pfc = self.pfc()
        down = {p for p, f in self.t["PORT"].items() if f.get("admin_status") == "down"} \
            if self.rt.model == "dynamic" else set()
        owner: dict[tuple[str, int], str] = {}
        twice: set[tuple[str, int]] = set()
        for e in entries.values():
            for p in e.ports:
                for q in e.queues:
                    if (p, q) in owner:
                        twice.add((p, q))
                    owner[(p, q)] = e.key
        queues: list[QueueInfo] = []
        bad_port_seen: set[str] = set()
        for (p, q) in sorted(owner, key=lambda pq: (natural_key(pq[0]), pq[1])):
            e = entries[owner[(p, q)]]
            prof = profiles[e.profile]
            if prof.pool != pool.name or prof.dynamic_th is None:
                continue  # another pool (lossless, ingress...) or static: not ours
            if p not in ports:
                if p not in bad_port_seen and p not in self.t["PORT"]:
                    self.skip(f"CONFIG_DB BUFFER_QUEUE|{e.key}: port {p!r} is not in PORT")
                bad_port_seen.add(p)
                continue
            if (p, q) in twice:
                self.skip(f"queue {p}:{q} is configured by more than one BUFFER_QUEUE entry")
                continue
            if p in down:
                if p not in bad_port_seen:
                    self.skip(f"port {p} is admin down: in the dynamic buffer model buffermgrd "
                              "puts its queues on zero profiles; not managed")
                bad_port_seen.add(p)
                continue
            oid = self.queue_map.get(f"{p}:{q}")
            if oid is None:
                self.skip(f"queue {p}:{q} (BUFFER_QUEUE|{e.key}) is missing from COUNTERS_DB "
                          f"{QUEUE_NAME_MAP}; no counters, not managed")
                continue
            lossless = prof.lossless or q in pfc.get(p, set())
            queues.append(QueueInfo(p, q, oid, e.key, e.profile, prof.dynamic_th, not lossless))
        if not any(q.managed for q in queues):
            raise DiscoveryError(f"no queue of pool {pool.name!r} can be managed "
                                 f"({len(self.skipped)} entries skipped)")
        return Discovery(switch, ports, pools, profiles, entries, pool, queues,
                         self.pool_map.get(pool.name), self.skipped)


CONFIG_TABLES = ("PORT", "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_QUEUE", "PORT_QOS_MAP")


def strict_queues(queue_table: dict[str, dict[str, str]],
                  scheduler_table: dict[str, dict[str, str]]) -> frozenset[tuple[str, int]]:
    """The (port, queue)s whose ``QUEUE|<port>|<q>`` names a ``SCHEDULER`` of type STRICT
    (the scheduler as ``name`` or ``[SCHEDULER|name]``). A queue without an entry, an
    unknown scheduler or a malformed key is not strict, with one log line for the last
    two."""
    strict = {n for n, f in scheduler_table.items() if f.get("type", "").upper() == "STRICT"}
    out: set[tuple[str, int]] = set()
    for key, f in queue_table.items():
        ref = f.get("scheduler", "").strip()
        if not ref:
            continue
        name = ref[1:-1].split("|", 1)[-1] if ref.startswith("[") and ref.endswith("]") else ref
        if name not in scheduler_table:
            log.warning("CONFIG_DB QUEUE|%s: unknown scheduler %r; not read as strict", key, ref)
            continue
        if name not in strict:
            continue
        plist, sep, rng = key.rpartition("|")
        try:
            if not sep:
                raise SonicSyntaxError("key is not <port>|<queues>")
            out |= {(p, q) for p in parse_ports(plist) for q in parse_queue_range(rng)}
        except SonicSyntaxError as e:
            log.warning("CONFIG_DB QUEUE|%s: %s; not read as strict", key, e)
    return frozenset(out)


def discover_tables(config_tables: dict[str, dict[str, dict[str, str]]],
                    queue_map: dict[str, str], pool_map: dict[str, str], pool: str | None,
                    hostname: str, runtime: BufferRuntime | None = None) -> Discovery:
    """What alphad manages, from the CONFIG_DB tables (:data:`CONFIG_TABLES`) and the
    COUNTERS_DB name maps already read (through gNMI, or by a switch of its own)."""
    return _Discoverer(config_tables, queue_map, pool_map, pool, runtime).run(hostname)


def read_runtime(meta: dict[str, str], appl_db: redis.Redis | None,
                 state_db: redis.Redis | None, appl_sep: str = ":",
                 state_sep: str = "|") -> BufferRuntime:
    """buffermgrd's published pool sizes and generated profiles (STATE_DB first)."""
    model = meta.get("buffer_model", "traditional")
    sizes: dict[str, tuple[int, str]] = {}
    names: set[str] = set()
    for r, sep, db in ((appl_db, appl_sep, "APPL_DB"), (state_db, state_sep, "STATE_DB")):
        if r is None:
            continue
        for name, f in read_table(r, "BUFFER_POOL_TABLE", sep).items():
            try:
                n = int(f.get("size", ""))
            except ValueError:
                continue
            if n > 0:
                sizes[name] = (n, f"{db} BUFFER_POOL_TABLE{sep}{name}")  # STATE_DB last: wins
        names |= {k.split(sep, 1)[1] for k in r.scan_iter(match=f"BUFFER_PROFILE_TABLE{sep}*",
                                                            count=1000)}
    return BufferRuntime(model, sizes, frozenset(names))


def discover(config_db: redis.Redis, counters_db: redis.Redis, config_sep: str = "|",
             pool: str | None = None,
             tables: dict[str, dict[str, dict[str, str]]] | None = None,
             appl_db: redis.Redis | None = None, state_db: redis.Redis | None = None,
             appl_sep: str = ":", state_sep: str = "|") -> Discovery:
    """Read the switch's buffer configuration and build what alphad manages.
    ``tables``: the CONFIG_DB tables already read (e.g. with alphad's changes undone);
    ``appl_db``/``state_db``: where buffermgrd publishes pool sizes (dynamic model)."""
    if tables is None:
        tables = {t: read_table(config_db, t, config_sep) for t in CONFIG_TABLES}
    meta = config_db.hgetall(f"DEVICE_METADATA{config_sep}localhost")
    qmap = counters_db.hgetall(QUEUE_NAME_MAP)
    pmap = counters_db.hgetall(POOL_NAME_MAP)
    if not tables["PORT"]:
        raise DiscoveryError("CONFIG_DB has no PORT table")
    if not qmap:
        raise DiscoveryError(f"COUNTERS_DB has no {QUEUE_NAME_MAP} (is the QUEUE flex counter "
                             "group enabled?)")
    rt = read_runtime(meta, appl_db, state_db, appl_sep, state_sep)
    d = discover_tables(tables, qmap, pmap, pool, meta.get("hostname", "switch"), rt)
    d.strict = strict_queues(read_table(config_db, "QUEUE", config_sep),
                             read_table(config_db, "SCHEDULER", config_sep))
    return d
