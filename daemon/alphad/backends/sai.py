"""Backends `sai` (a vendor libsai) and `vasic` (the virtual ASIC), both through
libalphad-sai. The shim owns per-queue profile cloning and exact restore.

The libsai runs in alphad's process and initialises the ASIC: on a SONiC switch syncd
already owns it and two SDK instances cannot share one ASIC, so there the Redis
(``sonic``) or gNMI backend is the way."""

from __future__ import annotations

import ctypes as C
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from alphad.backends.base import ConfigPath, FatalBackendError, TransientBackendError
from alphad.model import Changes, Sample, Topology
from alphad.sai import shim

if TYPE_CHECKING:
    from alphad.loop import Daemon

__all__ = ["CONFIGS", "SaiBackend", "SaiConfig", "VasicBackend", "VasicConfig", "exit_summary",
           "open_backend", "switch_identity"]

log = logging.getLogger("alphad.sai")


def _must_exist(p: Path) -> Path:
    if not p.exists():
        raise ValueError(f"file not found: {p}")
    return p


ExistingPath = Annotated[ConfigPath, AfterValidator(_must_exist)]


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    shim: ConfigPath | None = None  # libalphad-sai.so; default: ALPHAD_SAI_LIB_DIR or system


class SaiConfig(_Base):
    """A vendor libsai loaded in-process (a switch without SONiC's syncd)."""

    type: Literal["sai"]
    libsai: ExistingPath
    profile: dict[str, str] = Field(default_factory=dict)


class VasicConfig(_Base):
    """The virtual ASIC: a shared-buffer DT switch model behind the SAI API."""

    type: Literal["vasic"]
    scenario: ExistingPath
    clock: Literal["realtime", "manual"] = "realtime"
    libsai: ConfigPath | None = None  # default: libsai-vasic.so next to the shim
    compare_dt: bool = True  # at exit, replay the scenario under static DT for the summary


CONFIGS: dict[str, type[BaseModel]] = {"sai": SaiConfig, "vasic": VasicConfig}

_STATUS_FATAL = {shim.E_LOAD, shim.E_SYMBOL, shim.E_NOT_SUPPORTED, shim.E_INVALID_ARG}


def _port_name(i: int) -> str:
    return f"Ethernet{4 * i}"  # SONiC naming of 4-lane ports


class SaiBackend:
    """Any libsai through the shim."""

    name = "sai"

    def __init__(self, libsai: str, profile: dict[str, str], shim_path: str | None = None):
        try:
            self._s = shim.SaiShim(libsai, profile, shim_path)
        except shim.ShimError as e:
            raise FatalBackendError(f"cannot open libsai {libsai}: {e}", backend=self.name,
                                    op="open") from None
        missing = self._s.unsupported_counters()
        if missing:
            log.warning("libsai %s does not support %s: read as 0", libsai, ", ".join(missing))
        qs = self._s.queues
        n_ports = self._s.n_ports
        speed = np.zeros(n_ports)
        for q in qs:
            speed[q.port_index] = q.port_speed_mbps * 1e6
        self._stats, pool, _ = self._read()
        self._topo = Topology(
            ports=tuple(_port_name(i) for i in range(n_ports)),
            port_speed_bps=speed,
            queue_port=np.array([q.port_index for q in qs], dtype=np.int32),
            queue_index=np.array([q.queue_index for q in qs], dtype=np.int32),
            buffer_bytes=float(pool.size_bytes),
            managed=np.array([bool(q.dynamic) for q in qs]),
        )
        self._k = np.array([q.log2_alpha for q in qs], dtype=np.int8)
        self.original_k = np.array([q.original_log2_alpha for q in qs], dtype=np.int8)

    def _read(self) -> tuple[np.ndarray, shim.PoolStats, int]:
        try:
            return self._s.read_stats()
        except shim.ShimError as e:
            raise TransientBackendError(str(e), backend=self.name, op="read_stats") from None

    def topology(self) -> Topology:
        return self._topo

    def sample(self) -> Sample:
        a, pool, t_ns = self._read()
        return Sample(
            t=t_ns * 1e-9,
            occupancy=a[:, 0].astype(np.float64),
            watermark=a[:, 1].astype(np.float64),
            tx_bytes=a[:, 2].copy(),
            tx_packets=a[:, 3].copy(),
            drop_packets=a[:, 4].copy(),
            drop_bytes=a[:, 5].copy(),
            alpha=np.exp2(self._k.astype(np.float64)),
            pool_occupancy=float(pool.curr_occupancy_bytes),
            pool_watermark=float(pool.watermark_bytes),
        )

    def apply(self, changes: Changes) -> None:
        if not len(changes):
            return
        if changes.k is None:
            raise FatalBackendError("the SAI takes alpha = 2^k only; set quantize.mode: pow2",
                                    backend=self.name, op="apply")
        try:
            self._s.set_log2_alpha_bulk(changes.idx, changes.k)
        except shim.ShimError as e:
            # Re-read what is in effect so the next interval starts from the truth.
            for i in changes.idx:
                try:
                    self._k[i] = self._s.get_log2_alpha(int(i))
                except shim.ShimError:
                    pass
            cls = FatalBackendError if e.status in _STATUS_FATAL else TransientBackendError
            raise cls(str(e), backend=self.name, op="apply") from None
        self._k[changes.idx] = changes.k

    def restore(self) -> None:
        try:
            self._s.restore()
        except shim.ShimError as e:
            raise TransientBackendError(str(e), backend=self.name, op="restore") from None
        self._k[:] = self.original_k

    def close(self) -> None:
        self._s.close()


class VasicBackend(SaiBackend):
    """The virtual ASIC, optionally on a manual (deterministic) clock."""

    name = "vasic"

    def __init__(self, scenario: Path, clock: str = "realtime", libsai: str | None = None,
                 shim_path: str | None = None):
        self.scenario = scenario
        self.clock = clock
        self.libsai = libsai or shim.find_library("sai-vasic")
        super().__init__(self.libsai, {"VASIC_SCENARIO": str(scenario), "VASIC_CLOCK": clock},
                         shim_path)
        self._vasic = C.CDLL(self.libsai)

    @property
    def manual(self) -> bool:
        return self.clock == "manual"

    def advance(self, seconds: float) -> None:
        try:
            self._s.advance(round(seconds * 1e9))
        except shim.ShimError as e:
            raise FatalBackendError(str(e), backend=self.name, op="advance") from None

    def totals(self) -> dict[str, Any]:
        """Traffic totals of the model (incast offered/dropped, long-flow delivered...)."""
        from alphad.sai.vasic import read_totals

        return read_totals(self._vasic)


def open_backend(cfg: Any) -> SaiBackend:
    shim_path = str(cfg.shim) if cfg.shim else None
    if cfg.type == "vasic":
        return VasicBackend(cfg.scenario, cfg.clock, str(cfg.libsai) if cfg.libsai else None,
                            shim_path)
    return SaiBackend(str(cfg.libsai), dict(cfg.profile), shim_path)


def switch_identity(cfg: Any) -> str | None:
    """sai: the real path of the libsai (one ASIC per library on a host); vasic: none,
    each process runs a virtual ASIC of its own."""
    return f"sai:{os.path.realpath(cfg.libsai)}" if cfg.type == "sai" else None


def exit_summary(daemon: Daemon, backend: Any, cfg: Any) -> None:
    """vasic: alphad against static DT on the same traffic (:mod:`alphad.summary`)."""
    if cfg.type == "vasic":
        from alphad.summary import vasic_summary

        vasic_summary(daemon, backend, cfg)
