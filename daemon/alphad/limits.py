"""Bounds on what alphad writes, between the controller and the backend.

- alpha stays in [2^kmin, 2^kmax]; a non-finite alpha is never written;
- nothing is written for a queue whose alpha does not change;
- per queue: alpha moves at most ``max_step`` log2 units per write, and a queue is
  rewritten at most once per ``queue_min_interval`` seconds;
- switch-wide: at most ``write_budget`` writes per second (a token bucket holding one
  second of writes); over budget, the largest moves go first and the rest wait.

Time is the backend's clock (``Sample.t``): model time on a manual clock, so a
simulated run stays deterministic. A write held back is not lost: the next interval
recomputes it from the alpha then in effect.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from alphad.model import Changes
from alphad.quantize import Quantizer

__all__ = ["LimitParams", "Limiter"]

_EMPTY = Changes(np.zeros(0, dtype=np.int64), np.zeros(0))


@dataclass(frozen=True)
class LimitParams:
    max_step: int = 15  # log2 units one write may move a queue's alpha (15: kmax - kmin)
    queue_min_interval: float = 0.0  # seconds between two writes of one queue (0: none)
    write_budget: float = 10000.0  # alpha writes per second, switch-wide

    def __post_init__(self) -> None:
        if self.max_step < 1:
            raise ValueError("max_step must be >= 1")
        if not self.queue_min_interval >= 0:
            raise ValueError("queue_min_interval must be >= 0")
        if not (self.write_budget > 0 and math.isfinite(self.write_budget)):
            raise ValueError("write_budget must be a positive number")


class Limiter:
    """Filters one interval's Changes; keeps per-queue write times and the token bucket."""

    def __init__(self, n: int, quantizer: Quantizer, params: LimitParams | None = None) -> None:
        self.p = params or LimitParams()
        self.q = quantizer
        self.n = n
        self._last = np.full(n, -np.inf)  # backend time of each queue's last write
        self._tokens = self.p.write_budget  # the bucket starts full: one second of writes
        self._t: float | None = None
        self._step_limited = self.p.max_step < quantizer.kmax - quantizer.kmin
        self.deferred = 0  # writes held back by the rate limit or the budget (cumulative)
        self.refused = 0  # writes refused: alpha out of bounds or not finite (cumulative)

    def take_state(self, other: Limiter) -> None:
        """Continue ``other``'s bucket and write times (after a reconfiguration)."""
        if other.n == self.n:
            self._last = other._last
            self._tokens = min(other._tokens, self.p.write_budget)
            self._t = other._t
            self.deferred, self.refused = other.deferred, other.refused

    @property
    def tokens(self) -> float:
        return self._tokens

    def _refill(self, t: float) -> None:
        if self._t is not None:
            elapsed = t - self._t
            if elapsed > 0:  # a clock going backwards refills nothing
                self._tokens = min(self._tokens + elapsed * self.p.write_budget,
                                   self.p.write_budget)
        if self._t is None or t > self._t:
            self._t = t

    def __call__(self, changes: Changes, current: np.ndarray, t: float) -> Changes:
        """The subset of ``changes`` (possibly with smaller steps) to write now.

        ``current`` is the alpha in effect on every queue (float [n]).
        """
        self._refill(t)
        if not len(changes):
            return changes
        idx, alpha, k = changes.idx, changes.alpha, changes.k
        q = self.q
        # Bounds: the quantizer clamps already; this guards any other path (NaN included).
        if not (alpha.min() >= q.alpha_min and alpha.max() <= q.alpha_max) or (
                k is not None and (k.min() < q.kmin or k.max() > q.kmax)):
            ok = (alpha >= q.alpha_min) & (alpha <= q.alpha_max)  # False for NaN
            if k is not None:
                ok &= (k >= q.kmin) & (k <= q.kmax)
            self.refused += int(len(ok) - np.count_nonzero(ok))
            idx, alpha, k = idx[ok], alpha[ok], None if k is None else k[ok]
        cur = current[idx]
        if self._step_limited:
            idx, alpha, k = self._limit_step(idx, alpha, k, cur)
            cur = current[idx]
        same = alpha == cur
        if same.any():  # no write when nothing changes
            keep = ~same
            idx, alpha, k, cur = idx[keep], alpha[keep], None if k is None else k[keep], cur[keep]
        if self.p.queue_min_interval > 0 and len(idx):
            due = (t - self._last[idx]) >= self.p.queue_min_interval
            if not due.all():
                self.deferred += int(len(due) - np.count_nonzero(due))
                idx, alpha, cur = idx[due], alpha[due], cur[due]
                k = None if k is None else k[due]
        allowed = int(self._tokens)
        if len(idx) > allowed:
            # Over budget: the largest moves first (stable: lower queue positions on ties).
            with np.errstate(divide="ignore", invalid="ignore"):
                move = np.abs(np.log2(alpha) - np.log2(cur))
            order = np.argsort(-move, kind="stable")[:max(allowed, 0)]
            order.sort()
            self.deferred += len(idx) - len(order)
            idx, alpha = idx[order], alpha[order]
            k = None if k is None else k[order]
        if not len(idx):
            return _EMPTY
        self._tokens -= len(idx)
        self._last[idx] = t
        return Changes(idx, alpha, k)

    def _limit_step(self, idx: np.ndarray, alpha: np.ndarray, k: np.ndarray | None,
                    cur: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """At most ``max_step`` log2 units from the alpha in effect, then within bounds."""
        s = self.p.max_step
        q = self.q
        with np.errstate(divide="ignore", invalid="ignore"):
            cur_log = np.log2(cur)
        if k is not None:
            cur_k = np.rint(cur_log)
            cur_k = np.where(np.isfinite(cur_k), cur_k, k)  # alpha 0: no step from it
            new_k = np.clip(np.clip(k, cur_k - s, cur_k + s), q.kmin, q.kmax).astype(np.int8)
            return idx, np.exp2(new_k, dtype=np.float64), new_k
        with np.errstate(divide="ignore", invalid="ignore"):
            a_log = np.log2(alpha)
        ok = np.isfinite(cur_log)
        lim = np.where(ok, np.clip(a_log, cur_log - s, cur_log + s), a_log)
        return idx, np.clip(np.exp2(lim), q.alpha_min, q.alpha_max), None
