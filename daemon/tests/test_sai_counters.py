"""A vendor libsai without some counters: the sai backend opens, reads the others, and
logs which counters read as 0 (libsai-vasic told to lack two)."""

from __future__ import annotations

import logging

import pytest

from alphad.backends.sai import SaiBackend
from alphad.sai.shim import SaiShim, find_library

SCENARIO = "switch ports=2 queues=2 buffer_bytes=1000000\ngreedy port=all queue=all rate_gbps=20\n"


def profile(**extra: str) -> dict[str, str]:
    return {"VASIC_CLOCK": "manual", "VASIC_SCENARIO_TEXT": SCENARIO, **extra}


@pytest.mark.parametrize("capability", ["on", "off"])
def test_missing_counters_are_named_and_the_others_read(capability: str) -> None:
    s = SaiShim(find_library("sai-vasic"), profile(
        VASIC_UNSUPPORTED_STATS="SAI_QUEUE_STAT_DROPPED_BYTES,SAI_BUFFER_POOL_STAT_WATERMARK_BYTES",
        VASIC_STATS_CAPABILITY=capability))
    try:
        assert s.unsupported_counters() == ["queue dropped_bytes", "pool watermark_bytes"]
        s.advance(5_000_000)
        q, pool, _ = s.read_stats()
        assert q[:, 2].min() > 0 and q[:, 4].min() > 0  # bytes, dropped packets
        assert q[:, 5].max() == 0 and pool.watermark_bytes == 0
        assert pool.curr_occupancy_bytes > 0
    finally:
        s.close()


def test_sai_backend_logs_what_reads_as_zero(caplog: pytest.LogCaptureFixture) -> None:
    lib = find_library("sai-vasic")
    with caplog.at_level(logging.WARNING, logger="alphad.sai"):
        be = SaiBackend(lib, profile(VASIC_UNSUPPORTED_STATS="SAI_QUEUE_STAT_DROPPED_BYTES"))
    try:
        assert f"libsai {lib} does not support queue dropped_bytes: read as 0" in caplog.text
    finally:
        be.close()


def test_a_complete_libsai_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="alphad.sai"):
        be = SaiBackend(find_library("sai-vasic"), profile())
    try:
        assert "does not support" not in caplog.text
    finally:
        be.close()
