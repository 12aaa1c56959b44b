"""Record a run (``alphad run --record run.jsonl``) and plot it (``alphad report``).

The record is JSON Lines (gzip-compressed when the name ends in ``.gz``): a
header line with the topology, then one line per control interval with every
queue's peak occupancy, threshold, alpha (in effect and target) and drops.
The loop only hands a reference to the snapshot over; a writer thread
serializes it.
"""

from __future__ import annotations

import gzip
import json
import logging
import math
import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from alphad.loop import Daemon
    from alphad.metrics import QueueSnapshot

__all__ = ["RecordError", "Recorder", "Run", "busy_ports", "load_run", "render"]

log = logging.getLogger("alphad")
FORMAT = "alphad-record"
VERSION = 1


def _open(path: Path, mode: str) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, mode + "t", encoding="utf-8")  # type: ignore[return-value]
    return open(path, mode, encoding="utf-8")


def _ints(a: np.ndarray) -> list[int]:
    return np.rint(a).astype(np.int64).tolist()  # type: ignore[no-any-return]


def _floats(a: np.ndarray) -> list[float | None]:
    return [v if math.isfinite(v) else None for v in np.round(a, 6).tolist()]


class Recorder:
    """``on_cycle`` hook that appends every interval's snapshot to a file."""

    def __init__(self, path: Path, max_backlog: int = 10_000) -> None:
        self.path = path
        self._f = _open(path, "w")  # OSError here names the file: the caller reports it
        self._q: queue.Queue[QueueSnapshot | None] = queue.Queue(max_backlog)
        self.records = 0
        self.lost = 0
        self._classes: object = None
        self._thread = threading.Thread(target=self._write, name="alphad-record", daemon=True)
        self._thread.start()

    def __call__(self, d: Daemon) -> None:
        if d.snapshot is None:
            return
        try:
            self._q.put_nowait(d.snapshot)
        except queue.Full:
            self.lost += 1

    def _header(self, s: QueueSnapshot) -> dict[str, Any]:
        t, c = s.topo, s.classes
        return {"format": FORMAT, "version": VERSION, "switch": t.switch, "ports": list(t.ports),
                "queue_port": t.queue_port.tolist(), "queue_index": t.queue_index.tolist(),
                "buffer_bytes": t.buffer_bytes, "priorities": list(c.names),
                "prio": c.prio.tolist()}

    def _write(self) -> None:
        while (s := self._q.get()) is not None:
            if self._classes is None:
                self._f.write(json.dumps(self._header(s)) + "\n")
            if s.classes is not self._classes and self._classes is not None:
                self._f.write(json.dumps({"priorities": list(s.classes.names),
                                          "prio": s.classes.prio.tolist()}) + "\n")
            self._classes = s.classes
            sm = s.sample
            rec = {
                "t": sm.t, "scheme": s.scheme, "interval": s.interval,
                "watermark": _ints(sm.watermark),
                "occupancy": None if sm.occupancy is None else _ints(sm.occupancy),
                "threshold": _ints(s.threshold),
                "alpha": _floats(sm.alpha),
                "target": _floats(s.target),
                "dropped": _ints(s.drops_total),
                "n_p": None if s.n_p is None else s.n_p.tolist(),
                "pool": sm.pool_watermark if sm.pool_watermark is not None
                else sm.pool_occupancy,
            }
            self._f.write(json.dumps(rec) + "\n")
            self.records += 1

    def close(self) -> None:
        self._q.put(None)
        self._thread.join()
        self._f.close()
        if self.lost:
            log.warning("record %s: %d intervals not recorded (writer fell behind)",
                        self.path, self.lost)


class RecordError(Exception):
    """A record file that cannot be read; the message names the file and line."""


