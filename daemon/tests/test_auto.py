"""The default scheme `auto`: each rule of its docstring, on hand-made intervals."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator

import numpy as np
import pytest
from conftest import make_sample, make_topology

from alphad import schemes
from alphad.controller import build_classes
from alphad.estimate import Estimator
from alphad.quantize import Quantizer

SPEED_BPS = 10e9  # make_topology's port speed
DT = 0.1  # the interval of these tests, s


class Switch:
    """Feeds `auto` (or ``scheme``) one interval at a time: per queue, bytes sent and
    dropped, and its peak."""

    def __init__(self, prios, interval: float = DT, ports: int = 2, queues: int = 2,
                 buffer_bytes: float = 1e6, scheme: str = "auto", strict: tuple = (),
                 **params):  # type: ignore[no-untyped-def]
        self.topo = make_topology(ports, queues, buffer_bytes=buffer_bytes)
        self.cl = build_classes(self.topo, prios, strict=strict)
        ctx = schemes.SchemeContext(self.topo, self.cl, Quantizer(), interval)
        self.sch = schemes.get(scheme)(ctx, params)
        self.est = Estimator(self.topo, self.cl)
        self.t = 0.0
        self.tx = np.zeros(self.topo.n, dtype=np.uint64)
        self.dr = np.zeros(self.topo.n, dtype=np.uint64)
        self.est.update(make_sample(self.topo, 0.0, alpha=self.cl.alpha_q()))

    def step(self, util: dict[int, float] | None = None, drops: dict[int, float] | None = None,
             peak: dict[int, float] | None = None, dt: float = DT,
             pool: float | None = None) -> np.ndarray:
        """One interval: queue q sends util[q] of line rate, drops drops[q] bytes, peaks at
        peak[q] (default: what it dropped)."""
        self.t += dt
        n = self.topo.n
        wm = np.zeros(n)
        for q, b in (drops or {}).items():
            self.dr[q] += np.uint64(b)
            wm[q] = b
        for q, u in (util or {}).items():
            self.tx[q] += np.uint64(u * SPEED_BPS / 8 * dt)
        for q, w in (peak or {}).items():
            wm[q] = w
        e = self.est.update(make_sample(self.topo, self.t, alpha=self.cl.alpha_q(), wm=wm,
                                        tx=self.tx.copy(), drops=self.dr.copy(),
                                        pool_wm=pool if pool is not None else float(wm.sum())))
        assert e is not None
        return self.sch(e)


def burst(q: int, size: float = 200_000, dropped: float = 50_000) -> dict:  # type: ignore[type-arg]
    """An incast on idle queue q: 0.5% of line rate (625 kB) sent, ``dropped`` lost at a peak
    of ``size``."""
    return {"util": {q: 0.005}, "drops": {q: dropped}, "peak": {q: size}}


def web_and_bursts(seed: int, n: int = 300, web_busy: bool = False) -> Iterator[dict]:  # type: ignore[type-arg]
    """``n`` random intervals for `two_classes`-shaped switches: the web queues (0, 2) send up
    to half of line rate, the query queues (1, 3) up to 0.5%, and three intervals in ten
    a burst hits a query queue (with ``web_busy``, beside web's port-0 queue at 50%)."""
    rng = random.Random(seed)
    for _ in range(n):
        step: dict = {"util": {q: (0.5 if q % 2 == 0 else 0.005) * rng.random()  # type: ignore[type-arg]
                               for q in range(4)}}
        if rng.random() < 0.3:
            step.update(burst(rng.choice([1, 3]), size=rng.choice([100_000.0, 400_000.0]),
                              dropped=rng.choice([20_000.0, 200_000.0])))
            if web_busy:
                step["util"][0] = 0.5
        yield step


def decide_alike(a: Switch, b: Switch, steps: Iterable[dict]) -> int:  # type: ignore[type-arg]
    """Feed both switches the same intervals and assert they write the same alphas; returns
    how many intervals raised some queue above its operator's alpha."""
    raised = 0
    for step in steps:
        out = a.step(**step)
        np.testing.assert_array_equal(out, b.step(**step))
        raised += bool((out > a.cl.alpha_q()).any())
    return raised


def two_classes(**params):  # type: ignore[no-untyped-def]
    # queues 0, 2: class "web" (port 0 and 1, queue 0); 1, 3: class "query"
    return Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], **params)


def test_a_lossy_burst_on_idle_queues_raises_its_class_to_what_it_needed() -> None:
    sw = two_classes()
    out = sw.step(**burst(1))
    # S = 250 kB in an empty 1 MB pool: 1.25 S / (B - 1.25 S) = 0.45 < 0.5: one level up
    assert out[1] == out[3] == 1.0
    assert out[0] == out[2] == 0.5  # the other class keeps the operator's alpha
    more = sw.step(**burst(1, size=400_000, dropped=200_000))
    # S = 600 kB: 1.25 S / (B - 1.25 S) = 3 = 0.5 * 6 -> 0.5 * 2^3
    assert more[1] == 4.0
    big = sw.step(**burst(1, size=400_000, dropped=400_000))
    assert big[1] == 16.0  # no alpha admits 1.25 S >= B: the cap


def test_no_raise_for_the_small_share_tcp_loses() -> None:
    sw = two_classes()
    # an idle queue that loses 1% of what it was offered: web flows, not a burst
    out = sw.step(util={1: 0.05}, drops={1: 63_000}, peak={1: 100_000})
    assert out[1] == 0.5 and out[0] == 0.5
    # the same loss as 3% of its bytes is a burst
    out = sw.step(util={1: 0.01}, drops={1: 40_000}, peak={1: 100_000})
    assert out[1] == 1.0


