"""ctypes binding of libalphad-sai (sai-shim/include/alphad/alphad_sai.h)."""

from __future__ import annotations

import ctypes as C
import ctypes.util
import os
from pathlib import Path

import numpy as np

__all__ = ["SaiShim", "ShimError", "find_library", "lib_dir"]

ALPHAD_OK = 0
E_INVALID_ARG = 1
E_LOAD = 2
E_SYMBOL = 3
E_SAI = 4
E_NOT_FOUND = 5
E_RANGE = 6
E_NOMEM = 7
E_NOT_SUPPORTED = 8
E_BUFFER_TOO_SMALL = 9
E_STATE = 10


class QueueInfo(C.Structure):
    _fields_ = [
        ("queue_oid", C.c_uint64),
        ("port_oid", C.c_uint64),
        ("profile_oid", C.c_uint64),
        ("port_index", C.c_uint32),
        ("queue_index", C.c_uint32),
        ("port_speed_mbps", C.c_uint32),
        ("log2_alpha", C.c_int8),
        ("original_log2_alpha", C.c_int8),
        ("dynamic", C.c_uint8),
        ("reserved", C.c_uint8),
    ]


class PoolStats(C.Structure):
    _fields_ = [
        ("size_bytes", C.c_uint64),
        ("curr_occupancy_bytes", C.c_uint64),
        ("watermark_bytes", C.c_uint64),
    ]


class KV(C.Structure):
    _fields_ = [("key", C.c_char_p), ("value", C.c_char_p)]


QSTAT_FIELDS = 6  # occupancy, watermark, bytes, packets, dropped_packets, dropped_bytes


class ShimError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# ALPHAD_STAT_QUEUE_* / ALPHAD_STAT_POOL_* bit order (alphad_queue_stats_t, alphad_pool_stats_t)
QUEUE_COUNTERS = ("curr_occupancy_bytes", "shared_watermark_bytes", "bytes", "packets",
                  "dropped_packets", "dropped_bytes")
POOL_COUNTERS = ("curr_occupancy_bytes", "watermark_bytes")


