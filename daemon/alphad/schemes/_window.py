"""Sliding windows over a scheme's per-interval values."""

from __future__ import annotations

from collections import deque

import numpy as np


class SlidingMax:
    """Per-class maximum over the last ``window`` seconds (monotonic queues: O(1)
    amortised per interval, however many intervals the window spans)."""

    def __init__(self, n: int, window: float) -> None:
        self.window = window
        self.q: list[deque[tuple[float, float]]] = [deque() for _ in range(n)]

    def push(self, t: float, v: np.ndarray) -> np.ndarray:
        return np.array(self.push_list(t, [float(x) for x in v]))

    def push_list(self, t: float, v: list[float]) -> list[float]:
        """``push`` on plain floats: the window's maximum of each class after adding v."""
        out = []
        for x, q in zip(v, self.q, strict=True):
            while q and q[-1][1] <= x:
                q.pop()
            q.append((t, x))
            while t - q[0][0] > self.window:
                q.popleft()
            out.append(q[0][1])
        return out
