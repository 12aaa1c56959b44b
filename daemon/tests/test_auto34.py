"""`auto34`: `auto18` whose safety rule's reference is measured again, one interval in
PROBE_INTERVALS run as DT while a raise holds."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from test_auto import DT, two_classes, web_and_bursts
from test_auto20 import has_auto18s_parameters
from test_oracle18 import SMALL, web_loses

from alphad.schemes.auto18 import HOLD_S
from alphad.schemes.auto34 import PROBE_INTERVALS as EVERY


def test_its_parameters_are_auto18s() -> None:
    has_auto18s_parameters("auto34")


def test_it_writes_auto18s_alphas_but_one_interval_in_ten_of_a_raise_at_alpha_p() -> None:
    for seed in (1, 2):
        a, b = two_classes(scheme="auto34"), two_classes(scheme="auto18")
        alpha_p = a.cl.alpha_q()
        probes = []
        for k, step in enumerate(web_and_bursts(seed)):  # web loses nothing: no harm
            out, ref = a.step(**step), b.step(**step)
            if not np.array_equal(out, ref):
                np.testing.assert_array_equal(out, alpha_p)
                assert (ref > alpha_p).any()
                probes.append(k)
        assert len(probes) > 10
        assert min(np.diff(probes)) >= EVERY


def after_raise(scheme: str, loses: Callable[[int], dict]) -> list[float]:  # type: ignore[type-arg]
    """The query class's alpha over the two seconds after a raise, web's idle queues losing
    ``loses(k)`` in interval k; web lost nothing under DT before."""
    sw = two_classes(scheme=scheme)
    for _ in range(10):
        sw.step(**web_loses(0.0))
    out = [float(sw.step(**SMALL)[1])]
    return out + [float(sw.step(**loses(k))[1]) for k in range(round(HOLD_S / DT) - 1)]


def test_a_loss_dt_meets_too_keeps_the_raise_a_loss_it_does_not_steps_it_down() -> None:
    probes = [EVERY - 1, 2 * EVERY - 1]  # the outputs that run the next interval as DT
    steady = after_raise("auto34", lambda k: web_loses(0.01))
    raised = steady[0]
    assert raised > 0.5
    assert [i for i, a in enumerate(steady) if a != raised] == probes
    # `auto18` judges the same loss against the intervals before the raise: harm
    assert min(after_raise("auto18", lambda k: web_loses(0.01))) == 0.5
    only_raised = after_raise("auto34", lambda k: web_loses(0.0 if k == probes[0] else 0.01))
    assert only_raised[probes[0] + 2] < raised and only_raised[-1] == 0.5


def test_at_1s_a_raise_runs_nine_intervals_of_ten() -> None:
    burst = {"util": {1: 0.005}, "drops": {1: 300_000}, "peak": {1: 300_000}}  # 5% lost
    sw = two_classes(scheme="auto34", interval=1.0)
    outs = [sw.step(**burst if k % 3 == 0 else {}, dt=1.0)[1] for k in range(3 * EVERY + 1)]
    at_dt = [i for i, a in enumerate(outs) if a == 0.5]
    assert len(at_dt) == 3 and min(np.diff(at_dt)) == EVERY
