"""`auto`: find, from telemetry, the per-class alpha an expert would set.

An expert who knows the traffic gives the class that carries incast bursts a
high alpha, so that a burst fits in the free buffer, and lowers the classes
that hold buffer without needing it (long-lived flows), so that the room is
there. When every class looks alike there is nothing to isolate, and the
expert keeps DT. This scheme does the same from what a switch exposes per
interval — peak watermarks, tx and drop deltas, the pool's peak — and keeps
doing it as the traffic moves.

* **persistent queues** — a queue is *busy* in an interval when it is
  non-empty and drains at least ``busy_share`` of its round-robin share; one
  that stays busy without a pause for longer than ``long_tau`` is a long-flow
  queue. It never counts towards its class's losses and it never gets a boost.
* **loss fraction** per class — dropped / (sent + dropped) bytes of the other
  queues of the class, over the last ``loss_tau`` seconds (exponential
  decay). Loss hurts bursts and short flows (timeouts); long flows recover
  from it by fast retransmit, which keeps their loss fraction low.
* **protected classes** — a class starts being protected when its loss
  fraction is at least ``loss_min`` and ``loss_ratio`` times that of the rest
  of the traffic, and it has bursts that its own alpha_p could not hold. It
  stays protected while such bursts keep coming, and for ``hold`` seconds
  after the last one.
* **burst alpha** — a protected class remembers its largest recent burst S
  (peak + dropped bytes of one queue in one interval). A queue of length S is
  admitted under DT while S < alpha (B - Q_others - S), so the class gets
  alpha = S / (B - Q_others - S) times ``margin`` (the transient bound behind
  FB Eq. 8 for a burst rate far above line rate), rounded up to 2^k, never
  below alpha_p and never lowered while the class stays protected; it applies
  to every queue of the class, since the next burst may land on another port.
  If the class still drops under that alpha, a feedback gain doubles it.
* **donors** — while a class is protected, every other class and every
  long-flow queue gives way: their alpha halves in each interval in which a
  protected class still drops or cannot fit its bursts, never below
  alpha_p * 2^-max_cut (the operator's floor, in the spirit of FB Theorem 3's
  minimum allocation), and doubles back, one step per interval, once no
  class is protected. Long flows keep their throughput with a shorter
  standing queue; the short flows that share their queues wait less.
* **safety** — no protected class means plain DT (alpha_p everywhere).
  Stale telemetry (an interval longer than ``stale`` intervals) resets the
  history and returns alpha_p; so does a queue whose counters were reset.
  Too few bytes to measure a loss fraction count as no evidence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, register

DEFAULTS: dict[str, float] = {
    "hold": 0.5,  # s a protected class keeps its burst memory / donors stay cut
    "long_tau": 0.02,  # s a queue must stay busy to count as a long-flow queue
    "busy_share": 0.5,  # fraction of its round-robin share a busy queue drains
    "loss_tau": 0.1,  # s, time constant of the loss fractions
    "loss_min": 0.001,  # loss fraction from which a class may be protected
    "loss_ratio": 2.0,  # ... if it loses this many times more than the rest
    "min_bytes": 15000.0,  # bytes (sent + dropped) below which a loss fraction is unknown
    "margin": 1.25,  # headroom on the burst alpha
    "max_cut": 3,  # donors never below alpha_p * 2^-max_cut
    "stale": 3.0,  # intervals after which telemetry is stale
}


def burst_alpha(S: np.ndarray, free: np.ndarray, margin: float) -> np.ndarray:
    """alpha that admits a burst of S beside occupancy B - free: S / (free - S)."""
    room = free - S * margin
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(room > 0, S * margin / np.maximum(room, 1e-9), np.inf)


def pow2_ceil(a: np.ndarray) -> np.ndarray:
    """Round up to a power of two (the hardware's alpha set)."""
    with np.errstate(divide="ignore"):
        return np.exp2(np.ceil(np.log2(np.maximum(a, 1e-300))))


def loss_fraction(dropped: np.ndarray, sent: np.ndarray, min_bytes: float) -> np.ndarray:
    """dropped / (sent + dropped); 0 where there are too few bytes to tell."""
    total = dropped + sent
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total >= min_bytes, dropped / np.maximum(total, 1e-300), 0.0)


