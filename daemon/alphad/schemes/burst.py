"""`burst`: the first `auto` design — burst memory and long-flow headroom per queue.

Kept as a reference: it does well with open-loop sources (the virtual ASIC) but,
with TCP, web-search queues are rarely busy without a pause, so it takes them
for bursty classes and raises their alpha (docs/fidelity.md). See `auto`.


An expert who knows the traffic gives the class that carries incast bursts a
high alpha (so a burst fits in the free buffer) and keeps the classes of
long-lived flows low enough to leave that room. This scheme does the same from
what a switch exposes per interval (peak watermark, tx and drop deltas) and
keeps doing it as the traffic moves:

* **long-flow detection** — a queue is *busy* in an interval when it is
  non-empty and drains at least ``busy_share`` of its round-robin share. A
  queue busy for longer than ``long_tau`` without a pause is a long-flow queue.
* **burst detection** — a queue that has been seen idle (so it is not a long
  flow whose start we missed) and is not a long-flow queue had a burst of
  about ``watermark + dropped`` bytes when it peaks. A class remembers its
  largest recent burst S_p for ``hold`` seconds, then forgets it
  geometrically.
* **burst alpha** — the smallest alpha that lets a burst of S_p fit beside the
  long flows' occupancy Q_L: a queue of length S under DT is admitted while
  S < alpha (B - Q_L - S), so alpha_H = S / (B - Q_L - S) (the transient bound
  behind FB Eq. 8 with a burst rate far above line rate), times ``margin``,
  rounded up to 2^k. It applies to every non-long queue of the class, since
  the next burst may land on another port, and never goes below alpha_p.
  If the class still drops under that alpha, a feedback gain doubles it; the
  gain relaxes after ``hold`` seconds without such drops.
* **long-flow headroom** — long-flow queues get the alpha that holds their DT
  occupancy B n a / (1 + n a) to what the remembered bursts leave free,
  B - S (1 + 1/alpha_H) (FB Eq. 6-8's minimum-allocation reasoning), never
  above alpha_p nor below alpha_p * 2^-max_cut; with no burst remembered they
  keep alpha_p.
* **safety** — stale telemetry (an interval longer than ``stale`` intervals)
  resets the history and returns the operator's alpha (plain DT); a queue
  whose counters were reset gets alpha_p for that interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._base import SchemeContext, numeric_params, register

DEFAULTS: dict[str, float] = {
    "hold": 5.0,  # s a class keeps its burst memory after the last burst
    "long_tau": 0.02,  # s a queue must stay busy to count as a long-flow queue
    "busy_share": 0.5,  # fraction of its RR share a queue must drain to be busy
    "margin": 1.25,  # headroom on the burst alpha
    "max_cut": 4,  # long-flow alpha never below alpha_p * 2^-max_cut
    "stale": 3.0,  # intervals after which telemetry is stale
}


def burst_alpha(S: np.ndarray, free: np.ndarray, margin: float) -> np.ndarray:
    """alpha that admits a burst of S beside occupancy B - free: S / (free - S)."""
    room = free - S * margin
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(room > 0, S * margin / np.maximum(room, 1e-9), np.inf)
    return a


def pow2_ceil(a: np.ndarray) -> np.ndarray:
    """Round up to a power of two (the hardware's alpha set)."""
    with np.errstate(divide="ignore"):
        return np.exp2(np.ceil(np.log2(np.maximum(a, 1e-300))))


class Burst:
    name = "burst"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        self.p = {**DEFAULTS, **p}
        topo, cl = ctx.topo, ctx.classes
        self.B = topo.buffer_bytes
        self.interval = ctx.interval
        self.alpha_q = ctx.alpha_q.copy()
        self.alpha_max = ctx.quantizer.alpha_max
        self.P = cl.n_prio
        self.managed = cl.prio >= 0
        self.prio0 = np.maximum(cl.prio, 0)
        self._prio_m = cl.prio[self.managed]
        self._port = topo.queue_port
        self.floor = self.alpha_q * 2.0 ** -self.p["max_cut"]
        self.t = 0.0
        self.reset_state(topo.n)

    def reset_state(self, n: int | None = None) -> None:
        n = len(self.alpha_q) if n is None else n
        self.last_idle = np.full(n, np.nan)  # last time each queue was seen not busy
        self.S = np.zeros(self.P)  # remembered burst size per class (bytes)
        self.last_burst = np.full(self.P, -np.inf)
        self.gain = np.ones(self.P)  # feedback multiplier of the burst alpha
        self.last_drop = np.full(self.P, -np.inf)  # last drop under the boosted alpha
        self.boost = np.zeros(self.P)  # burst alpha in force per class (0 = none)

    def __call__(self, est: Estimates) -> np.ndarray:
        p = self.p
        dt = est.dt
        self.t += dt
        t = self.t
        if dt > p["stale"] * self.interval:
            # Safety: after a gap the history says nothing about now.
            self.reset_state()
            return self.alpha_q.copy()

        # Long flows: busy without a pause for longer than long_tau.
        share = 1.0 / np.maximum(est.active_per_port[self._port], 1)
        busy = est.nonempty & (est.rate >= p["busy_share"] * share)
        self.last_idle[~busy] = t
        seen_idle = ~np.isnan(self.last_idle)
        is_long = est.congested & (~seen_idle | (t - self.last_idle > p["long_tau"]))

        # Bursts: peaks (or losses) of queues known not to be long flows.
        burst_q = self.managed & seen_idle & ~is_long & (est.nonempty | (est.drop_delta > 0))
        size = np.minimum(np.where(burst_q, est.watermark + est.drop_delta, 0.0), self.B)
        S_now = np.zeros(self.P)
        np.maximum.at(S_now, self._prio_m, size[self.managed])
        aged = (t - self.last_burst) > p["hold"]
        self.S = np.maximum(S_now, np.where(aged, self.S * math.exp(-dt / p["hold"]), self.S))
        self.last_burst[S_now > 0] = t

        # Feedback only on drops that happened under the boosted alpha.
        boosted_q = burst_q & (est.sample.alpha >= self.boost[self.prio0]) & \
            (self.boost[self.prio0] > 0)
        dropped = np.zeros(self.P)
        np.add.at(dropped, self._prio_m, np.where(boosted_q, est.drop_delta, 0.0)[self.managed])
        hit = dropped > 0
        self.gain[hit] = np.minimum(self.gain[hit] * 2.0, self.alpha_max)
        self.last_drop[hit] = t
        calm = (t - self.last_drop) > p["hold"]
        self.gain[calm] = np.maximum(self.gain[calm] / 2.0, 1.0)

        # Burst alpha per class, beside the long flows' occupancy.
        q_long = float(est.watermark[is_long].sum())
        need = burst_alpha(self.S, np.full(self.P, self.B - q_long), p["margin"]) * self.gain
        has_burst = self.S > 0
        alpha_p = np.zeros(self.P)
        np.maximum.at(alpha_p, self._prio_m, self.alpha_q[self.managed])
        self.boost = np.where(has_burst, np.maximum(pow2_ceil(np.minimum(need, self.alpha_max)),
                                                    alpha_p), 0.0)

        target = self.alpha_q.copy()
        m = self.managed & ~is_long
        target[m] = np.maximum(self.alpha_q[m], self.boost[self.prio0[m]])

        # Long flows leave room for the largest remembered burst.
        lm = self.managed & is_long
        if has_burst.any() and lm.any():
            k = int(np.argmax(self.S))
            reserve = self.S[k] * (1.0 + 1.0 / max(self.boost[k], 1e-9)) * p["margin"]
            q_t = max(self.B - reserve, 0.0)
            n_l = int(lm.sum())
            a_l = q_t / (n_l * max(self.B - q_t, 1e-9))
            target[lm] = np.clip(2.0 ** np.floor(np.log2(max(a_l, 1e-300))), self.floor[lm],
                                 self.alpha_q[lm])

        # Safety: queues whose counters were reset this interval get plain DT.
        if est.reset.any():
            target[est.reset] = self.alpha_q[est.reset]
        return target


@register("burst")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Burst:
    return Burst(ctx, numeric_params("burst", params, DEFAULTS, positive=("hold", "long_tau")))
