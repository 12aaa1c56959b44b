"""Installed tables with P4 match semantics, for single keys and numpy arrays.

Exact keys must match; ternary keys match when ``key & mask == value``; LPM keys are
ternary with a prefix mask and the longest prefix wins. Among several matching ternary
entries the lowest bfrt MATCH_PRIORITY wins; two matches with equal priority are an
error, because the hardware's choice between them is unspecified. A miss executes the
default action.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .entries import Exact, Lpm, TableEntry, Ternary
from .schema import SCHEMA, SchemaError, TableSpec, check_entry

__all__ = ["AmbiguousMatch", "TableImage"]

U64 = npt.NDArray[np.uint64]


class AmbiguousMatch(RuntimeError):
    """Two entries of equal priority match the same key."""


@dataclass
class _Group:
    mask: int
    values: U64          # sorted concatenated keys
    rows: npt.NDArray[np.int64]  # entry index per value
    prio: npt.NDArray[np.int64]
    lookup: dict[int, tuple[int, int]]


class TableImage:
    """The entries of one table as the data plane holds them."""

    def __init__(self, name: str, entries: Iterable[TableEntry] = ()) -> None:
        if name not in SCHEMA:
            raise SchemaError(f"unknown table {name}")
        self.spec: TableSpec = SCHEMA[name]
        self._offsets: list[int] = []
        off = 0
        for k in reversed(self.spec.keys):
            self._offsets.insert(0, off)
            off += k.width
        if off > 63:
            raise SchemaError(f"{name}: key too wide for the model ({off} bits)")
        self.default_action = self.spec.default_action
        self.default_params = dict(self.spec.default_params)
        self.actions: list[str] = []
        self.params: list[dict[str, int]] = []
        self._pending: dict[int, list[tuple[int, int, int]]] = {}
        for e in entries:
            self.add(e)
        self._groups: list[_Group] | None = None

    # -- installation -------------------------------------------------------------
    def add(self, entry: TableEntry) -> None:
        if entry.table != self.spec.name:
            raise SchemaError(f"entry for {entry.table} installed into {self.spec.name}")
        check_entry(entry)
        if entry.default:
            self.default_action, self.default_params = entry.action, dict(entry.params)
            return
        value = mask = 0
        prio = 0 if entry.priority is None else entry.priority
        for k, off in zip(self.spec.keys, self._offsets, strict=True):
            m = entry.key[k.name]
            full = (1 << k.width) - 1
            if isinstance(m, Exact):
                v, msk = m.value, full
            elif isinstance(m, Ternary):
                v, msk = m.value, m.mask
            else:
                assert isinstance(m, Lpm)
                msk = full & ~((1 << (k.width - m.prefix_len)) - 1)
                v = m.value
                prio = -m.prefix_len
            value |= (v & msk) << off
            mask |= msk << off
        self._pending.setdefault(mask, []).append((value, prio, len(self.actions)))
        self.actions.append(entry.action)
        self.params.append(dict(entry.params))
        self._groups = None

    def __len__(self) -> int:
        return len(self.actions)

    def _build(self) -> list[_Group]:
        groups = []
        for mask, items in self._pending.items():
            items = sorted(items)
            values = np.array([v for v, _, _ in items], dtype=np.uint64)
            dup = np.nonzero(values[1:] == values[:-1])[0]
            if len(dup):
                raise AmbiguousMatch(f"{self.spec.name}: duplicate entry for key {values[dup[0]]}")
            groups.append(_Group(mask, values, np.array([r for _, _, r in items]),
                                 np.array([p for _, p, _ in items]),
                                 {v: (r, p) for v, p, r in items}))
        self._groups = groups
        return groups

    # -- lookup -------------------------------------------------------------------
    def concat(self, **fields: int) -> int:
        return sum((fields[k.name] & ((1 << k.width) - 1)) << off
                   for k, off in zip(self.spec.keys, self._offsets, strict=True))

    def lookup(self, key: int) -> int:
        """Entry index hit by the concatenated key, or -1 for a miss."""
        groups = self._groups if self._groups is not None else self._build()
        best, best_prio, tie = -1, 0, False
        for g in groups:
            hit = g.lookup.get(key & g.mask)
            if hit is None:
                continue
            row, prio = hit
            if best < 0 or prio < best_prio:
                best, best_prio, tie = row, prio, False
            elif prio == best_prio:
                tie = True
        if tie:
            raise AmbiguousMatch(
                f"{self.spec.name}: key {key:#x} matches entries of equal priority")
        return best

    def apply(self, **fields: int) -> tuple[bool, str, dict[str, int]]:
        """(hit, action, params) for one packet."""
        row = self.lookup(self.concat(**fields))
        if row < 0:
            return False, self.default_action, self.default_params
        return True, self.actions[row], self.params[row]

    def lookup_array(self, keys: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Vectorised :meth:`lookup` over concatenated keys."""
        k = np.asarray(keys, dtype=np.uint64)
        groups = self._groups if self._groups is not None else self._build()
        best = np.full(k.shape, -1, dtype=np.int64)
        best_prio = np.zeros(k.shape, dtype=np.int64)
        tie = np.zeros(k.shape, dtype=bool)
        for g in groups:
            masked = k & np.uint64(g.mask)
            pos = np.clip(np.searchsorted(g.values, masked), 0, len(g.values) - 1)
            hit = g.values[pos] == masked
            prio = g.prio[pos]
            better = hit & ((best < 0) | (prio < best_prio))
            tie = (tie & ~better) | (hit & ~better & (best >= 0) & (prio == best_prio))
            best = np.where(better, g.rows[pos], best)
            best_prio = np.where(better, prio, best_prio)
        if tie.any():
            raise AmbiguousMatch(f"{self.spec.name}: keys match entries of equal priority")
        return best

    def param_array(self, rows: npt.NDArray[np.int64], name: str) -> npt.NDArray[np.uint64]:
        """Action parameter ``name`` per looked-up row (default action on a miss)."""
        table = np.array([p.get(name, 0) for p in self.params] + [self.default_params.get(name, 0)],
                         dtype=np.uint64)
        return table[np.where(rows < 0, len(self.params), rows)]