class Auto:
    name = "auto"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        self.p = {**DEFAULTS, **p}
        topo, cl = ctx.topo, ctx.classes
        self.B = topo.buffer_bytes
        self.interval = ctx.interval
        self.hold = max(self.p["hold"], 3 * ctx.interval)
        self.alpha_q = ctx.alpha_q.copy()
        self.alpha_max = ctx.quantizer.alpha_max
        self.P = cl.n_prio
        self.managed = cl.prio >= 0
        self.prio0 = np.maximum(cl.prio, 0)
        self._prio_m = cl.prio[self.managed]
        self._port = topo.queue_port
        self.alpha_p = np.zeros(self.P)
        np.maximum.at(self.alpha_p, self._prio_m, self.alpha_q[self.managed])
        self.t = 0.0
        self.reset_state()

    def reset_state(self) -> None:
        n = len(self.alpha_q)
        self.last_idle = np.full(n, np.nan)  # last time each queue was seen not busy
        self.D = np.zeros(self.P)  # decayed dropped bytes per class (non-persistent queues)
        self.X = np.zeros(self.P)  # decayed sent bytes per class
        self.S = np.zeros(self.P)  # remembered burst size per class
        self.last_burst = np.full(self.P, -np.inf)  # last burst that alpha_p could not hold
        self.protected = np.zeros(self.P, dtype=bool)
        self.gain = np.ones(self.P)
        self.last_miss = np.full(self.P, -np.inf)  # last drop under the boosted alpha
        self.boost = np.zeros(self.P)  # burst alpha in force (0: none)
        self.cut = 0  # halvings of the donors

    def _per_class(self, values: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(self.P)
        np.add.at(out, self._prio_m, np.where(mask, values, 0.0)[self.managed])
        return out

    def __call__(self, est: Estimates) -> np.ndarray:
        p = self.p
        dt = est.dt
        self.t += dt
        t = self.t
        if dt > p["stale"] * self.interval:
            self.reset_state()  # a gap: the history says nothing about now
            return self.alpha_q.copy()

        # Long-flow queues: busy without a pause for longer than long_tau.
        share = 1.0 / np.maximum(est.active_per_port[self._port], 1)
        busy = est.nonempty & (est.rate >= p["busy_share"] * share)
        self.last_idle[~busy] = t
        seen_idle = ~np.isnan(self.last_idle)
        persistent = est.congested & (~seen_idle | (t - self.last_idle > p["long_tau"]))
        other = self.managed & ~persistent

        # Loss fraction per class over loss_tau, and against the rest of the traffic.
        decay = math.exp(-dt / p["loss_tau"])
        self.D = self.D * decay + self._per_class(est.drop_delta, other)
        self.X = self.X * decay + self._per_class(est.tx_delta, other)
        L = loss_fraction(self.D, self.X, p["min_bytes"])
        L_rest = loss_fraction(self.D.sum() - self.D, self.X.sum() - self.X, p["min_bytes"])

        # Bursts: the largest (peak + dropped) of a queue of the class this interval.
        size = np.minimum(np.where(other, est.watermark + est.drop_delta, 0.0), self.B)
        S_now = np.zeros(self.P)
        np.maximum.at(S_now, self._prio_m, size[self.managed])
        q_all = min(float(est.watermark[self.managed].sum()), self.B - est.free)
        q_own = self._per_class(est.watermark, self.managed)
        free = self.B - np.maximum(q_all - q_own, 0.0)  # what the others leave
        need_now = burst_alpha(S_now, free, p["margin"])
        big = need_now > self.alpha_p  # a burst alpha_p could not have held
        self.last_burst[big] = t
        aged = (t - self.last_burst) > self.hold
        self.S = np.where(big, np.maximum(S_now, self.S), np.where(aged, self.S * decay, self.S))

        # Protection: enters on loss, lasts while big bursts keep coming.
        enter = (L >= p["loss_min"]) & (L >= p["loss_ratio"] * L_rest) & big
        self.protected = (self.protected | enter) & ~aged

        # Feedback: drops under the boost in force double the burst alpha.
        boosted_q = other & (self.boost[self.prio0] > 0) & \
            (est.sample.alpha >= self.boost[self.prio0])
        missed = self._per_class(est.drop_delta, boosted_q) > 0
        self.gain[missed] = np.minimum(self.gain[missed] * 2.0, self.alpha_max)
        self.last_miss[missed] = t
        calm = (t - self.last_miss) > self.hold
        self.gain[calm] = np.maximum(self.gain[calm] / 2.0, 1.0)

        need = burst_alpha(self.S, free, p["margin"]) * self.gain
        dropping = self._per_class(est.drop_delta, other) > 0
        short = self.protected & (dropping | ~np.isfinite(need) | (need > self.alpha_max))
        # Like an operator's setting, the boost only rises while the class is protected.
        self.boost = np.where(self.protected,
                              np.maximum(pow2_ceil(np.minimum(need, self.alpha_max)),
                                         np.maximum(self.alpha_p, self.boost)), 0.0)

        # Donors give way while a protected class falls short; back once none is protected.
        if short.any():
            self.cut = min(self.cut + 1, int(p["max_cut"]))
        elif self.cut and not self.protected.any():
            self.cut -= 1

        target = self.alpha_q.copy()
        prot_q = self.protected[self.prio0] & other
        target[prot_q] = np.maximum(self.alpha_q[prot_q], self.boost[self.prio0[prot_q]])
        if self.cut:
            donor_q = self.managed & ~prot_q
            target[donor_q] = self.alpha_q[donor_q] * 2.0 ** -self.cut
        if est.reset.any():
            target[est.reset] = self.alpha_q[est.reset]
        return target


@register("auto")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto:
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"scheme auto: unknown parameter {unknown[0]!r} "
                         f"(known: {', '.join(sorted(DEFAULTS))})")
    out: dict[str, float] = {}
    for k, v in params.items():
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
            raise ValueError(f"scheme auto: {k} must be a non-negative number (got {v!r})")
        out[k] = float(v)
    for k in ("hold", "long_tau", "loss_tau", "margin"):
        if k in out and out[k] <= 0:
            raise ValueError(f"scheme auto: {k} must be > 0")
    return Auto(ctx, out)
