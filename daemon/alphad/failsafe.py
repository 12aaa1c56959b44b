"""The fail-safe: when alphad cannot trust what it sees, the switch goes back to its
baseline (the alpha each queue had before alphad touched it) within one interval.

It engages when
- telemetry is stale: no new sample for ``stale_intervals`` telemetry periods (and at
  least ``min_stale`` seconds), or the backend's clock ran ahead of alphad's by more
  than that (a clock jump: a late loop sees both clocks advance together);
- the backend keeps failing: ``error_intervals`` failed cycles in a row (reads or writes);
- counters are implausible: a queue or pool watermark above ``max_fill`` times the
  pool, a non-finite value, a queue sending more than ``max_line_rate`` times what its
  port can send, or dropping more than the whole switch can receive, in the interval
  (at least ``min_stale`` seconds: a read of many counters is not atomic and a busy
  host or a polling switch spreads it);
and lets the scheme resume after ``recover_intervals`` healthy intervals in a row.

A telemetry period is the longer of alphad's interval and the period at which the
backend refreshes its counters (gNMI ``sample_interval``, SONiC's flex counter poll).
A timestamp going backwards is not a fault: the estimator computes no rate across it
and the next interval goes on from the new clock.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.model import Sample, Topology

__all__ = ["FailSafe", "FailsafeParams", "telemetry_period"]

log = logging.getLogger("alphad")


@dataclass(frozen=True)
class FailsafeParams:
    stale_intervals: float = 5.0  # telemetry older than this many periods is stale
    min_stale: float = 0.1  # ... and older than this (s): a short interval on a busy host
    error_intervals: int = 3  # failed cycles in a row before the fail-safe engages
    recover_intervals: int = 3  # healthy cycles in a row before the scheme resumes
    max_line_rate: float = 2.0  # tx over (dt + telemetry period) above this x line rate
    max_fill: float = 2.0  # a watermark above this x the pool size B

    def __post_init__(self) -> None:
        if not self.stale_intervals >= 1:
            raise ValueError("stale_intervals must be >= 1")
        if not self.min_stale >= 0:
            raise ValueError("min_stale must be >= 0")
        if self.error_intervals < 1 or self.recover_intervals < 1:
            raise ValueError("error_intervals and recover_intervals must be >= 1")
        if not (self.max_line_rate > 1 and self.max_fill >= 1):
            raise ValueError("max_line_rate must be > 1 and max_fill >= 1")


def telemetry_period(backend: Any) -> float:
    """Seconds between two refreshes of the backend's counters (0: every read)."""
    p = getattr(backend, "telemetry_period", None)
    if p is None:
        p = getattr(getattr(backend, "cfg", None), "sample_interval", None)  # gnmi
    try:
        return max(float(p or 0.0), 0.0)
    except (TypeError, ValueError):
        return 0.0


