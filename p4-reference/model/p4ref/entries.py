"""Table entries as data: the control plane installs them, the model executes them.

A :class:`TableEntry` names a table, an action and its parameters exactly as the P4
program (``p4src/alphad_ref.p4``) and bfrt-python spell them. The arithmetic tables
(log, exp) are built here from :mod:`p4ref.arith`; the deployment-specific tables
(forwarding, queue map, alpha) are built by ``control/p4ref_control.py``. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from . import arith

__all__ = [
    "ACT_BITS",
    "NP_BITS",
    "REM_BITS",
    "Exact",
    "Lpm",
    "Match",
    "T",
    "TableEntry",
    "Ternary",
    "exp_entries",
    "log_act_entries",
    "log_np_entries",
    "log_rem_entries",
]

REM_BITS = 32
"""Key width of the remaining-buffer log table (ig_md.rem)."""
NP_BITS = 16
"""Key width of the n_p log table (ig_md.np)."""
ACT_BITS = 16
"""Key width of the active-queues log table (ig_md.act)."""


class T:
    """Fully qualified names of the tables and actions in ``p4src/alphad_ref.p4``."""

    FWD = "Ingress.fwd"
    CLASSIFY = "Ingress.classify"
    PKT_UNITS = "Ingress.pkt_units"
    MAP_QUEUE = "Ingress.map_queue"
    ALPHA = "Ingress.alpha_tbl"
    LOG_REM = "Ingress.log_rem"
    LOG_NP = "Ingress.log_np"
    LOG_GAMMA = "Ingress.log_gamma"
    EXP = "Ingress.exp_tbl"
    SYNC_MAP = "Ingress.sync_map"
    SYNC_CFG = "Ingress.sync_cfg"
    GHOST_MAP = "Ghost.ghost_map"

    A_SET_PORT = "Ingress.set_port"
    A_SET_CLASS = "Ingress.set_class"
    A_SET_PKT_UNITS = "Ingress.set_pkt_units"
    A_SET_QUEUE = "Ingress.set_queue"
    A_SET_ALPHA = "Ingress.set_alpha"
    A_SET_L_REM = "Ingress.set_l_rem"
    A_SET_L_NP = "Ingress.set_l_np"
    A_SET_L_GAMMA = "Ingress.set_l_gamma"
    A_SET_THR = "Ingress.set_thr"
    A_SET_SYNC_IDX = "Ingress.set_sync_idx"
    A_SET_SYNC_PORT = "Ingress.set_sync_port"
    A_SET_GHOST_IDX = "Ghost.set_ghost_idx"


@dataclass(frozen=True)
class Exact:
    value: int


@dataclass(frozen=True)
class Ternary:
    value: int
    mask: int


@dataclass(frozen=True)
class Lpm:
    value: int
    prefix_len: int


Match = Exact | Ternary | Lpm


@dataclass
class TableEntry:
    """One entry: ``table``/``action`` are P4 names, ``key`` maps key names (the
    ``@name`` of each key field) to a match, ``params`` maps action parameter names
    to unsigned integers. ``priority`` is the bfrt MATCH_PRIORITY of ternary tables
    (lower value wins); ``default`` marks a default-action setting (empty key)."""

    table: str
    action: str
    key: dict[str, Match] = field(default_factory=dict)
    params: dict[str, int] = field(default_factory=dict)
    priority: int | None = None
    default: bool = False

    def to_json(self) -> dict[str, object]:
        key: dict[str, object] = {}
        for name, m in self.key.items():
            if isinstance(m, Ternary):
                key[name] = {"value": m.value, "mask": m.mask}
            elif isinstance(m, Lpm):
                key[name] = {"value": m.value, "prefix_len": m.prefix_len}
            else:
                key[name] = m.value
        out: dict[str, object] = {"table": self.table, "action": self.action, "key": key,
                                  "params": dict(self.params)}
        if self.priority is not None:
            out["priority"] = self.priority
        if self.default:
            out["default"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> TableEntry:
        key: dict[str, Match] = {}
        raw_key = data.get("key", {})
        assert isinstance(raw_key, dict)
        for name, m in raw_key.items():
            if isinstance(m, dict) and "mask" in m:
                key[name] = Ternary(int(m["value"]), int(m["mask"]))
            elif isinstance(m, dict):
                key[name] = Lpm(int(m["value"]), int(m["prefix_len"]))
            else:
                key[name] = Exact(int(m))
        params = data.get("params", {})
        assert isinstance(params, dict)
        prio = data.get("priority")
        return cls(str(data["table"]), str(data["action"]), key,
                   {k: int(v) for k, v in params.items()},
                   None if prio is None else int(str(prio)), bool(data.get("default", False)))


def _log_entries(table: str, action: str, key: str, rows: tuple[arith.LogRow, ...],
                 width: int) -> list[TableEntry]:
    # Rows are disjoint, so the priority only orders them for readability: wider
    # leading-one positions first.
    return [
        TableEntry(table, action, {key: Ternary(r.value, r.mask)},
                   {"l": arith.to_unsigned(r.out)}, priority=width - r.lead)
        for r in rows
    ]


def log_rem_entries(mantissa_bits: int, frac_bits: int = arith.LOG_FRAC_BITS
                    ) -> list[TableEntry]:
    """log2(B - Q) rows; B - Q = 0 maps to LOG_ZERO_REM so that T = 0."""
    rows = arith.log_rows(REM_BITS, mantissa_bits, zero_out=arith.LOG_ZERO_REM,
                          frac_bits=frac_bits)
    return _log_entries(T.LOG_REM, T.A_SET_L_REM, "rem", rows, REM_BITS)


def log_np_entries(mantissa_bits: int, max_np: int, frac_bits: int = arith.LOG_FRAC_BITS
                   ) -> list[TableEntry]:
    """log2(n_p) rows; n_p = 0 is treated as 1 (ABM floors n_p at 1)."""
    rows = arith.log_rows(NP_BITS, mantissa_bits, zero_out=0, max_key=max_np,
                          frac_bits=frac_bits)
    return _log_entries(T.LOG_NP, T.A_SET_L_NP, "np", rows, NP_BITS)


def log_act_entries(mantissa_bits: int, max_active: int,
                    frac_bits: int = arith.LOG_FRAC_BITS) -> list[TableEntry]:
    """log2(gamma) = -log2(active queues at the port) rows (round robin, FB 5.1)."""
    rows = arith.log_rows(ACT_BITS, mantissa_bits, negate=True, zero_out=0,
                          max_key=max_active, frac_bits=frac_bits)
    return _log_entries(T.LOG_GAMMA, T.A_SET_L_GAMMA, "act", rows, ACT_BITS)


def exp_entries(cong_frac: Fraction, frac_bits: int = arith.LOG_FRAC_BITS
                ) -> list[TableEntry]:
    """2**s rows for every reachable non-negative s; larger s hits the saturating
    default action."""
    return [
        TableEntry(T.EXP, T.A_SET_THR, {"s": Exact(s)}, {"thr": thr, "thr_cong": cong})
        for s, thr, cong in arith.exp_rows(cong_frac, frac_bits)
    ]
