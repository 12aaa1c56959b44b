"""SONiC's dynamic buffer model, as buffermgrd (``cfgmgr/buffermgrdyn.cpp``) runs it.

With ``DEVICE_METADATA|localhost buffer_model: dynamic``:

- a ``BUFFER_POOL`` without ``size`` gets the size buffermgrd computes
  (``buffer_pool_mellanox.lua`` in outline: the MMU size, from STATE_DB
  ``BUFFER_MAX_PARAM_TABLE|global mmu_size`` or else ``egress_lossless_pool``'s size,
  less every configured PG's and queue's reserved size and the 256 KiB management
  pool; with two ingress pools each gets half). buffermgrd publishes it in APPL_DB
  ``BUFFER_POOL_TABLE:<pool>`` and STATE_DB ``BUFFER_POOL_TABLE|<pool>``;
- a lossless PG whose ``BUFFER_PG`` profile is ``NULL`` gets a generated profile
  ``pg_lossless_<speed>_<cable>_profile``, in APPL_DB/STATE_DB ``BUFFER_PROFILE_TABLE``
  only (its headroom here is the virtual switch's own approximation, not a vendor's);
- queues of an admin-down port are put on a zero profile
  (``egress_lossy_zero_profile``, dynamic_th -8, size 0) in APPL_DB while CONFIG_DB
  keeps their configured profile;
- ``BUFFER_QUEUE|Ethernet0,Ethernet4|0-2`` becomes one APPL_DB key per port
  (``BUFFER_QUEUE_TABLE:Ethernet0:0-2``), as ``handleBufferObjectTables`` splits it.
"""

from __future__ import annotations

import math
from typing import Any

from alphad.sonic.keys import SonicSyntaxError, parse_ports, parse_profile_ref, parse_queue_range

__all__ = ["EGRESS_ZERO_PROFILE", "MGMT_POOL_BYTES", "generated_pg_profiles", "is_dynamic",
           "pool_sizes"]

MGMT_POOL_BYTES = 256 * 1024  # buffer_pool_mellanox.lua: mgmt_pool_size
EGRESS_ZERO_PROFILE = "egress_lossy_zero_profile"
_XON = 18432
_XOFF_5M = 37936
_XOFF_PER_M = 491  # headroom grows with the cable (the shipped 5 m / 40 m profiles)

Tables = dict[str, dict[str, dict[str, Any]]]


def is_dynamic(cfg: Tables) -> bool:
    return cfg.get("DEVICE_METADATA", {}).get("localhost", {}).get("buffer_model") == "dynamic"


def _cable_m(cable: str) -> int:
    try:
        return int(cable.rstrip("m"))
    except ValueError:
        return 5


def _down(cfg: Tables) -> set[str]:
    return {p for p, f in cfg.get("PORT", {}).items() if f.get("admin_status") == "down"}


def generated_pg_profiles(cfg: Tables) -> tuple[dict[str, dict[str, str]],
                                                  dict[tuple[str, int], str]]:
    """The profiles buffermgrd generates for ``BUFFER_PG`` entries with profile NULL:
    (name -> fields, (port, pg) -> name). Admin-down ports get none."""
    dyn_th = str(cfg.get("DEFAULT_LOSSLESS_BUFFER_PARAMETER", {}).get("AZURE", {})
                 .get("default_dynamic_th", "0"))
    cables = cfg.get("CABLE_LENGTH", {}).get("AZURE", {})
    down = _down(cfg)
    profiles: dict[str, dict[str, str]] = {}
    use: dict[tuple[str, int], str] = {}
    for key, f in cfg.get("BUFFER_PG", {}).items():
        if f.get("profile", "NULL") != "NULL":
            continue
        plist, _, rng = key.rpartition("|")
        try:
            ports, pgs = parse_ports(plist), parse_queue_range(rng)
        except SonicSyntaxError:
            continue
        for p in ports:
            if p in down or p not in cfg.get("PORT", {}):
                continue
            speed = str(cfg["PORT"][p].get("speed", ""))
            cable = str(cables.get(p, "5m"))
            name = f"pg_lossless_{speed}_{cable}_profile"
            xoff = _XOFF_5M + (_cable_m(cable) - 5) * _XOFF_PER_M
            profiles[name] = {"pool": "ingress_lossless_pool", "xon": str(_XON),
                              "xoff": str(xoff), "size": str(_XON + xoff),
                              "dynamic_th": dyn_th}
            for pg in pgs:
                use[(p, pg)] = name
    return profiles, use


def pool_sizes(cfg: Tables, mmu_size: int | None = None) -> dict[str, int]:
    """Sizes buffermgrd computes for the pools that have none in CONFIG_DB."""
    pools = cfg.get("BUFFER_POOL", {})
    need = [n for n, f in pools.items() if "size" not in f]
    if not need:
        return {}
    if mmu_size is None:
        try:
            mmu_size = int(pools.get("egress_lossless_pool", {}).get("size", ""))
        except ValueError:
            raise ValueError("dynamic buffer model: no mmu_size and egress_lossless_pool has "
                             "no size to take it from") from None
    profiles = cfg.get("BUFFER_PROFILE", {})
    generated, gen_use = generated_pg_profiles(cfg)
    down = _down(cfg)
    occupied = MGMT_POOL_BYTES + sum(int(generated[n]["size"]) for n in gen_use.values())
    for table in ("BUFFER_PG", "BUFFER_QUEUE"):
        for key, f in cfg.get(table, {}).items():
            plist, _, rng = key.rpartition("|")
            try:
                ports, ids = parse_ports(plist), parse_queue_range(rng)
                prof, _ = parse_profile_ref(str(f.get("profile", "")))
            except SonicSyntaxError:
                continue
            if prof == "NULL" or prof not in profiles:
                continue
            size = int(profiles[prof].get("size", "0") or 0)
            occupied += size * len(ids) * sum(p not in down for p in ports)
    ingress = sum(f.get("type") == "ingress" for f in pools.values())
    available = mmu_size - occupied
    size = available if ingress <= 1 else available / 2
    return {n: math.ceil(min(size, mmu_size)) for n in need}