class FailSafe:
    """Health of the telemetry and of the backend, interval by interval.

    ``now`` is the loop's clock: monotonic seconds, or model seconds on a manual clock.
    Methods that change ``active`` return True.
    """

    def __init__(self, topo: Topology, params: FailsafeParams | None = None,
                 interval: float = 0.1, period: float = 0.0) -> None:
        self.topo = topo
        self.p = params or FailsafeParams()
        self.active = False
        self.reason = ""
        self.entries = 0  # times the fail-safe engaged
        self._errors = 0  # failed cycles in a row
        self._healthy = 0  # healthy cycles in a row while active
        self._t: float | None = None  # backend timestamp of the newest sample
        self._fresh_at: float | None = None  # loop time it arrived
        self._started: float | None = None
        self._fill = self.p.max_fill * topo.buffer_bytes
        speed = topo.queue_speed_bps
        # seconds per byte of each queue's port [n]; a port of unknown speed (0) is not checked
        self._per_byte = np.where(speed > 0, 8.0 / np.maximum(speed, 1.0), 0.0)
        self._ingress_bytes = float(topo.port_speed_bps.sum()) / 8.0
        self.set_interval(interval, period)

    def set_interval(self, interval: float, period: float | None = None) -> None:
        if period is not None:
            self.period = period
        self.interval = interval
        self.stale_after = max(self.p.stale_intervals * max(interval, self.period),
                               self.p.min_stale)

    # -- checks ------------------------------------------------------------------------
    def check_sample(self, s: Sample, now: float) -> str | None:
        """A reason to distrust this sample, or None. Cheap: a few reductions."""
        if self._started is None:
            self._started = now
        if self._t is None or s.t != self._t:
            ahead = 0.0
            if self._t is not None and self._fresh_at is not None:
                ahead = (s.t - self._t) - (now - self._fresh_at)  # backend clock vs ours
            self._t, self._fresh_at = s.t, now
            if ahead > self.stale_after:
                return (f"telemetry is stale: the backend's clock jumped {ahead:.3g} s "
                        f"forward (limit {self.stale_after:.3g} s)")
        age = now - (self._fresh_at if self._fresh_at is not None else self._started)
        if age > self.stale_after:
            return f"telemetry is stale: no new sample for {age:.3g} s"
        wm = s.watermark
        if len(wm):
            hi = float(wm.max())
            if not hi <= self._fill or not float(wm.min()) >= 0:  # NaN fails both
                i = int(np.argmax(~np.isfinite(wm) | (wm > self._fill) | (wm < 0)))
                return (f"implausible telemetry: queue {self._name(i)} watermark {wm[i]:.6g} "
                        f"bytes (pool {self.topo.buffer_bytes:.6g} bytes)")
        a = s.alpha
        if len(a) and not (float(a.min()) > 0 and float(a.max()) < np.inf):  # NaN fails
            i = int(np.argmax(~(np.isfinite(a) & (a > 0))))
            return f"implausible telemetry: queue {self._name(i)} alpha in effect {a[i]!r}"
        for name in ("pool_watermark", "pool_occupancy"):
            v = getattr(s, name)
            if v is not None and not 0 <= v <= self._fill:
                return (f"implausible telemetry: {name.replace('_', ' ')} {v:.6g} bytes "
                        f"(pool {self.topo.buffer_bytes:.6g} bytes)")
        return None

    def check_estimates(self, e: Estimates) -> str | None:
        """Counter deltas no switch can produce (after the controller's step)."""
        span = max(e.dt + self.period, self.p.min_stale)
        lim = self.p.max_line_rate * span
        tx = e.tx_delta
        if len(tx):
            busy = tx * self._per_byte  # seconds of line rate the queue sent
            if not float(busy.max()) <= lim:
                i = int(np.argmax(np.where(np.isfinite(busy), busy, np.inf)))
                return (f"implausible telemetry: queue {self._name(i)} sent {tx[i]:.6g} bytes "
                        f"in {e.dt:.3g} s, {busy[i] / e.dt:.3g} times its port's speed")
        drop = e.drop_delta
        dlim = self.p.max_line_rate * span * self._ingress_bytes
        if len(drop) and not float(drop.max()) <= dlim:
            i = int(np.argmax(np.where(np.isfinite(drop), drop, np.inf)))
            return (f"implausible telemetry: queue {self._name(i)} dropped {drop[i]:.6g} bytes "
                    f"in {e.dt:.3g} s, more than the switch can receive")
        return None

    def stale_reason(self, now: float) -> str | None:
        """Staleness alone (when no sample could be read)."""
        ref = self._fresh_at if self._fresh_at is not None else self._started
        if ref is None:
            self._started = ref = now
        age = now - ref
        if age > self.stale_after:
            return f"telemetry is stale: no new sample for {age:.3g} s"
        return None

    # -- transitions ---------------------------------------------------------------------
    def trip(self, reason: str) -> bool:
        """Something is wrong now: engage (or stay engaged)."""
        self._healthy = 0
        if self.active:
            return False
        self.active, self.reason = True, reason
        self.entries += 1
        return True

    def failed(self, what: str, now: float) -> bool:
        """A cycle failed (read or write)."""
        self._errors += 1
        stale = self.stale_reason(now)
        if stale is not None:
            return self.trip(stale)
        if self._errors >= self.p.error_intervals:
            return self.trip(f"the backend keeps failing ({self._errors} intervals in a row): "
                             f"{what}")
        self._healthy = 0
        return False

    def succeeded(self) -> bool:
        """A healthy cycle: fresh, plausible telemetry and every write done."""
        self._errors = 0
        if not self.active:
            return False
        self._healthy += 1
        if self._healthy >= self.p.recover_intervals:
            self.active, self.reason, self._healthy = False, "", 0
            return True
        return False

    def _name(self, i: int) -> str:
        p, q = self.topo.key(i)
        return f"{p}:{q}"
