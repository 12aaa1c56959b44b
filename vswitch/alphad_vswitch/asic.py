"""The virtual ASIC behind the virtual switch: libsai-vasic through libalphad-sai.

The shim's ABI is per-queue log2 alpha (it clones SAI profiles itself), so the
switch keeps SONiC's profile objects in Python (:mod:`alphad_vswitch.buffers`)
and sets each queue's effective ``dynamic_th`` here. The scenario (switch
shape and traffic) is generated from config_db.json plus a traffic file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from alphad.sai import shim
from alphad.sonic.keys import natural_key
from alphad_vswitch.dynamic import is_dynamic, pool_sizes

__all__ = ["AsicError", "SwitchShape", "VirtualAsic", "scenario_text", "switch_shape"]

_ETH_RE = re.compile(r"^Ethernet\d+$")
_TRAFFIC = ("greedy", "incast", "onoff")


class AsicError(RuntimeError):
    """The virtual ASIC cannot be built or refused an operation (message says why)."""


@dataclass(frozen=True)
class SwitchShape:
    ports: tuple[str, ...]  # SONiC names, natural order = ASIC port index
    speed_mbps: int
    pool: str  # the egress lossy pool the ASIC models
    pool_bytes: int
    queues: int


def switch_shape(cfg: dict[str, dict[str, dict[str, Any]]], queues: int = 8,
                 pool: str | None = None) -> SwitchShape:
    """Ports, speed and the modelled pool of a config_db.json (dict form)."""
    ports = sorted(cfg.get("PORT", {}), key=natural_key)
    if not ports:
        raise AsicError("config_db has no PORT table")
    speeds: dict[int, list[str]] = {}
    for p in ports:
        try:
            s = int(cfg["PORT"][p].get("speed", ""))
        except ValueError:
            raise AsicError(f"PORT|{p}: speed {cfg['PORT'][p].get('speed')!r} is not a number "
                            "of Mb/s") from None
        speeds.setdefault(s, []).append(p)
    if len(speeds) != 1:
        detail = "; ".join(f"{s} Mb/s: {', '.join(ps[:4])}{'...' if len(ps) > 4 else ''}"
                           for s, ps in sorted(speeds.items()))
        raise AsicError(f"the virtual ASIC models one port speed; config_db has {detail}")
    pools = cfg.get("BUFFER_POOL", {})
    if pool is None:
        cands = [n for n, f in sorted(pools.items())
                 if f.get("type") in ("egress", "both") and f.get("mode", "dynamic") == "dynamic"
                 and "lossless" not in n]
        if not cands:
            raise AsicError("config_db has no egress BUFFER_POOL in dynamic mode to model")
        pool = cands[0]
    if pool not in pools:
        raise AsicError(f"BUFFER_POOL|{pool} not found")
    try:
        if "size" not in pools[pool] and is_dynamic(cfg):  # buffermgrd computes it
            size = pool_sizes(cfg)[pool]
        else:
            size = int(pools[pool]["size"])
    except (KeyError, ValueError):
        raise AsicError(f"BUFFER_POOL|{pool}: size missing or not a number") from None
    return SwitchShape(tuple(ports), next(iter(speeds)), pool, size, queues)


def _translate_ports(value: str, names: dict[str, int], where: str) -> str:
    out = []
    for item in value.split(","):
        if _ETH_RE.match(item):
            if item not in names:
                raise AsicError(f"{where}: unknown port {item!r}")
            out.append(str(names[item]))
        else:
            out.append(item)
    return ",".join(out)


def scenario_text(shape: SwitchShape, traffic: str, traffic_name: str = "traffic",
                  dynamic_th: int = 0, th_min: int = -8, th_max: int = 7, step_ns: int = 1000,
                  seed: int = 1, pkt_bytes: int = 1500) -> str:
    """A vasic scenario: the switch line from config_db, the traffic lines translated
    (``port=Ethernet8,Ethernet12`` -> ASIC port indices)."""
    names = {p: i for i, p in enumerate(shape.ports)}
    lines = [
        f"switch ports={len(shape.ports)} queues={shape.queues} "
        f"speed_gbps={shape.speed_mbps / 1000:g} buffer_bytes={shape.pool_bytes} "
        f"dynamic_th={dynamic_th} th_min={th_min} th_max={th_max} step_ns={step_ns} "
        f"pkt_bytes={pkt_bytes} seed={seed}"
    ]
    for no, raw in enumerate(traffic.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            lines.append("")
            continue
        where = f"{traffic_name}:{no}"
        words = line.split()
        if words[0] not in _TRAFFIC:
            raise AsicError(f"{where}: unknown directive {words[0]!r} (expected "
                            f"{', '.join(_TRAFFIC)}; the switch line comes from config_db)")
        out = [words[0]]
        for w in words[1:]:
            k, eq, v = w.partition("=")
            if not eq:
                raise AsicError(f"{where}: expected key=value, got {w!r}")
            out.append(f"port={_translate_ports(v, names, where)}" if k == "port" else w)
        lines.append(" ".join(out))
    return "\n".join(lines) + "\n"


class VirtualAsic:
    """One libsai-vasic switch on a manual clock (the virtual switch advances it)."""

    def __init__(self, scenario: str, shim_path: str | None = None,
                 libsai: str | None = None) -> None:
        try:
            lib = libsai or shim.find_library("sai-vasic")
            self._s = shim.SaiShim(lib, {"VASIC_SCENARIO_TEXT": scenario,
                                         "VASIC_CLOCK": "manual"}, shim_path)
        except shim.ShimError as e:
            raise AsicError(f"virtual ASIC: {e}") from None
        self.queues = list(self._s.queues)
        self.n = len(self.queues)
        self.index = {(int(q.port_index), int(q.queue_index)): i
                      for i, q in enumerate(self.queues)}
        self.default_k = np.array([q.original_log2_alpha for q in self.queues], dtype=np.int8)

    def queue_oid(self, i: int) -> str:
        return f"oid:0x{int(self.queues[i].queue_oid):x}"

    def port_oid(self, i: int) -> str:
        return f"oid:0x{int(self.queues[i].port_oid):x}"

    def set_k(self, items: dict[int, int]) -> dict[int, str]:
        """Set log2 alpha of queues; returns the refused ones with the reason."""
        refused: dict[int, str] = {}
        for i, k in sorted(items.items()):
            try:
                self._s.set_log2_alpha_bulk(np.array([i]), np.array([k]))
            except shim.ShimError as e:
                refused[i] = str(e)
        return refused

    def get_k(self, i: int) -> int:
        return self._s.get_log2_alpha(i)

    def read(self) -> tuple[np.ndarray, int, int, int]:
        """(n x 6 stats copy, pool occupancy, pool watermark, model time ns); watermarks
        are read-and-clear."""
        a, pool, t = self._s.read_stats()
        return a.copy(), int(pool.curr_occupancy_bytes), int(pool.watermark_bytes), int(t)

    def advance(self, ns: int) -> None:
        if ns > 0:
            self._s.advance(ns)

    def close(self) -> None:
        self._s.close()


def read_traffic(path: Path | None) -> tuple[str, str]:
    if path is None:
        return "", "traffic"
    try:
        return Path(path).read_text(encoding="utf-8"), str(path)
    except OSError as e:
        raise AsicError(f"traffic file {path}: {e.strerror or e}") from None