def lib_dir() -> Path | None:
    """Directory holding libalphad-sai.so and libsai-vasic.so.

    ``ALPHAD_SAI_LIB_DIR`` first, then the build directory of a source checkout.
    """
    env = os.environ.get("ALPHAD_SAI_LIB_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "build" / "sai-shim"
        if (cand / "libalphad-sai.so").exists():
            return cand
    return None


def find_library(name: str) -> str:
    """Path of lib<name>.so: the lib dir, then the system's library path."""
    d = lib_dir()
    if d is not None and (d / f"lib{name}.so").exists():
        return str(d / f"lib{name}.so")
    found = ctypes.util.find_library(name)
    if found:
        return found
    where = f" (looked in {d} and the system library path)" if d else ""
    raise ShimError(E_LOAD, f"lib{name}.so not found{where}; build it with 'make shim' "
                    "or set ALPHAD_SAI_LIB_DIR")


def _load(path: str) -> C.CDLL:
    lib = C.CDLL(path)
    P = C.POINTER
    lib.alphad_strerror.restype = C.c_char_p
    lib.alphad_strerror.argtypes = [C.c_int]
    lib.alphad_sai_abi_version.restype = C.c_uint32
    lib.alphad_sai_open.restype = C.c_int
    lib.alphad_sai_open.argtypes = [C.c_char_p, P(KV), C.c_size_t, P(C.c_void_p),
                                    C.c_char_p, C.c_size_t]
    lib.alphad_sai_close.restype = None
    lib.alphad_sai_close.argtypes = [C.c_void_p]
    lib.alphad_sai_last_error.restype = C.c_char_p
    lib.alphad_sai_last_error.argtypes = [C.c_void_p]
    lib.alphad_sai_counts.restype = C.c_int
    lib.alphad_sai_counts.argtypes = [C.c_void_p, P(C.c_uint32), P(C.c_uint32)]
    lib.alphad_sai_queues.restype = C.c_int
    lib.alphad_sai_queues.argtypes = [C.c_void_p, P(QueueInfo), C.c_uint32]
    lib.alphad_sai_read_stats.restype = C.c_int
    lib.alphad_sai_read_stats.argtypes = [C.c_void_p, C.c_void_p, C.c_uint32, P(PoolStats),
                                          P(C.c_uint64)]
    lib.alphad_sai_set_log2_alpha.restype = C.c_int
    lib.alphad_sai_set_log2_alpha.argtypes = [C.c_void_p, C.c_uint32, C.c_int8]
    lib.alphad_sai_set_log2_alpha_bulk.restype = C.c_int
    lib.alphad_sai_set_log2_alpha_bulk.argtypes = [C.c_void_p, C.c_void_p, C.c_void_p,
                                                   C.c_uint32, P(C.c_uint32)]
    lib.alphad_sai_get_log2_alpha.restype = C.c_int
    lib.alphad_sai_get_log2_alpha.argtypes = [C.c_void_p, C.c_uint32, P(C.c_int8)]
    lib.alphad_sai_restore.restype = C.c_int
    lib.alphad_sai_restore.argtypes = [C.c_void_p]
    lib.alphad_sai_advance.restype = C.c_int
    lib.alphad_sai_advance.argtypes = [C.c_void_p, C.c_uint64]
    return lib


class SaiShim:
    """One opened libsai through libalphad-sai. Not thread-safe."""

    def __init__(self, libsai: str, profile: dict[str, str], shim_path: str | None = None):
        path = shim_path or find_library("alphad-sai")
        try:
            self._lib = _load(path)
        except OSError as e:
            raise ShimError(E_LOAD, f"cannot load libalphad-sai from {path}: {e}") from None
        kvs = (KV * max(len(profile), 1))()
        self._keep = []
        for i, (k, v) in enumerate(profile.items()):
            kb, vb = k.encode(), v.encode()
            self._keep += [kb, vb]
            kvs[i] = KV(kb, vb)
        err = C.create_string_buffer(1024)
        h = C.c_void_p()
        st = self._lib.alphad_sai_open(libsai.encode(), kvs, len(profile), C.byref(h), err, 1024)
        if st != ALPHAD_OK:
            detail = err.value.decode(errors="replace") or self.strerror(st)
            raise ShimError(st, detail)
        self._h = h
        np_, nq = C.c_uint32(), C.c_uint32()
        self._check(self._lib.alphad_sai_counts(h, C.byref(np_), C.byref(nq)), "counts")
        self.n_ports, self.n_queues = np_.value, nq.value
        info = (QueueInfo * max(nq.value, 1))()
        self._check(self._lib.alphad_sai_queues(h, info, nq.value), "queues")
        self.queues = [info[i] for i in range(nq.value)]
        self._stats = np.zeros((max(nq.value, 1), QSTAT_FIELDS), dtype=np.uint64)
        self._pool = PoolStats()
        self._t = C.c_uint64()
        self._n_done = C.c_uint32()

    def unsupported_counters(self) -> list[str]:
        """The counters the libsai does not support (they read as 0), by alphad_sai.h name;
        [] with a libalphad-sai older than alphad_sai_stats_supported."""
        fn = getattr(self._lib, "alphad_sai_stats_supported", None)
        if fn is None:
            return []
        fn.argtypes = [C.c_void_p, C.POINTER(C.c_uint32), C.POINTER(C.c_uint32)]
        fn.restype = C.c_int
        q, p = C.c_uint32(), C.c_uint32()
        self._check(fn(self._h, C.byref(q), C.byref(p)), "stats_supported")
        return ([f"queue {n}" for i, n in enumerate(QUEUE_COUNTERS) if not q.value >> i & 1]
                + [f"pool {n}" for i, n in enumerate(POOL_COUNTERS) if not p.value >> i & 1])

    def strerror(self, st: int) -> str:
        return (self._lib.alphad_strerror(st) or b"?").decode()

    def last_error(self) -> str:
        return (self._lib.alphad_sai_last_error(self._h) or b"").decode(errors="replace")

    def _check(self, st: int, op: str) -> None:
        if st != ALPHAD_OK:
            detail = self.last_error() if getattr(self, "_h", None) else ""
            raise ShimError(st, f"{op}: {self.strerror(st)}" + (f" ({detail})" if detail else ""))

    def read_stats(self) -> tuple[np.ndarray, PoolStats, int]:
        """(n x 6 uint64 view, pool stats, t_ns). The array is reused: copy what you keep."""
        st = self._lib.alphad_sai_read_stats(
            self._h, self._stats.ctypes.data, self.n_queues, C.byref(self._pool), C.byref(self._t)
        )
        self._check(st, "read_stats")
        return self._stats[: self.n_queues], self._pool, self._t.value

    def set_log2_alpha_bulk(self, queues: np.ndarray, k: np.ndarray) -> None:
        q = np.ascontiguousarray(queues, dtype=np.uint32)
        kk = np.ascontiguousarray(k, dtype=np.int8)
        st = self._lib.alphad_sai_set_log2_alpha_bulk(
            self._h, q.ctypes.data, kk.ctypes.data, len(q), C.byref(self._n_done)
        )
        if st != ALPHAD_OK:
            done = self._n_done.value
            raise ShimError(st, f"set_log2_alpha(queue {int(q[done]) if done < len(q) else '?'}, "
                                f"k={int(kk[done]) if done < len(q) else '?'}): "
                                f"{self.strerror(st)} ({self.last_error()})")

    def get_log2_alpha(self, queue: int) -> int:
        k = C.c_int8()
        self._check(self._lib.alphad_sai_get_log2_alpha(self._h, queue, C.byref(k)), "get_alpha")
        return k.value

    def restore(self) -> None:
        self._check(self._lib.alphad_sai_restore(self._h), "restore")

    def advance(self, ns: int) -> None:
        self._check(self._lib.alphad_sai_advance(self._h, ns), "advance")

    def close(self) -> None:
        if getattr(self, "_h", None):
            self._lib.alphad_sai_close(self._h)
            self._h = None
