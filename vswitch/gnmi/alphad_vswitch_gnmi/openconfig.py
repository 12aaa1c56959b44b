"""OpenConfig qos paths mapped onto the SONiC databases of the virtual switch.

State (openconfig-qos-interfaces, grouping qos-interface-queue-state):
``/qos/interfaces/interface[interface-id=E]/output/queues/queue[name=E:q]/state/``
``transmit-pkts``, ``transmit-octets``, ``dropped-pkts``, ``dropped-octets`` (the
cumulative COUNTERS of the queue) and ``max-queue-len`` (the queue's shared-buffer
watermark of the last flex counter poll, read-and-clear, bytes).

Config (openconfig-qos-mem-mgmt): each interface has a buffer allocation profile
of its own name whose queue entries carry ``dynamic-limit-scaling-factor`` (the
queue's threshold is free buffer x 2^factor, i.e. SONiC's ``dynamic_th``):
``/qos/buffer-allocation-profiles/buffer-allocation-profile[name=E]/queues/
queue[name=E:q]/config/dynamic-limit-scaling-factor``. A write gives that one
queue its own SONiC profile (clone of its profile, BUFFER_QUEUE split, both
journaled); deleting the leaf (or the queue entry) reverts the queue, and when no
queue is changed any more CONFIG_DB gets back its exact original entries.

Queue names are ``<interface>:<index>`` as in COUNTERS_QUEUE_NAME_MAP. A missing
key, or ``*``, matches every instance.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import redis

from alphad.gnmi.proto import Elem, pb, typed_to_python
from alphad.sonic.actuate import Actuator, clone_name, restore_from
from alphad.sonic.discover import (
    CONFIG_TABLES,
    Discovery,
    DiscoveryError,
    discover_tables,
    read_table,
)
from alphad.sonic.journal import Journal, JournalError
from alphad.sonic.keys import (
    DYNAMIC_TH_MAX,
    DYNAMIC_TH_MIN,
    SonicSyntaxError,
    natural_key,
    parse_dynamic_th,
    parse_ports,
    parse_profile_ref,
    parse_queue_range,
)
from alphad_vswitch_gnmi.errors import GnmiError, invalid, not_found, unimplemented

__all__ = ["LEAF_FIELDS", "OcActuator", "OcSelector", "OpenConfig"]

log = logging.getLogger("alphad.vswitch.gnmi")

MODULE = "openconfig-qos"
SCALING = "dynamic-limit-scaling-factor"
# OC queue state leaf -> COUNTERS field
LEAF_FIELDS = {
    "transmit-pkts": "SAI_QUEUE_STAT_PACKETS",
    "transmit-octets": "SAI_QUEUE_STAT_BYTES",
    "dropped-pkts": "SAI_QUEUE_STAT_DROPPED_PACKETS",
    "dropped-octets": "SAI_QUEUE_STAT_DROPPED_BYTES",
    "max-queue-len": "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES",
}
_STATE_T = [("qos", None), ("interfaces", None), ("interface", "interface-id"), ("output", None),
            ("queues", None), ("queue", "name"), ("state", None), ("*leaf", None)]
_CFG_T = [("qos", None), ("buffer-allocation-profiles", None),
          ("buffer-allocation-profile", "name"), ("queues", None), ("queue", "name"),
          ("config|state", None), (SCALING, None)]
SUPPORTED = ("/qos/interfaces/interface[interface-id]/output/queues/queue[name]/state/"
             f"{{{','.join(LEAF_FIELDS)}}}, /qos/buffer-allocation-profiles/buffer-allocation-"
             f"profile[name]/queues/queue[name]/{{config,state}}/{SCALING}")


@dataclass(frozen=True)
class OcSelector:
    kind: str  # state | profile
    interface: str | None  # None: every one
    queue: str | None
    leaves: tuple[str, ...]
    containers: tuple[str, ...] = ("config", "state")  # profile: which containers
    depth: int = 0  # number of elements given


def _strip(name: str) -> str:
    return name.split(":", 1)[1] if name.startswith(f"{MODULE}:") else name


def _match(elems: list[Elem], template: list[tuple[str, str | None]], where: str
           ) -> dict[str, Any] | None:
    """Keys and the last names matched, or None when the names do not follow ``template``."""
    if len(elems) > len(template):
        return None
    got: dict[str, Any] = {"names": []}
    for (name, keys), (tname, tkey) in zip(elems, template, strict=False):
        n = _strip(name)
        if tname == "*leaf":
            if n not in LEAF_FIELDS:
                return None
        elif n not in tname.split("|"):
            return None
        got["names"].append(n)
        if tkey is None:
            if keys:
                raise invalid(f"{where}: {n!r} takes no keys")
            continue
        extra = set(keys) - {tkey}
        if extra:
            raise invalid(f"{where}: {n!r} is keyed by {tkey!r}, not {sorted(extra)}")
        v = keys.get(tkey, "*")
        got[f"{n}:{tkey}"] = None if v == "*" else v
    return got


def select(elems: list[Elem], where: str) -> OcSelector:
    if not elems or _strip(elems[0][0]) != "qos":
        raise unimplemented(f"{where}: path not supported by this server (supported: {SUPPORTED})")
    m = _match(elems, _STATE_T, where)
    if m is not None and (len(elems) < 2 or m["names"][1] == "interfaces"):
        leaves = (m["names"][7],) if len(elems) == 8 else tuple(LEAF_FIELDS)
        return OcSelector("state", m.get("interface:interface-id"), m.get("queue:name"), leaves,
                          depth=len(elems))
    m = _match(elems, _CFG_T, where)
    if m is not None:
        conts = (m["names"][5],) if len(elems) >= 6 else ("config", "state")
        return OcSelector("profile", m.get("buffer-allocation-profile:name"),
                          m.get("queue:name"), (SCALING,), conts, depth=len(elems))
    raise unimplemented(f"{where}: path not supported by this server (supported: {SUPPORTED})")


def effective_th(config_db: redis.Redis, sep: str) -> dict[tuple[str, int], int]:
    """dynamic_th in force on every queue whose profile has one (CONFIG_DB)."""
    profiles = read_table(config_db, "BUFFER_PROFILE", sep)
    th: dict[str, int] = {}
    for name, f in profiles.items():
        try:
            th[name] = parse_dynamic_th(f["dynamic_th"])
        except (KeyError, SonicSyntaxError):
            continue
    out: dict[tuple[str, int], int] = {}
    for key, f in read_table(config_db, "BUFFER_QUEUE", sep).items():
        plist, _, rng = key.rpartition(sep)
        try:
            ports, queues = parse_ports(plist), parse_queue_range(rng)
            prof, _b = parse_profile_ref(f.get("profile", ""))
        except SonicSyntaxError:
            continue
        if prof in th:
            for p in ports:
                for q in queues:
                    out[(p, q)] = th[prof]
    return out


def parse_queue_name(name: str, where: str) -> tuple[str, int]:
    port, _, idx = name.rpartition(":")
    if not port or not idx.isdigit():
        raise not_found(f"{where}: queue name {name!r} is not <interface>:<index>")
    return port, int(idx)


def scaling_value(tv: Any, where: str) -> int:
    """The factor of a Set value: int/uint, a JSON number or numeric string, or an object
    with the leaf (an update of the ``config`` container)."""
    try:
        v = typed_to_python(tv)
    except ValueError as e:
        raise invalid(f"{where}: {e}") from None
    if isinstance(v, dict):
        v = {_strip(k): x for k, x in v.items()}
        if set(v) != {SCALING}:
            raise invalid(f"{where}: the config container takes only {SCALING!r}")
        v = v[SCALING]
    if isinstance(v, bool) or not isinstance(v, int | str):
        raise invalid(f"{where}: {SCALING} must be an integer, got {v!r}")
    try:
        k = int(v)
    except ValueError:
        raise invalid(f"{where}: {SCALING} must be an integer, got {v!r}") from None
    if not DYNAMIC_TH_MIN <= k <= DYNAMIC_TH_MAX:
        raise invalid(f"{where}: {SCALING} {k} outside {DYNAMIC_TH_MIN}..{DYNAMIC_TH_MAX} "
                      "(the switch's dynamic_th range)")
    return k


class OpenConfig:
    """Reads of the OC paths: leaves with their full, concrete paths."""

    def __init__(self, config_db: redis.Redis, counters_db: redis.Redis, cfg_sep: str,
                 ctr_sep: str) -> None:
        self.cfg, self.ctr = config_db, counters_db
        self.cfg_sep, self.ctr_sep = cfg_sep, ctr_sep

    def reader(self, elems: list[Elem], where: str
               ) -> Callable[[], list[tuple[list[Elem], Any]]]:
        sel = select(elems, where)
        return lambda: self.read(sel)

    def _queues(self, sel: OcSelector) -> list[tuple[str, str, int, str]]:
        qmap = self.ctr.hgetall("COUNTERS_QUEUE_NAME_MAP")
        out = []
        for name, oid in qmap.items():
            port, _, idx = name.rpartition(":")
            if not idx.isdigit():
                continue
            if sel.interface is not None and port != sel.interface:
                continue
            if sel.queue is not None and name != sel.queue:
                continue
            out.append((name, port, int(idx), oid))
        out.sort(key=lambda t: (natural_key(t[1]), t[2]))
        return out

    def read(self, sel: OcSelector) -> list[tuple[list[Elem], Any]]:
        qs = self._queues(sel)
        out: list[tuple[list[Elem], Any]] = []
        if sel.kind == "state":
            fields = [LEAF_FIELDS[leaf] for leaf in sel.leaves]
            pipe = self.ctr.pipeline(transaction=False)
            for _n, _p, _i, oid in qs:
                pipe.hmget(f"COUNTERS{self.ctr_sep}{oid}", fields)
            for (name, port, _i, _o), vals in zip(qs, pipe.execute(), strict=True):
                base: list[Elem] = [("qos", {}), ("interfaces", {}),
                                    ("interface", {"interface-id": port}), ("output", {}),
                                    ("queues", {}), ("queue", {"name": name}), ("state", {})]
                for leaf, v in zip(sel.leaves, vals, strict=True):
                    if v is None or not v.isdigit():
                        continue
                    out.append(([*base, (leaf, {})], pb.TypedValue(uint_val=int(v))))
            return out
        th = effective_th(self.cfg, self.cfg_sep)
        for name, port, idx, _oid in qs:
            k = th.get((port, idx))
            if k is None:
                continue
            for c in sel.containers:
                out.append(([("qos", {}), ("buffer-allocation-profiles", {}),
                             ("buffer-allocation-profile", {"name": port}), ("queues", {}),
                             ("queue", {"name": name}), (c, {}), (SCALING, {})],
                            pb.TypedValue(int_val=k)))
        return out


class OcActuator:
    """Per-queue dynamic-limit-scaling-factor on SONiC: per-queue profile clones with
    BUFFER_QUEUE splitting (alphad's SONiC actuation), journaled in STATE_DB and a file
    so that reverting every queue gives CONFIG_DB back its exact original entries."""

    STATE_KEY = "GNMI_OC_JOURNAL|config_db"

    def __init__(self, config_db: redis.Redis, counters_db: redis.Redis, state_db: redis.Redis,
                 sep: str, journal_path: Path) -> None:
        self.cfg, self.ctr, self.state = config_db, counters_db, state_db
        self.sep = sep
        self.journal = Journal(journal_path, self.STATE_KEY)
        self.lock = threading.Lock()
        self.disc: Discovery | None = None
        self.act: Actuator | None = None

    def _ensure(self) -> tuple[Discovery, Actuator]:
        if self.disc is not None and self.act is not None:
            return self.disc, self.act
        self.journal.load(self.state)
        tables = {t: read_table(self.cfg, t, self.sep) for t in CONFIG_TABLES}
        for key, orig in self.journal.entries.items():  # the original configuration
            table, _, name = key.partition(self.sep)
            if table in tables:
                if orig is None:
                    tables[table].pop(name, None)
                else:
                    tables[table][name] = dict(orig)
        qmap = self.ctr.hgetall("COUNTERS_QUEUE_NAME_MAP")
        pmap = self.ctr.hgetall("COUNTERS_BUFFER_POOL_NAME_MAP")
        hostname = self.cfg.hget(f"DEVICE_METADATA{self.sep}localhost", "hostname") or "switch"
        try:
            disc = discover_tables(tables, qmap, pmap, None, hostname)
        except DiscoveryError as e:
            raise GnmiError(grpc.StatusCode.FAILED_PRECONDITION, f"no queue to configure: {e}"
                            ) from None
        act = Actuator(disc, self.sep)
        pref = f"BUFFER_PROFILE{self.sep}"
        act.resync({(q.port, q.queue) for q in disc.queues
                    if f"{pref}{clone_name(q.port, q.queue)}" in self.journal})
        self.disc, self.act = disc, act
        return disc, act

    def original(self) -> dict[tuple[str, int], int]:
        disc, _ = self._ensure()
        return {(q.port, q.queue): q.dynamic_th for q in disc.queues if q.managed}

    def set(self, items: list[tuple[str, int, int]], where: str) -> None:
        with self.lock:
            _disc, act = self._ensure()
            managed = self.original()
            for p, q, _k in items:
                if (p, q) not in managed:
                    raise not_found(f"{where}: queue {p}:{q} has no lossy dynamic-threshold "
                                    "buffer profile on this switch")
            try:
                act.execute(self.cfg, act.plan(items), self.journal, self.state)
            except JournalError as e:
                raise GnmiError(grpc.StatusCode.INTERNAL, str(e)) from None

    def revert(self, queues: list[tuple[str, int]]) -> None:
        with self.lock:
            if not self.journal.entries and self.disc is None:
                self.journal.load(self.state)
                if not self.journal.entries:
                    return
            _disc, act = self._ensure()
            orig = self.original()
            back = {act.pkey(clone_name(p, q)): orig[(p, q)] for p, q in queues
                    if (p, q) in act.cloned and (p, q) in orig}
            if back:
                act.set_th(self.cfg, back)
            th = act.read_clone_th(self.cfg)
            if all(v is None or v == orig.get(pq) for pq, v in th.items()):
                n = restore_from(self.cfg, self.journal, self.state, self.sep)
                act.forget()
                self.disc = self.act = None
                if n:
                    log.info("OpenConfig: every queue back on its original profile (%d "
                             "CONFIG_DB entries restored)", n)
