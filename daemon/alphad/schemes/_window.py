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
        out = np.empty(len(self.q))
        for c, q in enumerate(self.q):
            x = float(v[c])
            while q and q[-1][1] <= x:
                q.pop()
            q.append((t, x))
            while t - q[0][0] > self.window:
                q.popleft()
            out[c] = q[0][1]
        return out
