"""`auto-reference`: the previous default controller, kept as the evaluation suite's reference.

An expert who knows the traffic gives the class that carries incast bursts a
high alpha, so that a burst fits in the free buffer, keeps the operator's
alpha for the rest, and lowers the classes that hold buffer without needing
it (long-lived flows) only when the burst class still cannot fit. When every
class looks alike there is nothing to isolate and the expert keeps DT. This
scheme does the same from what a switch exposes per interval — peak
watermarks, tx and drop deltas, the pool's peak — and keeps doing it as the
traffic moves.

* **persistent queues** — a queue is *busy* in an interval when it is
  non-empty and drains at least ``busy_share`` of its round-robin share; one
  that stays congested and busy without a pause for longer than ``long_tau``
  is a long-flow queue (between ``gate`` and ``share_interval``, at least
  ``long_intervals`` intervals: a 100 ms interval does not tell 20 ms of a
  web-search flow from a flow that fills it). It
  never counts towards its class's losses, never gets more than its
  operator's alpha, and gives way first.
* **loss fraction** per class — dropped / (sent + dropped) bytes of the other
  queues of the class, over the last ``loss_tau`` seconds (exponential
  decay). Loss hurts bursts and short flows (timeouts); long flows recover
  from it by fast retransmit.
* **bursty** — a class drops on queues that are otherwise idle: none of its
  queues but the long-flow ones had a mean utilisation (tx / port speed,
  averaged over ``loss_tau`` or the interval if longer) above ``idle_util``
  in the last ``idle_window`` seconds. Web-search and long-flow
  classes that lose because the buffer is busy keep some port busy most of
  the time; incast classes sit idle between their bursts. Where the interval
  resolves a queue's own utilisation (at most ``share_interval``), a class
  also counts as bursty when at least ``idle_share`` of its drops in the
  interval were on queues that were themselves below ``idle_util_q``: a class that bursts
  while a few long-lived flows linger in it from an earlier phase. (At a 1 s
  interval a web-search queue on a quiet port looks idle and drops too, so
  there the test stays per class.) At intervals up to ``gate`` a raise
  reaches only the class's queues that are idle on their own: a busy queue of
  a burst class keeps alpha_p, so nothing needs releasing when it turns busy.
  There "idle on its own" (for the raise and the burst test) is the queue's
  utilisation over ``gate_tau`` (10 ms, at least two intervals), not over
  ``loss_tau``: a web flow that starts on a raised queue loses the raise within
  ~2 ms instead of holding 16x alpha_p for ~20 ms, and a queue whose web flows
  of an earlier phase have ended takes its class's raise within ~15 ms instead
  of ~150 ms — the start of a phase, when the bursts move to that class.
  (At 100 ms a queue idle in the last interval can start a web flow that holds
  the raised alpha for a whole interval: there the class is raised, and
  released when it turns busy.) There, between ``gate`` and
  ``share_interval``, where a raise reaches the whole class, the per-class
  test counts every queue of the class, long-flow ones too, and a queue is
  idle on its own below ``burst_util`` (not ``idle_util_q``), judged on the
  interval's own rate (not on ``loss_tau``'s mean, which kept the web flows of the
  phase before on a new burst class for 2-3 intervals): in (b) under DT
  the incast queues that drop average 4-7% of line rate over the last 100 ms,
  the web-search queues that drop 15-54%. (``burst_frac`` > 0 also asks the
  queue to have dropped that share of its bytes: an incast drops 10-25% of
  what it brings, a web flow 0.3-3%, but light incasts no more than web flows.) A queue
  that drops ``heavy_frac`` of its bytes in the interval bursts however busy it is: at
  (c)'s phase 3 the incast responses drop 5-11% of the bytes of uplink queues that still
  carry phase 2's web flows at 50-80% of line rate, and were counted an interval late.
* **alike** — when three or more classes, more than ``alike`` of those
  carrying traffic, have dropped on idle queues within ``alike_window``, the
  bursts are everywhere (ABM §4.4's mix spread over all queues): nothing to
  isolate, no class is raised above the others. What is left is the one knob
  an expert turns there, the common alpha: while the switch loses at least
  ``loss_min`` of its bytes and some class drops on idle queues, every queue
  goes up together (``alike_raise``; 0 keeps alpha_p, plain DT), by the same
  rule as a class's raise (the biggest burst's need, at least one power of
  two per ``step_gap``, up to ``alpha_cap``), and comes down by the same rule
  after ``hold`` without loss; when the bursts stop being everywhere it goes
  back to alpha_p at once. (ABM §4.4's mix at 1 Gb/s under DT on every class:
  query p99 56 / 37 / 36 / 33 / 33 ms at alpha 0.5 / 1 / 2 / 4 / 8, long flows
  1.0 / 1.2 / 1.6 / 1.7 / 1.7 of alpha 0.5's throughput.)
* **raise** — a bursty class that drops in the interval, with a loss fraction
  of at least ``loss_min`` and ``loss_ratio`` times that of the rest of the
  traffic, goes up at most once per ``step_gap`` seconds (the time TCP needs to show
  the effect), up to ``alpha_cap`` (``alpha_cap_long`` above ``share_interval``:
  over 1 s the drops of ~20 bursts add up, the first lossy interval reads a need
  at the cap, and the raise is held there all along, so the cap is the setting; 8
  left the short flows' tail within DT's spread in (b) at 60% load and 75%
  requests, 16 did not): at least one power of two, or at once to
  the alpha its burst needed. A burst of S bytes (a queue's peak plus its
  drops) beside what the other classes hold is admitted under DT while
  S < alpha (B - Q_others - S), so it needed S / (B - Q_others - S), times
  ``margin`` (the transient bound behind FB Eq. 8 for a burst rate far above
  line rate), rounded up to 2^k. Disproportionate loss is the gate: when all
  classes lose alike, raising one only moves the loss — unless, between ``gate``
  and ``share_interval``, ``ratio_free`` of the buffer was free at the pool's peak:
  a class dropping on idle queues then is held back by its own threshold (in (c)'s
  phase 1 the light bursts lose no more than the web flows beside them). Between ``gate`` and
  ``share_interval`` a raise also needs ``room``: that share of the buffer
  free at the pool's peak. With the pool full no alpha admits more; the class
  is crowded out (often by a raised class holding the buffer), not short of
  alpha.
* **lower** — a raised class that has not been lossy for ``hold`` seconds
  goes down to the smallest power of two that would still have held the
  biggest peak it showed in that time: a queue that peaked at w while the
  pool peaked at Q would have been admitted under alpha >= w / (B - Q)
  (DT's admission rule at the pool's peak, the conservative side since the
  pool was at most Q then), times ``margin``; never below alpha_p. A raised
  class that has been busy (utilisation above ``idle_util`` now, and not
  dropping on idle queues) for ``release`` seconds (at least 2.5 intervals)
  carries sustained traffic now, which a raise would only let hog the buffer:
  it goes back to alpha_p, and is raised again at its next burst. Between ``gate``
  and ``share_interval`` a raised class is calm up to ``calm_util`` (an incast class
  of (c)'s phase 3 keeps a queue at 10-12% of line rate), and one that sends at
  ``hog_util`` or more now, with the pool full at its peak (``room``) while another
  class drops, goes back at once — the class that carried the bursts carries
  web-search now and fills the buffer at 16x — and the full pool it caused does not
  hold back the other class's raise.
* **donors** — a class at ``alpha_cap`` that still drops is out of room, not
  of alpha: the long-flow queues (of every class) halve, once per
  ``step_gap``, never below alpha_p * 2^-max_cut (the operator's floor, in the
  spirit of FB Theorem 3's minimum allocation), and double back, one step per
  hold, once no class at the cap drops. A give-back that is followed by
  starvation within its hold doubles that hold (up to 64 holds), one that
  holds halves it again. Other classes' short-flow queues are never cut: under
  TCP that cost web-search more than the burst gained (worse than DT). Donors
  are cut only at the gated intervals (at most ``gate``); above it the other
  classes are lifted instead (below). Over 1 s a web-search queue that carries
  short flows is busy through the interval like a long flow, and cutting it
  cost the short and the long flows ((b) at 60% load and 75% requests: long
  flows 0.75 of DT's throughput with the cuts, 0.93 without); at 100 ms, with
  the lift, the raised class at its cap kept dropping and the cuts held the
  long-flow queues at alpha_p / 8 in up to 99% of the intervals (long flows
  0.93 of DT, 1.34 without the cuts).
* **headroom** — a class that does not burst, sits at alpha_p and loses at
  least ``loss_min`` of its bytes in an interval whose pool peak left
  ``headroom_free`` of the buffer free is held back by its own threshold, not
  by the buffer (DT at alpha_p = 0.5 with one congested queue leaves two
  thirds of it free): its queues go up one power of two per hold, at most
  ``headroom`` (0: never), and come down one per hold once a hold passes
  without that. None while the bursts are everywhere (the common alpha) or a
  class at its cap still drops (bursts come first); a class that bursts takes
  its raise instead. Above ``gate``, where a burst class's raise comes an
  interval late, room is ``headroom_free_long`` of the buffer: at a quarter,
  the web-search classes' headroom took the room (b)'s bursts needed (query
  p99 14.7 ms against 2.1 at 40% load and 50% requests, 1 s); at half, the
  pool's peak over the interval, bursts included, leaves that much only when
  they are small.
* **lift** — above ``gate`` (100 ms, 1 s), while a class is raised, the classes
  that are not go up ``lift`` powers of two (their headroom level counts towards
  it): with the burst class at 16x its alpha the bursts take buffer that DT's
  free-buffer threshold gave the other classes, and over 100 ms or 1 s a per-queue
  test tells their short flows from their long ones too late to cut only the long
  ones. It is what the expert's static setting does in (b) (the web-search classes at
  1 beside the query class at 2-16 in three of four variants of the wider grid);
  without it the long flows kept 0.93-1.11 of DT's throughput at 1 s and 0.87-1.04
  at 100 ms where the expert's setting keeps 1.24-1.39. At the gated intervals the
  headroom rule gives the same level per class where the pool has room, and the
  donors give way where it has none.
* **safety** — no raised class means plain DT (alpha_p everywhere). Stale
  telemetry (an interval longer than ``stale`` intervals) resets the history
  and returns alpha_p; so does a queue whose counters were reset. Too few
  bytes to measure a loss fraction count as no evidence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from alphad.estimate import Estimates
from alphad.schemes._admission import burst_alpha
from alphad.schemes._base import SchemeContext, numeric_params, register
from alphad.schemes._window import SlidingMax

DEFAULTS: dict[str, float] = {
    "hold": 0.5,  # s without loss before a raised class comes down
    "step_gap": 0.01,  # s between two raises (or donor cuts)
    "long_tau": 0.02,  # s a queue must stay busy to count as a long-flow queue
    "long_intervals": 2.5,  # ... and (gate < interval <= share_interval) this many intervals
    "busy_share": 0.5,  # fraction of its round-robin share a busy queue drains
    "loss_tau": 0.1,  # s, time constant of the loss fractions
    "loss_min": 0.001,  # loss fraction from which a class may be raised
    "loss_ratio": 2.0,  # ... if it loses this many times more than the rest
    "idle_util": 0.1,  # ... and drops on queues that are otherwise this idle (mean tx/speed)
    "idle_window": 0.2,  # s over which a class must have stayed that idle
    "idle_share": 0.8,  # ... or the share of its drops that were on queues idle on their own
    "idle_util_q": 0.2,  # ... (mean tx/speed of the queue)
    "share_interval": 0.1,  # s, longest interval at which the per-queue tests are used
    "burst_util": 0.1,  # ... (above gate) the mean tx/speed of a queue idle on its own
    "burst_frac": 0.0,  # ... (above gate) the share of its bytes it must drop (0: any)
    "room": 0.05,  # ... and a raise needs this share of the buffer free at the pool's peak
    "gate": 0.01,  # s, longest interval at which a raise reaches only the idle queues
    "gate_tau": 0.01,  # s (at least 2 intervals), time constant of the gate's utilisation
    "release": 0.05,  # s a raised class may go without bursting before it drops to alpha_p
    "min_bytes": 15000.0,  # bytes (sent + dropped) below which a loss fraction is unknown
    "margin": 1.25,  # headroom on the alpha that held a peak
    "alpha_cap": 16.0,  # highest alpha a raise reaches; above it long flows give way
    "alpha_cap_long": 8.0,  # ... above share_interval (1 s), where a raise is held all along
    "max_cut": 3,  # long-flow queues never cut below alpha_p * 2^-max_cut (0: never cut;
    # cut only at intervals up to gate)
    "alike": 0.5,  # no raise while more than this share of the active classes (>= 3) burst
    "alike_window": 1.0,  # s ... within this window
    "alike_raise": 1.0,  # ... then every queue goes up together while the switch loses (0: DT)
    "headroom": 1.0,  # levels a non-bursting class that drops with the pool roomy may go up
    "headroom_free": 0.25,  # ... the share of the buffer free at the pool's peak that is room
    "headroom_free_long": 0.5,  # ... above gate, where the pool's peak spans the bursts
    "lift": 1.0,  # levels the classes not raised go up while one is (above gate)
    "stale": 3.0,  # intervals after which telemetry is stale
    "hog_util": 0.25,  # (strict) a raised class this busy now, on a pool without room,
    # while another class drops, goes back to alpha_p at once (0: never)
    "ratio_free": 0.2,  # (strict) a class dropping on idle queues with this share of the
    # buffer free at the pool's peak needs no disproportionate loss (0: always needs it)
    "calm_util": 0.2,  # (strict) a raised class sending at most this is calm
    "heavy_frac": 0.05,  # (strict) a queue dropping this share of its bytes bursts (0: off)
}


def held_alpha(wm: np.ndarray, free: float) -> np.ndarray:
    """alpha that admitted a peak of wm with the pool at its peak: w / (B - Q_peak)."""
    return wm / max(free, 1.0)


def loss_fraction(dropped: np.ndarray, sent: np.ndarray, min_bytes: float) -> np.ndarray:
    """dropped / (sent + dropped); 0 where there are too few bytes to tell."""
    total = dropped + sent
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total >= min_bytes, dropped / np.maximum(total, 1e-300), 0.0)


class Auto:
    name = "auto-reference"

    def __init__(self, ctx: SchemeContext, p: Mapping[str, float]) -> None:
        self.p = {**DEFAULTS, **p}
        topo, cl = ctx.topo, ctx.classes
        self.interval = ctx.interval
        self.B = topo.buffer_bytes
        self.hold = max(self.p["hold"], 3 * ctx.interval)
        self.step_gap = max(self.p["step_gap"], 0.999 * ctx.interval)
        self.alike_window = max(self.p["alike_window"], 3 * ctx.interval)
        self.release = max(self.p["release"], 2.5 * ctx.interval)
        # Gated, a queue's own utilisation is judged over gate_tau, not loss_tau: a web
        # flow starting on a raised idle queue loses the raise within a few ms (at
        # loss_tau it held 16x alpha_p for 20 ms), a queue whose flows ended is idle again.
        self.gate_tau = max(self.p["gate_tau"], 2 * ctx.interval)
        self.per_queue = ctx.interval <= self.p["share_interval"]
        self.gated = self.per_queue and ctx.interval <= self.p["gate"]
        # Per-queue tests, but a raise reaches the whole class (gate < interval <=
        # share_interval, e.g. 100 ms): the stricter burst, room and long-flow tests.
        self.strict = self.per_queue and not self.gated
        self.long_tau = self.p["long_tau"]
        if self.strict:
            self.long_tau = max(self.long_tau, self.p["long_intervals"] * ctx.interval)
        self.alpha_q = ctx.alpha_q.copy()
        self.P = cl.n_prio
        self.managed = cl.prio >= 0
        self.prio0 = np.maximum(cl.prio, 0)
        self._prio_m = cl.prio[self.managed]
        self._port = topo.queue_port
        self._class_idx = [np.flatnonzero(cl.prio == c) for c in range(self.P)]
        self.alpha_p = np.zeros(self.P)
        np.maximum.at(self.alpha_p, self._prio_m, self.alpha_q[self.managed])
        # Over 1 s a raise reads its need from a second of drops (~20 bursts), so it goes
        # to the cap at its first lossy interval and stays there: the cap is the setting.
        cap = min(self.p["alpha_cap"], ctx.quantizer.alpha_max,
                  np.inf if self.per_queue else self.p["alpha_cap_long"])
        with np.errstate(divide="ignore"):
            top = np.floor(np.log2(cap / np.maximum(self.alpha_p, 1e-300)))
        self.max_level = np.maximum(top, 0)
        # Bursts everywhere: the common level's ceiling, the lowest class ceiling.
        self.common_max = float(self.max_level.min())
        # Donors only where the interval tells a long flow from a busy web-search queue
        # in time; above the gate the other classes are lifted instead.
        self.max_cut = int(self.p["max_cut"]) if self.gated else 0
        # Headroom needs more room above the gate, where a raise follows the bursts an
        # interval late: at a quarter of the buffer the web-search classes' headroom took
        # the room (b)'s bursts needed.
        self.headroom_free = self.p["headroom_free" if self.gated else "headroom_free_long"]
        self.t = 0.0
        self.reset_state()

    def reset_state(self) -> None:
        n = len(self.alpha_q)
        self.last_idle = np.full(n, np.nan)  # last time each queue was seen not busy
        self.U = np.zeros(n)  # mean utilisation of each queue over ~loss_tau
        self.U_gate = np.zeros(n)  # ... over ~gate_tau: "idle on its own" where gated
        self.util_max = SlidingMax(self.P, max(self.p["idle_window"], 1.5 * self.interval))
        self.D = np.zeros(self.P)  # decayed dropped bytes per class (non-persistent queues)
        self.X = np.zeros(self.P)  # decayed sent bytes per class
        self.level = np.zeros(self.P)  # alpha = alpha_p * 2^level
        self.common = 0.0  # bursts everywhere: every queue at alpha_q * 2^common
        self.last_common_raise = -np.inf
        self.last_common_lossy = -np.inf
        self.common_use = SlidingMax(1, self.hold)  # level that held the peaks, all classes
        self.last_raise = np.full(self.P, -np.inf)
        self.last_lossy = np.full(self.P, -np.inf)
        self.last_calm = np.full(self.P, -np.inf)
        self.last_burst = np.full(self.P, -np.inf)  # last drop on otherwise idle queues
        self.use_max = SlidingMax(self.P, self.hold)  # alpha that held the class's peaks
        self.cut = 0  # halvings of the donors
        self.last_cut = -np.inf
        self.last_starved = -np.inf
        self.last_restore = -np.inf
        self.cut_hold = self.hold  # grows when a restored donor step was needed again
        self.head = np.zeros(self.P)  # headroom: alpha_p * 2^head on a class's other queues
        self.last_head_need = np.full(self.P, -np.inf)
        self.last_head_step = np.full(self.P, -np.inf)

    def _per_class(self, values: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Sum per class of the masked values."""
        w = np.where(mask, values, 0.0)[self.managed]
        return np.bincount(self._prio_m, weights=w, minlength=self.P)[: self.P]

    def _per_class_max(self, values: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Maximum per class of the masked values (0 for none); values are >= 0."""
        v = np.where(mask, values, 0.0)
        return np.array([v[i].max(initial=0.0) for i in self._class_idx])

    def __call__(self, est: Estimates) -> np.ndarray:
        p = self.p
        dt = est.dt
        self.t += dt
        t = self.t
        if dt > p["stale"] * self.interval:
            self.reset_state()  # a gap: the history says nothing about now
            return self.alpha_q.copy()

        # Long-flow queues: congested and busy without a pause for longer than long_tau.
        share = 1.0 / np.maximum(est.active_per_port[self._port], 1)
        busy = est.nonempty & (est.rate >= p["busy_share"] * share)
        self.last_idle[~busy] = t
        seen_idle = ~np.isnan(self.last_idle)
        persistent = est.congested & (~seen_idle | (t - self.last_idle > self.long_tau))
        other = self.managed & ~persistent

        # Loss fraction per class over loss_tau, and against the rest of the traffic.
        decay = math.exp(-dt / p["loss_tau"])
        self.D = self.D * decay + self._per_class(est.drop_delta, other)
        self.X = self.X * decay + self._per_class(est.tx_delta, other)
        L = loss_fraction(self.D, self.X, p["min_bytes"])
        L_rest = loss_fraction(self.D.sum() - self.D, self.X.sum() - self.X, p["min_bytes"])
        rate = np.minimum(est.rate, 1.0)
        self.U = self.U * decay + rate * (1.0 - decay)
        g = math.exp(-dt / self.gate_tau)
        self.U_gate = self.U_gate * g + rate * (1.0 - g)
        u_now = self._per_class_max(self.U, other)
        # Above `gate` a raise reaches the whole class: a class is idle only if none of its
        # queues, long-flow ones included, was busy (a web-search class whose busy queues
        # hold long flows is not idle; a lingering long flow is the per-queue test's case).
        u_idle = self._per_class_max(self.U, self.managed) if self.strict else u_now
        idle = self.util_max.push(t, u_idle) <= p["idle_util"]
        # ... or, where the interval resolves a queue's utilisation (<= share_interval),
        # most of its drops in this interval were on queues idle on their own: a class
        # that also carries a few long-lived flows still bursts on its idle queues.
        d_now = self._per_class(est.drop_delta, other)
        if self.strict:  # a queue carrying web flows is busier than one between bursts
            lost = est.drop_delta / np.maximum(est.drop_delta + est.tx_delta, 1.0)
            idle_q = ((rate <= p["burst_util"]) & (lost >= p["burst_frac"])) | (
                (p["heavy_frac"] > 0) & (lost >= p["heavy_frac"])
                & (est.drop_delta >= p["min_bytes"]))  # a burst share of its bytes lost
        else:
            idle_q = self.U_gate <= p["idle_util_q"]
        d_idle = self._per_class(est.drop_delta, other & idle_q)
        burst_drops = (d_now > 0) & (d_idle >= p["idle_share"] * d_now) & self.per_queue
        bursty = idle | burst_drops
        # Calm now (no idle_window): what keeps a raise; busy for `release` ends it.
        calm_util = p["calm_util" if self.strict else "idle_util"]
        self.last_calm[(u_now <= calm_util) | burst_drops] = t
        dropping = bursty & (d_now > 0)
        # Classes alike: when three or more classes, most of those carrying traffic, have
        # dropped on otherwise idle queues within alike_window, the bursts are everywhere
        # (ABM §4.4's mix spread over all queues): raising one only moves the loss, so DT.
        self.last_burst[idle & dropping] = t
        n_burst = int((t - self.last_burst <= self.alike_window).sum())
        active = int(((self.X + self.D) >= p["min_bytes"]).sum())
        alike = n_burst >= 3 and n_burst > p["alike"] * active
        if alike:
            self.level[:] = 0
        else:
            self.common = 0.0
        disprop = L >= p["loss_ratio"] * L_rest
        if self.strict and p["ratio_free"] > 0 and est.free >= p["ratio_free"] * self.B:
            disprop |= burst_drops  # with room, held back by its own threshold: raise it
        lossy = dropping & (L >= p["loss_min"]) & disprop & (not alike)
        self.last_lossy[lossy] = t

        # Raise: to the alpha the burst needed, at least one power of two, per step_gap.
        B = self.B
        S = self._per_class_max(np.minimum(est.watermark + est.drop_delta, B), other)
        q_all = min(float(est.watermark[self.managed].sum()), B - est.free)
        q_own = self._per_class(est.watermark, self.managed)
        need_up = burst_alpha(S, B - np.maximum(q_all - q_own, 0.0), p["margin"])
        # Where a raise reaches the whole class (strict), it needs room: with the pool full
        # at its peak no alpha admits more; the class is crowded out (often by a raised
        # class holding the buffer), not short of alpha, and a raise would let it crowd back.
        room = not self.strict or est.free >= p["room"] * B
        if self.strict and p["hog_util"] > 0 and not room:
            # A raised class busy now, filling the pool while another class drops, carries
            # sustained traffic: back to alpha_p at once, and the pool it filled is no
            # reason to hold back the others' raise.
            hog = ((self.level > 0) & ~burst_drops & (d_now.sum() - d_now > 0)
                   & (self._per_class_max(rate, other) >= p["hog_util"]))
            if hog.any():
                self.level[hog] = 0
                room = True
        ready = lossy & (t - self.last_raise >= self.step_gap) & room
        capped = lossy & (self.level >= self.max_level)
        up = ready & (self.level < self.max_level)
        with np.errstate(divide="ignore", invalid="ignore"):
            jump = np.ceil(np.log2(np.minimum(need_up, 2.0**60) / self.alpha_p))
        self.level[up] = np.minimum(np.maximum(self.level[up] + 1, jump[up]), self.max_level[up])
        self.last_raise[up] = t
        self._headroom(t, est, bursty, alike or bool(capped.any()))

        # Bursts everywhere: the common alpha, raised and lowered by the class rule.
        held = held_alpha(est.watermark, est.free)  # the alpha that admitted each peak
        if alike and p["alike_raise"] > 0:
            self._common(t, dropping, jump, held / np.maximum(self.alpha_q, 1e-300), other)

        # Where the interval resolves it, a raise reaches only the queues of the class
        # that are idle on their own: a long-lived flow lingering in a burst class would
        # take the raised alpha as buffer and starve the short flows of other classes.
        raised_q = other & (self.U_gate <= p["idle_util_q"]) if self.gated else other

        # The alpha that held the class's biggest peak over the last hold seconds.
        use = self.use_max.push(t, self._per_class_max(held, raised_q))

        # Lower: after hold without loss, to the smallest 2^k that held what it saw.
        quiet = (self.level > 0) & (t - self.last_lossy > self.hold)
        with np.errstate(divide="ignore"):
            need = np.ceil(np.log2(np.maximum(use * p["margin"], 1e-300) / self.alpha_p))
        self.level = np.where(quiet, np.clip(need, 0, self.level), self.level)
        if not self.gated:  # gated, a busy queue is not raised: nothing to release
            self.level[t - self.last_calm > self.release] = 0

        # Donors: a class at its cap that still drops is out of room.
        if capped.any():
            if t - self.last_restore < self.cut_hold:  # the last give-back was too early
                self.cut_hold = min(2 * self.cut_hold, 64 * self.hold)
            self.last_starved = t
            if t - self.last_cut >= self.step_gap and self.cut < self.max_cut:
                self.cut += 1
                self.last_cut = t
        elif self.cut and min(t - self.last_starved, t - self.last_cut) > self.cut_hold:
            if t - self.last_restore > self.cut_hold and self.last_restore > self.last_starved:
                self.cut_hold = max(self.cut_hold / 2, self.hold)  # the last one held
            self.cut -= 1
            self.last_cut = self.last_restore = t

        lvl = np.where(raised_q, self.level[self.prio0], 0.0)
        head = np.where(self.managed, self.head[self.prio0], 0.0)  # 0 in a raised class
        if not self.gated and (self.level > 0).any():  # lift the classes not raised
            lifted = self.managed & (self.level[self.prio0] == 0)
            head = np.where(lifted, np.maximum(head, self.p["lift"]), head)
        target = self.alpha_q * np.exp2(lvl + head + np.where(self.managed, self.common, 0.0))
        if self.cut:
            donor_q = self.managed & persistent
            target[donor_q] = self.alpha_q[donor_q] * 2.0 ** -self.cut
        if est.reset.any():
            target[est.reset] = self.alpha_q[est.reset]
        return target

    def _headroom(self, t: float, est: Estimates, bursty: np.ndarray, off: bool) -> None:
        """Headroom: a class that does not burst and drops while the pool had room at its
        peak is held back by its own threshold, not by the buffer: up one power of two per
        hold (up to `headroom`), down one per hold once that stops; none while the bursts
        are everywhere or a class at its cap still drops (bursts come first)."""
        p = self.p
        if p["headroom"] <= 0:
            return
        if off:
            self.head[:] = 0
            return
        d = self._per_class(est.drop_delta, self.managed)
        x = self._per_class(est.tx_delta, self.managed)
        roomy = est.free >= self.headroom_free * self.B
        need = (~bursty & (self.level == 0) & roomy
                & (loss_fraction(d, x, p["min_bytes"]) >= p["loss_min"]))
        self.last_head_need[need] = t
        step = t - self.last_head_step >= self.hold
        up = need & step & (self.head < p["headroom"])
        down = ~need & step & (self.head > 0) & (t - self.last_head_need > self.hold)
        self.head[self.level > 0] = 0  # a class that bursts takes its raise instead
        self.head[up] += 1
        self.head[down] -= 1
        self.last_head_step[up | down] = t

    def _common(self, t: float, dropping: np.ndarray, jump: np.ndarray,
                held_level: np.ndarray, short_q: np.ndarray) -> None:
        """The common level when the bursts are everywhere: up while the switch loses and
        a class drops on idle queues, down after hold to what its peaks needed
        (held_level: each queue's held alpha over its alpha_q; short_q: the queues that
        are not long-flow queues)."""
        p = self.p
        L_all = float(loss_fraction(self.D.sum(), self.X.sum(), p["min_bytes"]))
        lossy = bool(dropping.any()) and L_all >= p["loss_min"]
        if lossy:
            self.last_common_lossy = t
            if t - self.last_common_raise >= self.step_gap and self.common < self.common_max:
                need = float(np.max(np.where(dropping, jump, 0.0)))
                self.common = min(max(self.common + 1, need), self.common_max)
                self.last_common_raise = t
        # The level that held the biggest peak of a short-flow queue over the last hold.
        peak = float(np.max(np.where(short_q, held_level, 0.0), initial=0.0))
        use = float(self.common_use.push(t, np.array([peak]))[0])
        if self.common > 0 and t - self.last_common_lossy > self.hold:
            need = math.ceil(math.log2(max(use * p["margin"], 1e-300)))
            self.common = float(min(max(need, 0), self.common))


@register("auto-reference")
def make(ctx: SchemeContext, params: Mapping[str, Any]) -> Auto:
    positive = ("hold", "long_tau", "loss_tau", "margin", "alpha_cap", "alpha_cap_long",
                "idle_util", "release",
                "gate_tau")
    return Auto(ctx, numeric_params("auto-reference", params, DEFAULTS, positive=positive))
