"""Install the P4 reference's tables on a Tofino switch (bfrt-python).

Run inside the SDE's BF Runtime shell after loading ``alphad_ref``::

    ALPHAD_CONFIG=/etc/alphad/alphad.yaml \\
    ALPHAD_P4_DEPLOYMENT=/etc/alphad/p4-deployment.yaml \\
    $SDE/run_bfshell.sh -b /path/to/p4-reference/control/bfrt_setup.py

or, where the switch's Python lacks PyYAML, compute the plan elsewhere with
``python3 p4ref_control.py alphad.yaml deployment.yaml --json plan.json`` and set
``ALPHAD_P4_PLAN=plan.json`` instead. ``ALPHAD_P4_TARGET`` is ``tofino`` (default) or
``tofino2``; ``ALPHAD_P4_PROGRAM`` overrides the program name (``alphad_ref``).

Everything computed lives in :mod:`p4ref_control`; this file only translates
:class:`~p4ref.entries.TableEntry` objects into bfrt-python calls.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (_HERE, os.path.join(os.path.dirname(_HERE), "model")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from p4ref.entries import Exact, Lpm, TableEntry, Ternary  # noqa: E402

__all__ = ["entry_call", "install", "sync_payload"]

ETHERTYPE_SYNC = 0x88B5


def _node(root: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        root = getattr(root, part)
    return root


def entry_call(entry: TableEntry) -> tuple[str, dict[str, int]]:
    """(method name, keyword arguments) of the bfrt-python call installing ``entry``."""
    short = entry.action.rsplit(".", 1)[1]
    kwargs: dict[str, int] = {}
    if entry.default:
        kwargs.update(entry.params)
        return f"set_default_with_{short}", kwargs
    for name, m in entry.key.items():
        if isinstance(m, Ternary):
            kwargs[name], kwargs[f"{name}_mask"] = m.value, m.mask
        elif isinstance(m, Lpm):
            kwargs[name], kwargs[f"{name}_p_length"] = m.value, m.prefix_len
        else:
            assert isinstance(m, Exact)
            kwargs[name] = m.value
    if entry.priority is not None:
        kwargs["MATCH_PRIORITY"] = entry.priority
    kwargs.update(entry.params)
    return f"add_with_{short}", kwargs


def sync_payload() -> bytes:
    """Packet-generator buffer: Ethernet (EtherType SYNC) + sync_h, padded to 58 bytes;
    the generator prepends its 6-byte header (pktgen_timer_header_t)."""
    eth = bytes(6) + bytes(6) + ETHERTYPE_SYNC.to_bytes(2, "big")
    sync = bytes(8)                                    # qidx, phase, state, depth
    return (eth + sync).ljust(58, b"\0")



def install(plan: Any, bfrt: Any, *, program: str = "alphad_ref", target: str = "tofino",
            log: Any = print) -> None:
    """Clear and fill every table, set the registers, start the SYNC generator."""
    pipe = _node(bfrt, f"{program}.pipe")
    tables = sorted({e.table for e in plan.entries})
    for t in tables:
        _node(pipe, t).clear()
    if hasattr(bfrt, "batch_begin"):
        bfrt.batch_begin()
    for e in plan.entries:
        method, kwargs = entry_call(e)
        getattr(_node(pipe, e.table), method)(**kwargs)
    if hasattr(bfrt, "batch_end"):
        bfrt.batch_end()
    for reg, values in plan.registers.items():
        for idx, fields in values.items():
            _node(pipe, reg).mod(REGISTER_INDEX=int(idx), **{k: int(v) for k, v in fields.items()})
    pg = _node(bfrt, "tf2.pktgen" if target == "tofino2" else "tf1.pktgen")
    cfg = plan.pktgen
    payload = sync_payload()
    pg.port_cfg.mod(dev_port=cfg["pktgen_port"], pktgen_enable=True)
    pg.pkt_buffer.mod(pkt_buffer_offset=0, pkt_buffer_size=len(payload), buffer=list(payload))
    pg.app_cfg.mod_with_trigger_timer_periodic(
        app_id=cfg["app_id"], app_enable=True, timer_nanosec=cfg["timer_nanosec"],
        batch_count_cfg=0, packets_per_batch_cfg=cfg["packets_per_batch"] - 1,
        pipe_local_source_port=cfg["pktgen_port"] & 0x7F, increment_source_port=False,
        pkt_buffer_offset=0, pkt_len=len(payload))
    log(f"alphad_ref: {len(plan.entries)} entries in {len(tables)} tables, SYNC of "
        f"{cfg['packets_per_batch']} queues every {cfg['timer_nanosec']} ns")


class _JsonPlan:
    def __init__(self, data: dict[str, Any]) -> None:
        self.entries = [TableEntry.from_json(e) for e in data["entries"]]
        self.registers = data["registers"]
        self.pktgen = data["pktgen"]


def _plan_from_env() -> Any:
    if os.environ.get("ALPHAD_P4_PLAN"):
        with open(os.environ["ALPHAD_P4_PLAN"], encoding="utf-8") as f:
            return _JsonPlan(json.load(f))
    import p4ref_control as ctl

    dep = ctl.load_deployment(os.environ["ALPHAD_P4_DEPLOYMENT"])
    return ctl.build_plan(ctl.load_priorities(os.environ["ALPHAD_CONFIG"], dep.queues_per_port),
                          dep)


if "bfrt" in globals():  # executed by bfshell -b
    install(_plan_from_env(), globals()["bfrt"],
            program=os.environ.get("ALPHAD_P4_PROGRAM", "alphad_ref"),
            target=os.environ.get("ALPHAD_P4_TARGET", "tofino"))