@dataclass
class Run:
    switch: str
    ports: list[str]
    queue_port: np.ndarray  # [n]
    queue_index: np.ndarray  # [n]
    buffer_bytes: float
    priorities: list[str]
    prio: np.ndarray  # [n], -1 = not managed
    t: np.ndarray  # [T] seconds
    watermark: np.ndarray  # [T, n] bytes
    threshold: np.ndarray  # [T, n] bytes
    alpha: np.ndarray  # [T, n]
    target: np.ndarray  # [T, n]
    dropped: np.ndarray  # [T, n] cumulative bytes
    pool: np.ndarray  # [T] bytes (nan if not reported)
    n_p: np.ndarray  # [T, P] (nan before the first estimate)
    scheme: list[str]  # [T]

    def find(self, port: str, q: int) -> int:
        hit = np.flatnonzero((np.asarray(self.ports)[self.queue_port] == port) &
                             (self.queue_index == q))
        if hit.size == 0:
            raise KeyError(f"the record has no queue {q} on port {port!r}")
        return int(hit[0])


_ARRAYS = ("watermark", "threshold", "alpha", "target", "dropped")


def load_run(path: Path) -> Run:
    """Read a record; RecordError names the line of the first problem."""
    try:
        f = _open(path, "r")
    except OSError as e:
        raise RecordError(f"{path}: {e.strerror or e}") from None
    rows: dict[str, list[Any]] = {k: [] for k in (*_ARRAYS, "t", "pool", "n_p", "scheme")}
    head: dict[str, Any] | None = None
    with f:
        try:
            for no, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise RecordError(f"{path}:{no}: not JSON ({e.msg})") from None
                if not isinstance(r, dict):
                    raise RecordError(f"{path}:{no}: expected a JSON object")
                if head is None:
                    if r.get("format") != FORMAT:
                        raise RecordError(f"{path}:{no}: not an alphad record (no "
                                          f"'format: {FORMAT}' header)")
                    head = r
                    n = len(r["queue_port"])
                    continue
                if "t" not in r:  # classes changed: keep the latest mapping
                    head.update(priorities=r["priorities"], prio=r["prio"])
                    continue
                try:
                    for k in _ARRAYS:
                        if len(r[k]) != n:
                            raise RecordError(f"{path}:{no}: '{k}' has {len(r[k])} values, "
                                              f"the header {n} queues")
                        rows[k].append(r[k])
                    rows["t"].append(float(r["t"]))
                    rows["pool"].append(r.get("pool"))
                    rows["n_p"].append(r.get("n_p"))
                    rows["scheme"].append(str(r.get("scheme", "")))
                except (KeyError, TypeError) as e:
                    raise RecordError(f"{path}:{no}: missing or bad field {e}") from None
        except (OSError, EOFError, UnicodeDecodeError) as e:
            raise RecordError(f"{path}: cannot read: {e}") from None
    if head is None:
        raise RecordError(f"{path}: empty record")
    if not rows["t"]:
        raise RecordError(f"{path}: the record has a header but no interval")
    P = len(head["priorities"])

    def arr(k: str) -> np.ndarray:
        return np.array([[np.nan if v is None else v for v in row] for row in rows[k]],
                        dtype=np.float64)

    n_p = np.full((len(rows["t"]), P), np.nan)
    for i, v in enumerate(rows["n_p"]):
        if v is not None and len(v) == P:
            n_p[i] = v
    return Run(
        switch=str(head.get("switch", "")), ports=list(head["ports"]),
        queue_port=np.asarray(head["queue_port"], dtype=np.int64),
        queue_index=np.asarray(head["queue_index"], dtype=np.int64),
        buffer_bytes=float(head["buffer_bytes"]), priorities=list(head["priorities"]),
        prio=np.asarray(head["prio"], dtype=np.int64), t=np.asarray(rows["t"]),
        watermark=arr("watermark"), threshold=arr("threshold"), alpha=arr("alpha"),
        target=arr("target"), dropped=arr("dropped"),
        pool=np.array([np.nan if v is None else v for v in rows["pool"]], dtype=np.float64),
        n_p=n_p, scheme=rows["scheme"],
    )


def _kb(ax: Any) -> None:
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v / 1e3:g}k"))


