"""Estimators shared by all schemes: counter deltas, gamma, congestion, n_p.

Only what a real switch exposes per interval is used: the peak watermark of
each queue since the last read, cumulative tx/drop counters, the pool's
watermark (or occupancy) and the alpha each queue had.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from alphad.model import Classes, Sample, Topology

__all__ = ["Estimates", "Estimator", "EstimatorParams", "counter_delta"]

_WRAP_GUARD = np.uint64(1 << 63)


def counter_delta(cur: np.ndarray, prev: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-element increase of cumulative uint64 counters.

    A counter that went down either wrapped (the previous value was in the
    top half of the 64-bit range: modular difference) or was reset (cleared,
    switch reboot, port flap: the new value is the increase since the reset).
    Returns ``(delta float64, reset bool)``.
    """
    diff = cur - prev  # modular in uint64: right for a wrap
    down = cur < prev
    if not np.count_nonzero(down):  # the common case: three array operations
        return diff.astype(np.float64), down
    reset = down & (prev < _WRAP_GUARD)
    return np.where(reset, cur, diff).astype(np.float64), reset


@dataclass(frozen=True)
class EstimatorParams:
    congested_fraction: float = 0.9  # ABM §3.1: congested when q >= 0.9 T
    min_bytes: float = 1500.0  # a queue below one MTU is empty
    gamma_ewma: float = 1.0  # weight of the newest gamma sample (1 = none, as ABM)
    gamma_clamp: bool = True  # ABM artifact: gamma < 1/queues_per_port or > 1 -> 1


@dataclass
class Estimates:
    """What the schemes see of one interval.

    The counter deltas are computed with the estimates; what only some schemes (and the
    status published after the write) read is computed on first access.
    """

    dt: float  # seconds since the previous sample
    tx_delta: np.ndarray  # bytes sent in the interval [n]
    drop_delta: np.ndarray  # bytes dropped in the interval [n]
    drop_pkt_delta: np.ndarray  # packets dropped [n]
    rate: np.ndarray  # tx rate / port speed, unclamped [n]
    free: float  # lowest free buffer B - Q seen in the interval (bytes)
    watermark: np.ndarray  # peak queue length since last read [n]
    reset: np.ndarray  # bool [n]: a counter reset was seen
    sample: Sample
    _est: Estimator
    _gamma: np.ndarray | None = None  # gamma where it has state (an EWMA): computed each interval

    @cached_property
    def gamma(self) -> np.ndarray:
        """Normalized drain rate mu/b, clamped (ABM Eq. 9) [n]."""
        return self._gamma if self._gamma is not None else self._est._clamped(self.rate)

    @cached_property
    def threshold(self) -> np.ndarray:
        """Lowest threshold the queue had: alpha*(B - Qmax) [n]."""
        return self.sample.alpha * self.free

    @cached_property
    def nonempty(self) -> np.ndarray:
        """bool [n]: watermark >= min_bytes."""
        return self.watermark >= self._est.p.min_bytes

    @cached_property
    def congested(self) -> np.ndarray:
        """bool [n]: watermark >= 0.9 * threshold (ABM §3.1)."""
        congested = self.watermark >= self.threshold * self._est.p.congested_fraction
        congested &= self.nonempty
        return congested

    @cached_property
    def n_p(self) -> np.ndarray:
        """Congested queues per priority, floored at 1 [P]."""
        e = self._est
        P = e.classes.n_prio  # unmanaged queues count in bin P
        n_p = np.bincount(e._prio_all, weights=self.congested, minlength=P + 1)[:P]
        return np.maximum(n_p, 1.0, out=n_p)

    @cached_property
    def n_group(self) -> np.ndarray:
        """Non-empty queues per FB priority group, floored at 1 [G] (FB Eq. 4 N_p)."""
        e = self._est
        ne = self.nonempty[e._managed]
        n = np.bincount(e._group_m[ne], minlength=e.classes.n_groups).astype(np.float64)
        return np.maximum(n, 1.0, out=n)

    @cached_property
    def active_per_port(self) -> np.ndarray:
        """Non-empty queues per port [n_ports]."""
        return np.bincount(self._est.topo.queue_port[self.nonempty],
                           minlength=self._est.topo.n_ports)


class Estimator:
    """Turns successive Samples into Estimates. Keeps only the previous sample."""

    def __init__(self, topo: Topology, classes: Classes, params: EstimatorParams | None = None):
        self.topo = topo
        self.classes = classes
        self.p = params or EstimatorParams()
        self._prev: Sample | None = None
        self._gamma: np.ndarray | None = None
        self._bits_per_speed = 8.0 / topo.queue_speed_bps.astype(np.float64)
        self._gamma_floor = 1.0 / topo.queues_per_port.astype(np.float64)
        self._managed = classes.prio >= 0
        self._prio_m = classes.prio[self._managed]
        self._prio_all = np.where(self._managed, classes.prio, classes.n_prio)
        self._group_m = classes.group[self._prio_m]

    def reset(self) -> None:
        """Forget history (after a reconnection or a topology change)."""
        self._prev = None
        self._gamma = None

    def update(self, s: Sample) -> Estimates | None:
        """Estimates for the interval ending at ``s``; None for the first sample."""
        prev, self._prev = self._prev, s
        if prev is None:
            return None
        dt = s.t - prev.t
        if not dt > 0:
            # Clock went backwards or stood still: no rate can be computed.
            self._prev = s
            return None
        tx, r1 = counter_delta(s.tx_bytes, prev.tx_bytes)
        drop, r2 = counter_delta(s.drop_bytes, prev.drop_bytes)
        dpk, r3 = counter_delta(s.drop_packets, prev.drop_packets)
        reset = r1 | r2 | r3

        rate = tx * self._bits_per_speed
        rate *= 1.0 / dt  # mu / b
        gamma = None
        if self.p.gamma_ewma < 1.0:  # state: computed every interval
            gamma = self._clamped(rate)
            if self._gamma is not None:
                gamma = self.p.gamma_ewma * gamma + (1.0 - self.p.gamma_ewma) * self._gamma
            self._gamma = gamma

        if s.pool_watermark is not None:
            q_max = s.pool_watermark
        elif s.pool_occupancy is not None:
            q_max = s.pool_occupancy
        else:
            q_max = float(s.watermark.sum())  # upper bound of the pool's peak
        free = max(self.topo.buffer_bytes - q_max, 0.0)
        return Estimates(dt, tx, drop, dpk, rate, free, s.watermark, reset, s, self, gamma)

    def _clamped(self, rate: np.ndarray) -> np.ndarray:
        """gamma from the rate: ABM's artifact sets gamma < 1/queues_per_port or > 1 to 1."""
        if not self.p.gamma_clamp:
            return rate
        return np.where((rate < self._gamma_floor) | (rate > 1.0), 1.0, rate)
