"""A short in-memory history of the switch's state for the API and the live page.

Fed from the loop's ``on_cycle`` hook. Entries are at least ``min_step``
seconds apart (backend clock); between two entries the per-queue watermark is
the running maximum, so a decimated history still shows every peak.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from alphad.loop import Daemon
    from alphad.metrics import QueueSnapshot

__all__ = ["History"]


@dataclass(frozen=True)
class _Entry:
    t: float
    watermark: np.ndarray  # peak since the previous entry
    occupancy: np.ndarray | None
    threshold: np.ndarray
    alpha: np.ndarray
    target: np.ndarray
    drops: np.ndarray  # cumulative dropped bytes
    drops_sum: float
    pool: float | None  # pool watermark (or occupancy)
    n_p: dict[str, float]


class History:
    """Ring of the last ``size`` entries."""

    def __init__(self, size: int = 600, min_step: float = 0.1) -> None:
        self.min_step = min_step
        self._d: deque[_Entry] = deque(maxlen=size)
        self._lock = threading.Lock()
        self._peak: np.ndarray | None = None
        self._last_t = -np.inf

    def __call__(self, d: Daemon) -> None:
        if d.snapshot is not None:
            self.push(d.snapshot)

    def push(self, s: QueueSnapshot) -> None:
        wm = s.sample.watermark
        peak = self._peak
        if peak is None or peak.shape != wm.shape:
            self._peak = peak = wm.copy()
        else:
            np.maximum(peak, wm, out=peak)
        t = s.sample.t
        if t < self._last_t:  # backend clock restarted: start over
            with self._lock:
                self._d.clear()
        elif t - self._last_t < self.min_step:
            return
        sm = s.sample
        pool = sm.pool_watermark if sm.pool_watermark is not None else sm.pool_occupancy
        n_p = ({} if s.n_p is None else
               dict(zip(s.classes.names, s.n_p.tolist(), strict=True)))
        e = _Entry(t, peak, sm.occupancy, s.threshold, sm.alpha, s.target, s.drops_total,
                   float(s.drops_total.sum()), pool, n_p)
        self._peak = None
        self._last_t = t
        with self._lock:
            self._d.append(e)

    def _entries(self) -> list[_Entry]:
        with self._lock:
            return list(self._d)

    def queue(self, i: int) -> dict[str, list[Any]]:
        """Series of queue position ``i``."""
        es = [e for e in self._entries() if len(e.alpha) > i]
        return {
            "t": [e.t for e in es],
            "watermark_bytes": [float(e.watermark[i]) for e in es],
            "occupancy_bytes": [None if e.occupancy is None else float(e.occupancy[i])
                                for e in es],
            "threshold_bytes": [float(e.threshold[i]) for e in es],
            "alpha": [float(e.alpha[i]) for e in es],
            "target_alpha": [float(e.target[i]) for e in es],
            "dropped_bytes": [float(e.drops[i]) for e in es],
        }

    def switch(self) -> dict[str, list[Any]]:
        """Switch-wide series: pool peak, total drops, n_p per priority."""
        es = self._entries()
        names = list(es[-1].n_p) if es else []
        return {
            "t": [e.t for e in es],
            "pool_bytes": [e.pool for e in es],
            "dropped_bytes": [e.drops_sum for e in es],
            "n_p": {n: [e.n_p.get(n) for e in es] for n in names},
        }