def _overview(run: Run, out: Path) -> Path:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(11, 8))
    fig.subplots_adjust(left=0.08, right=0.97, top=0.95, bottom=0.07, hspace=0.15)
    ax1, ax2, ax3 = fig.subplots(3, 1, sharex=True)
    ax1.plot(run.t, run.pool, lw=1, label="pool peak")
    ax1.axhline(run.buffer_bytes, color="grey", ls="--", lw=1, label="B")
    ax1.set_ylabel("bytes")
    ax1.set_ylim(bottom=0)
    _kb(ax1)
    ax1.legend(loc="upper right")
    ax1.set_title(f"{run.switch}: shared pool, n_p and drops "
                  f"(scheme {', '.join(dict.fromkeys(run.scheme))})")
    for j, name in enumerate(run.priorities):
        ax2.step(run.t, run.n_p[:, j], where="post", lw=1, label=name)
    ax2.set_ylabel("n_p (congested queues)")
    ax2.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax2.legend(loc="upper right")
    total = run.dropped.sum(axis=1)
    dt = np.diff(run.t)
    rate = np.divide(np.diff(total), dt, out=np.zeros_like(dt), where=dt > 0)
    ax3.plot(run.t[1:], rate * 8 / 1e9, color="tab:red", lw=1)
    ax3.set_ylabel("drop rate (Gb/s)")
    ax3.set_ylim(bottom=0)
    ax3.set_xlabel("time (s)")
    p = out / "overview.png"
    fig.savefig(p, dpi=100)
    return p


def _port(run: Run, port: str, queues: list[int], out: Path) -> Path:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    idx = [run.find(port, q) for q in queues]
    height = 1.9 * len(idx) + 0.8
    fig = Figure(figsize=(11, height))
    fig.subplots_adjust(left=0.08, right=0.92, top=1 - 0.35 / height, bottom=0.5 / height,
                        hspace=0.45)
    axes = np.atleast_1d(fig.subplots(len(idx), 1, sharex=True))
    for ax, i in zip(axes, idx, strict=True):
        q = int(run.queue_index[i])
        p = int(run.prio[i])
        ax.plot(run.t, run.watermark[:, i], lw=0.9, color="tab:blue", label="occupancy (peak)")
        ax.plot(run.t, run.threshold[:, i], lw=0.9, color="tab:red", label="threshold")
        _kb(ax)
        ax.set_ylabel("bytes")
        ax.set_title(f"{port} queue {q} ({run.priorities[p] if p >= 0 else 'not managed'})",
                     fontsize=10, loc="left")
        a2 = ax.twinx()
        a2.step(run.t, np.log2(np.maximum(run.alpha[:, i], 1e-12)), where="post",
                color="tab:green", lw=1.2, label="log2 alpha")
        a2.plot(run.t, np.log2(np.maximum(run.target[:, i], 1e-12)), color="tab:purple",
                lw=0.8, ls=":", label="log2 target")
        a2.set_ylabel("log2 alpha")
        a2.yaxis.set_major_locator(MaxNLocator(integer=True))
        if ax is axes[0]:  # one legend, above the first plot
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = a2.get_legend_handles_labels()
            ax.legend(h1 + h2, l1 + l2, loc="lower right", bbox_to_anchor=(1.0, 1.0),
                      fontsize=8, ncols=4, frameon=False)
    axes[-1].set_xlabel("time (s)")
    path = out / f"port-{port.replace('/', '_')}.png"
    fig.savefig(path, dpi=100)
    return path


def busy_ports(run: Run) -> list[str]:
    """Ports on which some queue held data during the run."""
    busy = np.nanmax(run.watermark, axis=0) > 0
    return [p for j, p in enumerate(run.ports) if busy[run.queue_port == j].any()]


def render(run: Run, out: Path, ports: list[str] | None = None,
           queues: list[int] | None = None) -> list[Path]:
    """Write overview.png and one port-<name>.png per port; returns the paths.

    By default every port on which some queue held data; KeyError names an
    unknown port or queue."""
    out.mkdir(parents=True, exist_ok=True)
    if ports is None:
        ports = busy_ports(run)
    for p in ports:
        if p not in run.ports:
            raise KeyError(f"the record has no port {p!r} (ports: {', '.join(run.ports)})")
    paths = [_overview(run, out)]
    for p in ports:
        j = run.ports.index(p)
        have = sorted(int(q) for q in run.queue_index[run.queue_port == j])
        qs = have if queues is None else queues
        paths.append(_port(run, p, qs, out))
    return paths