def test_busy_queues_do_not_count_as_bursts() -> None:
    sw = two_classes()
    out = sw.step(util={1: 0.5}, drops={1: 50_000}, peak={1: 200_000})
    assert out[1] == 0.5


def test_a_queue_starved_by_a_saturated_port_is_not_a_burst() -> None:
    sw = two_classes()
    # port 0 sends 95% of line rate from queue 0: queue 1's loss is to bandwidth
    starved = {"util": {0: 0.95, 1: 0.005}, "drops": {1: 50_000}, "peak": {1: 200_000}}
    assert sw.step(**starved)[1] == 0.5
    # the same loss beside a port with capacity to spare is a burst
    spare = {"util": {0: 0.5, 1: 0.005}, "drops": {1: 50_000}, "peak": {1: 200_000}}
    assert sw.step(**spare)[1] == 1.0


def test_decay_one_level_per_hold_once_the_peaks_allow() -> None:
    sw = two_classes(hold=0.3)
    sw.step(**burst(1, size=400_000, dropped=400_000))  # to the cap, 16 = 0.5 * 2^5
    levels = [sw.step(util={1: 0.01})[1] for _ in range(20)]
    assert levels[0] == 16.0  # held
    assert levels[-1] == 0.5  # back to the operator's alpha
    steps = [a for a, b in itertools.pairwise(levels) if b != a]
    assert all(b == a / 2 for a, b in itertools.pairwise(levels) if b != a)
    assert len(steps) == 5


def test_peaks_that_still_need_the_raise_hold_it() -> None:
    sw = two_classes(hold=0.3)
    first = sw.step(**burst(1))
    assert first[1] == 1.0
    # the bursts go on without loss, peaking at 350 kB: alpha 0.5 admits 333 kB at most
    for _ in range(10):
        out = sw.step(util={1: 0.005}, peak={1: 350_000})
    assert out[1] == 1.0
    for _ in range(10):  # peaks that alpha 0.5 admits: down one level after the hold
        out = sw.step(util={1: 0.005}, peak={1: 200_000})
    assert out[1] == 0.5


def test_safety_backs_off_when_the_raise_costs_the_other_class() -> None:
    sw = two_classes(hold=0.3)
    web = {0: 100_000}  # the web class's busy queue: 62.5 MB sent an interval
    for _ in range(5):  # under DT it loses 0.1%
        sw.step(util={0: 0.5}, drops={0: 62_500}, peak=web)
    raised = sw.step(util={0: 0.5, 1: 0.005}, drops={0: 62_500, 1: 50_000},
                     peak={**web, 1: 200_000})
    assert raised[1] == 1.0
    # the raised query class holds the buffer; the web class now loses 0.25%
    levels = [sw.step(util={0: 0.5, 1: 0.005}, drops={0: 156_250}, peak=web)[1]
              for _ in range(6)]
    assert levels[-1] == 0.5  # backed off once its average loss passed twice DT's
    assert levels[0] == 1.0  # ... not on the first lossy interval


def test_the_loss_under_dt_is_not_taken_from_intervals_with_a_raise() -> None:
    sw = two_classes(hold=1.0)
    web = {0: 100_000}
    for _ in range(20):  # under DT the web class loses 0.1%
        sw.step(util={0: 0.5}, drops={0: 62_500}, peak=web)
    harm = {"util": {0: 0.5, 1: 0.005}, "drops": {0: 312_500}, "peak": web}  # it loses 0.5%

    def raise_then_harm(web_drop: float) -> list[float]:
        out = [sw.step(util={0: 0.5, 1: 0.005}, drops={0: web_drop, 1: 50_000},
                       peak={**web, 1: 200_000})[1]]
        while out[-1] > 0.5 and len(out) < 8:  # harm until the raise is backed off
            out.append(sw.step(**harm)[1])
        return out

    first = raise_then_harm(62_500)
    assert first[0] == 1.0 and first[-1] == 0.5  # the harm backs the raise off
    # a new burst right after: judged against the loss under DT, not against an average
    # of the intervals the raise harmed, so the harm backs it off as fast (not by decay)
    second = raise_then_harm(312_500)
    assert second[0] == 1.0 and second[-1] == 0.5 and len(second) <= 4


def test_the_raised_class_own_bursts_are_not_harm() -> None:
    sw = two_classes(hold=0.3)
    sw.step(**burst(1))
    for _ in range(5):  # its bursts keep losing on idle queues: it goes up, not down
        out = sw.step(**burst(1, size=300_000, dropped=60_000))
    assert out[1] >= 2.0


def test_stale_telemetry_and_counter_resets_return_the_operator_alpha() -> None:
    sw = two_classes()
    assert sw.step(**burst(1))[1] == 1.0
    out = sw.step(dt=0.5)  # 5 intervals without a sample
    assert (out == 0.5).all()
    assert sw.step(**burst(1))[1] == 1.0
    sw.tx[:] = 0  # a counter reset
    assert (sw.step() == 0.5).all()


def test_the_cap_and_unmanaged_queues() -> None:
    sw = Switch([("query", [1], 8.0, None)], alpha_cap=16.0)
    out = sw.step(**burst(1, size=400_000, dropped=400_000))
    assert out[1] == 16.0  # one level above 8
    assert out[0] == sw.cl.alpha_q()[0] == 0.0  # queue 0 is not managed: untouched


@pytest.mark.parametrize("bad", [{"hold": 0}, {"nope": 1}, {"margin": -1}])
def test_bad_parameters_name_the_key(bad: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=next(iter(bad))):
        two_classes(**bad)
