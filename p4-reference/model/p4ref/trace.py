"""Reader and writer of admission traces (format: ``p4-reference/TRACE_FORMAT.md``)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .reference import ADMIT_RULES, SCHEMES

__all__ = ["COLUMNS", "Trace", "TraceError", "read_trace", "write_trace"]

COLUMNS = (
    "t_ns", "switch", "port", "queue", "priority", "bytes", "qlen_bytes",
    "pool_occupancy_bytes", "pool_bytes", "n_p", "port_active_queues", "gamma", "alpha_p",
    "unsched", "admitted", "threshold_bytes",
)
_INT = ("t_ns", "port", "queue", "bytes", "qlen_bytes", "pool_occupancy_bytes", "pool_bytes",
        "n_p", "port_active_queues")
_BIT = ("unsched", "admitted")
_FLOAT = ("gamma", "alpha_p", "threshold_bytes")
_STR = ("switch", "priority")


class TraceError(ValueError):
    """Malformed trace; the message names the file, line and column."""


@dataclass
class Trace:
    """Column arrays of one trace file plus its ``# key=value`` run parameters."""

    meta: dict[str, str]
    cols: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.cols["t_ns"])

    @property
    def scheme(self) -> str:
        return self.meta.get("scheme", "abm")

    @property
    def admit_rule(self) -> str:
        return self.meta.get("admit_rule", "fit")

    @property
    def alpha_unsched(self) -> float | None:
        """First-RTT alpha; None for schemes without it (abm-core, fb, dt)."""
        v = self.meta.get("alpha_unsched")
        if self.scheme != "abm" or v in (None, "", "none"):
            return None
        return float(v)

    def group_of(self, priority: str) -> str:
        """FB priority group of a priority label (``# groups=`` indexed by priority)."""
        groups = [g.strip() for g in self.meta.get("groups", "").split(",") if g.strip()]
        if not groups:
            return priority
        try:
            return groups[int(priority)]
        except (ValueError, IndexError):
            raise TraceError(f"{self.source}: groups={self.meta['groups']!r} has no entry for "
                             f"priority {priority!r}") from None

    def int_col(self, name: str) -> npt.NDArray[np.int64]:
        return self.cols[name].astype(np.int64)

    def select(self, mask: npt.NDArray[np.bool_]) -> Trace:
        return Trace(dict(self.meta), {k: v[mask] for k, v in self.cols.items()}, self.source)


def _parse_meta(line: str, where: str) -> tuple[str, str]:
    body = line[1:].strip()
    if "=" not in body:
        raise TraceError(f"{where}: comment lines before the header must be '# key=value'")
    k, v = body.split("=", 1)
    return k.strip(), v.strip()


def _validate_meta(meta: dict[str, str], where: str) -> None:
    if meta.get("scheme", "abm") not in SCHEMES:
        raise TraceError(f"{where}: scheme={meta['scheme']!r}: the P4 reference implements "
                         f"{', '.join(SCHEMES)}")
    if meta.get("admit_rule", "fit") not in ADMIT_RULES:
        raise TraceError(f"{where}: admit_rule={meta['admit_rule']!r}: expected one of "
                         f"{', '.join(ADMIT_RULES)}")
    au = meta.get("alpha_unsched")
    if au not in (None, "", "none"):
        try:
            ok = float(au) > 0 and math.isfinite(float(au))
        except ValueError:
            ok = False
        if not ok:
            raise TraceError(f"{where}: alpha_unsched={au!r}: expected a positive number")


def read_trace(path: str | Path, text: str | None = None) -> Trace:
    """Parse a trace file (or ``text``), validating every field."""
    name = str(path)
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise TraceError(f"{name}: {exc.strerror}") from None
    lines = text.splitlines()
    meta: dict[str, str] = {}
    i = 0
    while i < len(lines) and (lines[i].startswith("#") or not lines[i].strip()):
        if lines[i].strip():
            k, v = _parse_meta(lines[i], f"{name} line {i + 1}")
            meta[k] = v
        i += 1
    if i == len(lines):
        raise TraceError(f"{name}: no header line")
    _validate_meta(meta, name)
    reader = csv.reader(lines[i:])
    header = [h.strip() for h in next(reader)]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise TraceError(f"{name} line {i + 1}: header lacks column(s) {', '.join(missing)}")
    pos = {c: header.index(c) for c in COLUMNS}
    raw: dict[str, list[object]] = {c: [] for c in COLUMNS}
    for n, row in enumerate(reader, start=i + 2):
        if not row or (len(row) == 1 and not row[0].strip()) or row[0].startswith("#"):
            continue
        if len(row) != len(header):
            raise TraceError(f"{name} line {n}: {len(row)} fields, header has {len(header)}")
        for c in COLUMNS:
            cell = row[pos[c]].strip()
            raw[c].append(_convert(cell, c, f"{name} line {n}"))
    cols: dict[str, np.ndarray] = {}
    for c in COLUMNS:
        if c in _STR:
            cols[c] = np.array(raw[c], dtype=object)
        elif c in _FLOAT:
            cols[c] = np.array(raw[c], dtype=np.float64)
        else:
            cols[c] = np.array(raw[c], dtype=np.int64)
    tr = Trace(meta, cols, name)
    _check_rows(tr)
    return tr


def _convert(cell: str, col: str, where: str) -> object:
    if col in _STR:
        if not cell:
            raise TraceError(f"{where}: column {col}: empty")
        return cell
    if col in _FLOAT:
        try:
            v = float(cell)
        except ValueError:
            raise TraceError(f"{where}: column {col}: expected a number, got {cell!r}") from None
        if not math.isfinite(v) or v < 0 or (col in ("gamma", "alpha_p") and v <= 0):
            raise TraceError(f"{where}: column {col}: {cell!r} out of range")
        return v
    try:
        v = int(cell)
    except ValueError:
        raise TraceError(f"{where}: column {col}: expected an integer, got {cell!r}") from None
    if v < 0 or (col in _BIT and v > 1):
        raise TraceError(f"{where}: column {col}: {cell!r} out of range")
    return v


def _check_rows(tr: Trace) -> None:
    c = tr.cols
    bad = np.nonzero(c["pool_occupancy_bytes"] > c["pool_bytes"])[0]
    if len(bad):
        raise TraceError(f"{tr.source}: data row {bad[0] + 1}: pool_occupancy_bytes exceeds "
                         "pool_bytes")
    bad = np.nonzero(c["gamma"] > 1.0 + 1e-9)[0]
    if len(bad):
        raise TraceError(f"{tr.source}: data row {bad[0] + 1}: gamma > 1")


def write_trace(rows: Iterable[Sequence[object]], meta: dict[str, str]) -> str:
    """CSV text of a trace: ``# key=value`` lines, the header, then ``rows``."""
    out = io.StringIO()
    for k, v in meta.items():
        out.write(f"# {k}={v}\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([repr(x) if isinstance(x, float) else x for x in r])
    return out.getvalue()
