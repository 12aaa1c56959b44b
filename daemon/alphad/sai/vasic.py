"""ctypes binding of the virtual ASIC's extension symbols (sai-shim/include/alphad/vasic.h)."""

from __future__ import annotations

import ctypes as C

__all__ = ["TOTAL_FIELDS", "inject_fault", "profile_count", "read_totals"]

TOTAL_FIELDS = (
    "incast_offered_bytes", "incast_dropped_bytes", "incast_delivered_bytes",
    "greedy_offered_bytes", "greedy_dropped_bytes", "greedy_delivered_bytes",
    "onoff_offered_bytes", "onoff_dropped_bytes", "onoff_delivered_bytes",
    "incast_bursts", "incast_bursts_skipped", "model_ns", "lag_ns", "max_lag_ns", "steps",
)


class _Totals(C.Structure):
    _fields_ = [(f, C.c_uint64) for f in TOTAL_FIELDS]


def read_totals(lib: C.CDLL) -> dict[str, int]:
    t = _Totals()
    rc = lib.vasic_totals(C.byref(t))
    if rc != 0:
        raise OSError(-rc, "vasic_totals failed")
    return {f: int(getattr(t, f)) for f in TOTAL_FIELDS}


def inject_fault(lib: C.CDLL, what: str, count: int) -> None:
    lib.vasic_inject_fault.argtypes = [C.c_char_p, C.c_int]
    rc = lib.vasic_inject_fault(what.encode(), count)
    if rc != 0:
        raise OSError(-rc, f"vasic_inject_fault({what!r}) failed")


def profile_count(lib: C.CDLL) -> int:
    return int(lib.vasic_profile_count())
