"""`auto38`: `auto37` whose raise goes to a class's idle queues only; and `auto39`, `auto38`
whose probes of DT take at most one raised interval in ten."""

from __future__ import annotations

import pytest
from test_auto import Switch, decide_alike
from test_auto18 import two_classes
from test_auto37 import ALPHA_P, CAP
from test_oracle18 import loss, lossy_web

import alphad.schemes.superseded  # noqa: F401  (registers the candidates)
from alphad.schemes.auto import DEFAULTS as AUTO_DEFAULTS

IDLE_UTIL = AUTO_DEFAULTS["idle_util"]


def reference(sw) -> None:  # type: ignore[no-untyped-def]
    """Three seconds of DT: query's queue 3 busy (half of line rate) losing 0.1%."""
    for _ in range(30):
        sw.step(util={0: 0.5, 3: 0.5}, drops={3: loss(0.5, 0.001)}, peak={3: 300_000})


def raise_query(sw):  # type: ignore[no-untyped-def]
    """A burst on query's idle queue 1 beside its busy queue 3."""
    return sw.step(util={1: 0.005, 3: 0.5}, drops={1: 20_000, 3: loss(0.5, 0.001)},
                   peak={1: 60_000, 3: 300_000})


def test_a_burst_raises_its_class_idle_queues_to_the_cap_and_not_its_busy_ones() -> None:
    a, b = two_classes("auto38"), two_classes("auto37")
    reference(a)
    reference(b)
    out, told = raise_query(a), raise_query(b)
    assert out[1] == told[1] == CAP
    assert out[3] == ALPHA_P < told[3] == CAP  # `auto37` raises the busy queue too
    assert out[0] == out[2] == ALPHA_P


def test_a_busy_queues_loss_at_its_own_threshold_is_not_the_raises() -> None:
    # query raised; its busy queue 3 then loses 5% at a peak over alpha_p * free (400 kB
    # beside 600 kB free), while its idle queue 1, the one raised, holds nothing
    ours, theirs = two_classes("auto38"), two_classes("auto37")
    for sw in (ours, theirs):
        reference(sw)
        raise_query(sw)
        for _ in range(15):  # 1.5 s: under HOLD_S, no decay
            sw.step(util={0: 0.5, 1: 0.005, 3: 0.5}, drops={3: loss(0.5, 0.05)},
                    peak={3: 400_000})
    assert ours.sch.harms == 0 and ours.sch.level[1] > 0  # not a use of the raise
    assert theirs.sch.harms >= 1 and theirs.sch.level[1] == 0  # its queue 3 took the raise


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_busy_queue_is_ever_written_above_its_operators_alpha(seed: int) -> None:
    sw = two_classes("auto38")
    raised = 0
    for step in lossy_web(seed, n=600):
        out = sw.step(**step)
        busy = [q for q, u in step["util"].items() if u >= IDLE_UTIL]
        assert (out[busy] == ALPHA_P).all()
        raised += bool((out > ALPHA_P).any())
    assert raised > 30  # bursts raised the query class's idle queues
    assert sw.sch.harms >= 1  # web's losses tripped the safety rule


@pytest.mark.parametrize("seed", [1, 2])
def test_auto39_writes_auto38s_alphas_at_100_ms(seed: int) -> None:
    # one probe in PROBE_S (1 s) is one interval in ten: the same probes
    a, b = two_classes("auto39"), two_classes("auto38")
    assert decide_alike(a, b, lossy_web(seed, n=600)) > 30


def probes_in_a_raise(scheme: str, n: int) -> int:
    """Intervals of 1 s run as DT while query is raised by a burst every second, and
    nothing else loses."""
    sw = Switch([("web", [0], 0.5, None), ("query", [1], 0.5, None)], interval=1.0,
                scheme=scheme)
    for _ in range(3):  # the reference: three seconds of DT
        sw.step(util={0: 0.5}, dt=1.0)
    dt_runs = 0
    for _ in range(n):
        out = sw.step(util={0: 0.5, 1: 0.005}, drops={1: 600_000}, peak={1: 600_000},
                      dt=1.0)
        dt_runs += out[1] == ALPHA_P
    return dt_runs


def test_auto39_probes_once_in_ten_intervals_at_1_s_where_auto38_probes_every_other() -> None:
    assert probes_in_a_raise("auto38", 20) >= 9
    assert 1 <= probes_in_a_raise("auto39", 20) <= 2
