"""The candidate `auto10`: `auto9` whose raise also reaches the busy queues bursts hit."""

from __future__ import annotations

from test_auto9 import two_classes


def test_a_busy_queue_that_a_burst_hit_takes_the_raise() -> None:
    sw, nine = two_classes("auto10"), two_classes("auto9")
    # a burst on idle queue 1 and on queue 3 (same class), which also carries a long flow
    # (75 MB sent in the interval): it loses 3% of its bytes, a burst's share
    step = {"util": {1: 0.005, 3: 0.6}, "drops": {1: 50_000, 3: 2_300_000},
            "peak": {1: 200_000, 3: 200_000}}
    out, out9 = sw.step(**step), nine.step(**step)
    assert out[1] == out[3] == 1.0  # both take the raise
    assert (out9[1], out9[3]) == (1.0, 0.5)  # `auto9`: only the idle one
    # next interval queue 3 carries its long flow and loses a TCP share: back to alpha_p
    out = sw.step(util={1: 0.005, 3: 0.6}, drops={3: 100})
    assert (out[1], out[3]) == (1.0, 0.5)
    assert out[0] == out[2] == 0.5
