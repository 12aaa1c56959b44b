"""The bfrt-python layer: TableEntry -> call translation, and what install() issues.

The SDE's ``bfrt`` object cannot run without a Tofino (or its model), so ``install`` is
driven here with a recorder that stores every call; the checks are on the calls'
names and arguments, which is all this layer decides."""

from __future__ import annotations

from typing import Any

import bfrt_setup
from p4ref.entries import Exact, Lpm, T, TableEntry, Ternary


def test_entry_calls() -> None:
    tern = TableEntry(T.LOG_REM, T.A_SET_L_REM, {"rem": Ternary(0x40, 0xFFC0)}, {"l": 7}, 26)
    assert bfrt_setup.entry_call(tern) == (
        "add_with_set_l_rem", {"rem": 0x40, "rem_mask": 0xFFC0, "MATCH_PRIORITY": 26, "l": 7})
    lpm = TableEntry(T.FWD, T.A_SET_PORT, {"dst_addr": Lpm(0x0A000000, 8)}, {"port": 4})
    assert bfrt_setup.entry_call(lpm) == (
        "add_with_set_port", {"dst_addr": 0x0A000000, "dst_addr_p_length": 8, "port": 4})
    ex = TableEntry(T.ALPHA, T.A_SET_ALPHA, {"aidx": Exact(1), "unsched": Exact(0)}, {"l": 3})
    assert bfrt_setup.entry_call(ex) == ("add_with_set_alpha", {"aidx": 1, "unsched": 0, "l": 3})
    dflt = TableEntry(T.SYNC_CFG, T.A_SET_SYNC_PORT, default=True, params={"port": 69})
    assert bfrt_setup.entry_call(dflt) == ("set_default_with_set_sync_port", {"port": 69})


class Recorder:
    """Stands in for the SDE's bfrt object: records ``path.method(**kwargs)`` calls."""

    def __init__(self, log: list[tuple[str, str, dict[str, Any]]], path: str = "") -> None:
        self._log, self._path = log, path

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("add_with_", "set_default_with_", "mod", "clear", "batch_")):
            return lambda **kw: self._log.append((self._path, name, kw))
        return Recorder(self._log, f"{self._path}.{name}".lstrip("."))


def test_install_issues_every_entry_register_and_generator_call(abm_plan: Any) -> None:
    plan, dep = abm_plan
    log: list[tuple[str, str, dict[str, Any]]] = []
    bfrt_setup.install(plan, Recorder(log), log=lambda *_: None)
    adds = [c for c in log if c[1].startswith(("add_with_", "set_default_with_"))]
    assert len(adds) == len(plan.entries)
    assert {p for p, m, _ in log if m == "clear"} == {f"alphad_ref.pipe.{e.table}"
                                                       for e in plan.entries}
    regs = [c for c in log if c[0] == "alphad_ref.pipe.Ingress.occupancy"]
    assert regs == [("alphad_ref.pipe.Ingress.occupancy", "mod",
                     {"REGISTER_INDEX": 0, "occ": 0, "pool": dep.pool_units})]
    app = [kw for p, m, kw in log if m == "mod_with_trigger_timer_periodic"]
    assert app and app[0]["packets_per_batch_cfg"] == 15 and app[0]["timer_nanosec"] == 10_000
    assert app[0]["pipe_local_source_port"] == 68
    buf = next(kw for p, _, kw in log if p == "tf1.pktgen.pkt_buffer")
    payload = bytes(buf["buffer"])
    assert payload[12:14] == b"\x88\xb5" and len(payload) == buf["pkt_buffer_size"] == 58


def test_tofino2_uses_its_generator(abm_plan: Any) -> None:
    log: list[tuple[str, str, dict[str, Any]]] = []
    bfrt_setup.install(abm_plan[0], Recorder(log), target="tofino2", log=lambda *_: None)
    assert any(p.startswith("tf2.pktgen") for p, _, _ in log)
    assert not any(p.startswith("tf1.") for p, _, _ in log)
