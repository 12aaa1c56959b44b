"""Tables, keys and actions of ``p4src/alphad_ref.p4`` as data.

The model executes entries against this schema and the control plane validates its
entries against it; ``tests/test_p4_source.py`` checks that it agrees with the P4
source, so the three cannot drift apart silently. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import arith
from .entries import Exact, Lpm, Match, T, TableEntry, Ternary

__all__ = ["SCHEMA", "ActionSpec", "KeySpec", "SchemaError", "TableSpec", "check_entry"]


class SchemaError(ValueError):
    """An entry does not fit the table it names."""


@dataclass(frozen=True)
class KeySpec:
    name: str
    """bfrt key name (the ``@name`` annotation of the key field)."""
    width: int
    kind: str
    """"exact", "ternary" or "lpm"."""


@dataclass(frozen=True)
class ActionSpec:
    name: str
    params: tuple[tuple[str, int], ...]
    """(parameter name, width in bits)."""


@dataclass(frozen=True)
class TableSpec:
    name: str
    keys: tuple[KeySpec, ...]
    actions: tuple[ActionSpec, ...]
    default_action: str
    default_params: tuple[tuple[str, int], ...]
    size: int

    def action(self, name: str) -> ActionSpec:
        for a in self.actions:
            if a.name == name:
                return a
        raise SchemaError(f"table {self.name} has no action {name}")


def _t(name: str, keys: list[tuple[str, int, str]],
       actions: list[tuple[str, list[tuple[str, int]]]],
       default: tuple[str, dict[str, int]], size: int) -> TableSpec:
    return TableSpec(
        name,
        tuple(KeySpec(*k) for k in keys),
        tuple(ActionSpec(a, tuple(p)) for a, p in actions),
        default[0],
        tuple(default[1].items()),
        size,
    )


MAX_QUEUES = 1024
"""Register array size for per-queue state (ports x queues per port)."""
MAX_NIDX = 64
"""n_p counters (priorities for ABM, priority groups for FB)."""
MAX_PORTS = 256
"""Per-port active-queue counters."""

SCHEMA: dict[str, TableSpec] = {
    s.name: s
    for s in [
        _t(T.FWD, [("dst_addr", 32, "lpm")],
           [(T.A_SET_PORT, [("port", 9)]), ("Ingress.drop_packet", [])],
           ("Ingress.drop_packet", {}), 4096),
        _t(T.CLASSIFY, [("diffserv", 8, "ternary")],
           [(T.A_SET_CLASS, [("queue", 5), ("unsched", 1)])],
           (T.A_SET_CLASS, {"queue": 0, "unsched": 0}), 256),
        _t(T.PKT_UNITS, [("total_len", 16, "exact")],
           [(T.A_SET_PKT_UNITS, [("units", 32)])],
           (T.A_SET_PKT_UNITS, {"units": 0xFFFF}), 16384),
        _t(T.MAP_QUEUE, [("egress_port", 9, "exact"), ("queue", 5, "exact")],
           [(T.A_SET_QUEUE, [("qid", 5), ("qidx", 16), ("pidx", 8), ("aidx", 8), ("nidx", 8)]),
            ("Ingress.unmanaged", [])],
           ("Ingress.unmanaged", {}), MAX_QUEUES),
        _t(T.ALPHA, [("aidx", 8, "exact"), ("unsched", 1, "exact")],
           [(T.A_SET_ALPHA, [("l", 16)])],
           (T.A_SET_ALPHA, {"l": 0}), 512),
        _t(T.LOG_REM, [("rem", 32, "ternary")],
           [(T.A_SET_L_REM, [("l", 16)])],
           (T.A_SET_L_REM, {"l": arith.to_unsigned(arith.LOG_ZERO_REM)}), 4096),
        _t(T.LOG_NP, [("np", 16, "ternary")],
           [(T.A_SET_L_NP, [("l", 16)])],
           (T.A_SET_L_NP, {"l": 0}), 1024),
        _t(T.LOG_GAMMA, [("act", 16, "ternary")],
           [(T.A_SET_L_GAMMA, [("l", 16)])],
           (T.A_SET_L_GAMMA, {"l": 0}), 512),
        _t(T.EXP, [("s", 16, "exact")],
           [(T.A_SET_THR, [("thr", 32), ("thr_cong", 32)])],
           (T.A_SET_THR, {"thr": arith.SATURATED, "thr_cong": arith.SATURATED}), 8192),
        _t(T.SYNC_MAP, [("qidx", 16, "exact"), ("ingress_port", 9, "exact")],
           [(T.A_SET_SYNC_IDX, [("pidx", 8), ("nidx", 8)]), ("Ingress.sync_skip", [])],
           ("Ingress.sync_skip", {}), MAX_QUEUES),
        _t(T.SYNC_CFG, [],
           [(T.A_SET_SYNC_PORT, [("port", 9)])],
           (T.A_SET_SYNC_PORT, {"port": 0}), 1),
        _t(T.GHOST_MAP, [("qid", 11, "exact")],
           [(T.A_SET_GHOST_IDX, [("qidx", 16)]), ("Ghost.ghost_skip", [])],
           ("Ghost.ghost_skip", {}), 2048),
    ]
}


def _fits(value: int, width: int) -> bool:
    return 0 <= value < (1 << width)


def check_entry(entry: TableEntry) -> None:
    """Raise :class:`SchemaError` naming the table/key/parameter that does not fit."""
    spec = SCHEMA.get(entry.table)
    if spec is None:
        raise SchemaError(f"unknown table {entry.table}")
    action = spec.action(entry.action)
    if entry.default:
        if entry.key:
            raise SchemaError(f"{entry.table}: a default action takes no key")
    else:
        names = [k.name for k in spec.keys]
        if sorted(entry.key) != sorted(names):
            raise SchemaError(f"{entry.table}: key fields {sorted(entry.key)} != {names}")
        for k in spec.keys:
            m: Match = entry.key[k.name]
            ok = {"exact": Exact, "ternary": Ternary, "lpm": Lpm}[k.kind]
            if not isinstance(m, ok):
                raise SchemaError(f"{entry.table}.{k.name}: expected a {k.kind} match")
            if not _fits(m.value, k.width):
                raise SchemaError(f"{entry.table}.{k.name}: value {m.value} exceeds {k.width} bits")
            if isinstance(m, Ternary) and not _fits(m.mask, k.width):
                raise SchemaError(f"{entry.table}.{k.name}: mask exceeds {k.width} bits")
            if isinstance(m, Lpm) and not 0 <= m.prefix_len <= k.width:
                raise SchemaError(f"{entry.table}.{k.name}: prefix length {m.prefix_len}")
        if any(k.kind == "ternary" for k in spec.keys) and entry.priority is None:
            raise SchemaError(f"{entry.table}: ternary entries need a priority")
    names = [p for p, _ in action.params]
    if sorted(entry.params) != sorted(names):
        raise SchemaError(f"{entry.table}/{entry.action}: params {sorted(entry.params)} != {names}")
    for p, width in action.params:
        if not _fits(entry.params[p], width):
            raise SchemaError(
                f"{entry.table}/{entry.action}: {p}={entry.params[p]} exceeds {width} bits")
