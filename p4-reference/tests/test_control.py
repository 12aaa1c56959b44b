"""Control plane: YAML validation with named fields, and the table entries it builds."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import p4ref_control as ctl
import pytest
import yaml
from conftest import ALPHAD_PRIORITIES, ROOT, deployment_doc
from p4ref import arith
from p4ref.entries import Exact, T, TableEntry
from p4ref.schema import check_entry


def _prios(**over: Any) -> list[dict[str, Any]]:
    p = [dict(x) for x in ALPHAD_PRIORITIES["priorities"]]  # type: ignore[union-attr]
    p[0].update(over)
    return p


@pytest.mark.parametrize(("doc", "message"), [
    ({"interval": 1}, "priorities: missing"),
    ({"priorities": []}, "priorities: expected a non-empty list"),
    ({"priorities": _prios(alpha=0)}, r"priorities\[0\].alpha: must be > 0"),
    ({"priorities": _prios(alpha="lots")}, r"priorities\[0\].alpha: expected a number"),
    ({"priorities": _prios(alpha=1e6)}, r"priorities\[0\].alpha: alpha .* outside"),
    ({"priorities": _prios(queues=[0, 3])}, r"priorities\[1\].queues\[0\]: queue 3 already "
                                            "belongs to priority 'bulk'"),
    ({"priorities": _prios(queues=[40])}, r"priorities\[0\].queues\[0\]: 40 outside 0..31"),
    ({"priorities": _prios(queues="0-2")}, r"priorities\[0\].queues: expected a non-empty list"),
    ({"priorities": _prios(colour="red")}, r"priorities\[0\]: unknown field\(s\) colour"),
    ({"priorities": _prios(name="query")}, r"priorities\[1\].name: duplicate priority name"),
    ({"priorities": _prios(group=3)}, r"priorities\[0\].group: expected a non-empty string"),
    ({"priorities": [{"name": "x", "queues": [1]}]}, r"priorities\[0\].alpha: missing"),
    ({"priorities": _prios(allow_lower="yes")}, r"priorities\[0\].allow_lower: expected"),
    ("just text", "configuration: expected a mapping"),
])
def test_priority_errors_name_the_field(doc: Any, message: str) -> None:
    with pytest.raises(ctl.ConfigError, match=message):
        ctl.parse_priorities(doc)


def test_other_alphad_keys_are_ignored() -> None:
    prios = ctl.parse_priorities(ALPHAD_PRIORITIES)
    assert [(p.name, p.queues, p.alpha, p.group) for p in prios] == [
        ("bulk", (0, 1, 2, 4, 5, 6, 7), 0.5, "low"), ("query", (3,), 8, "query")]


@pytest.mark.parametrize(("over", "message"), [
    ({"scheme": "pie"}, "scheme: expected one of abm, fb, dt"),
    ({"ports": []}, "ports: expected a non-empty list"),
    ({"ports": [{"dev_port": 1}, {"dev_port": 1}]}, r"ports\[1\].dev_port: duplicate port 1"),
    ({"ports": [{"dev_port": 1, "routes": ["10.0.0.1/24"]}]}, r"ports\[0\].routes\[0\]: "),
    ({"ports": [{"port": 1}]}, r"ports\[0\]: unknown field\(s\) port"),
    ({"pool_bytes": -5}, "pool_bytes: -5 outside"),
    ({"cell_bytes": 0}, "cell_bytes: 0 outside"),
    ({"congestion_fraction": 2}, r"congestion_fraction: 2 outside \[0, 1\]"),
    ({"unsched_tag": {"value": 0x20, "mask": 0x20}}, "unsched_tag: mask must avoid"),
    ({"recirc_port": 196}, "recirc_port: its pipe-local number must differ"),
    ({"sync": {"period": 5}}, r"sync: unknown field\(s\) period"),
    ({"admit_rule": "strict"}, "admit_rule: expected fit or below"),
    ({"colour": 1}, r"deployment: unknown field\(s\) colour"),
])
def test_deployment_errors_name_the_field(over: dict[str, Any], message: str) -> None:
    with pytest.raises(ctl.ConfigError, match=message):
        ctl.parse_deployment(deployment_doc(**over))


def _by_table(entries: list[TableEntry]) -> Counter[str]:
    return Counter(e.table for e in entries)


def test_abm_plan(abm_plan: Any) -> None:
    plan, _ = abm_plan
    for e in plan.entries:
        check_entry(e)
    n = _by_table(plan.entries)
    assert n[T.MAP_QUEUE] == n[T.SYNC_MAP] == 2 * 8 == len(plan.queues)
    assert n[T.ALPHA] == 4 and n[T.EXP] == arith.EXP_KEY_LIMIT and n[T.FWD] == 2
    assert n[T.LOG_NP] > 0 and n[T.LOG_GAMMA] > 0
    alpha = {(e.key["aidx"].value, e.key["unsched"].value): arith.to_signed(e.params["l"])
             for e in plan.entries if e.table == T.ALPHA}
    assert alpha == {(0, 0): -256, (0, 1): 1536, (1, 0): 768, (1, 1): 1536}  # 0.5, 8, 64
    nidx = {q["priority"]: q["nidx"] for q in plan.queues}
    assert nidx == {"bulk": 0, "query": 1}                  # ABM: n_p per priority
    assert plan.registers == {"Ingress.occupancy": {0: {"occ": 0, "pool": 12_500}}}
    assert plan.pktgen["packets_per_batch"] == 16
    units = {e.key["total_len"].value: e.params["units"] for e in plan.entries
             if e.table == T.PKT_UNITS and not e.default}
    assert units[62] == 1 and units[63] == 2 and units[1482] == 19    # +18 B, 80 B cells


def test_fb_groups_and_dt_tables() -> None:
    prios = [{"name": "a", "queues": [0], "alpha": 1, "group": "low"},
             {"name": "b", "queues": [1], "alpha": 2, "group": "low"},
             {"name": "c", "queues": [2], "alpha": 20}]
    fb = ctl.build_plan(ctl.parse_priorities({"priorities": prios}),
                        ctl.parse_deployment(deployment_doc(scheme="fb")))
    assert {q["priority"]: q["nidx"] for q in fb.queues} == {"a": 0, "b": 0, "c": 1}
    cong = {e.params["thr_cong"] for e in fb.entries if e.table == T.EXP}
    assert cong == {1}                                      # FB: congested = non-empty
    alpha = {e.key["aidx"].value: e.params["l"] for e in fb.entries
             if e.table == T.ALPHA and e.key["unsched"] == Exact(1)}
    assert alpha == {0: 0, 1: 256, 2: arith.to_unsigned(arith.alpha_log_fixed(20))}
    dt = ctl.build_plan(ctl.parse_priorities({"priorities": prios}),
                        ctl.parse_deployment(deployment_doc(scheme="dt")))
    assert _by_table(dt.entries)[T.LOG_NP] == _by_table(dt.entries)[T.LOG_GAMMA] == 0


def test_below_rule_counts_one_unit_per_packet() -> None:
    plan = ctl.build_plan(ctl.parse_priorities(ALPHAD_PRIORITIES),
                          ctl.parse_deployment(deployment_doc(admit_rule="below")))
    assert {e.params["units"] for e in plan.entries if e.table == T.PKT_UNITS} == {1}


def test_plan_json_round_trip(abm_plan: Any) -> None:
    plan, _ = abm_plan
    data = json.loads(json.dumps(plan.to_json()))
    back = [TableEntry.from_json(e) for e in data["entries"]]
    assert back == plan.entries


def test_cli_writes_plan_and_reports_errors(tmp_path: Path, capsys: Any) -> None:
    cfg = tmp_path / "alphad.yaml"
    cfg.write_text(yaml.safe_dump(ALPHAD_PRIORITIES))
    dep = tmp_path / "dep.yaml"
    dep.write_text((ROOT / "control" / "deployment.example.yaml").read_text())
    out = tmp_path / "plan.json"
    assert ctl.main([str(cfg), str(dep), "--json", str(out)]) == 0
    assert len(json.loads(out.read_text())["entries"]) > 10_000
    bad = tmp_path / "bad.yaml"
    bad.write_text("priorities:\n  - name: bulk\n    queues: [0]\n    alpha: -1\n")
    assert ctl.main([str(bad), str(dep)]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml: priorities[0].alpha: must be > 0, got -1" in err
    broken = tmp_path / "broken.yaml"
    broken.write_text("priorities: [\n")
    assert ctl.main([str(broken), str(dep)]) == 1
    assert "invalid YAML" in capsys.readouterr().err
    assert ctl.main([str(tmp_path / "missing.yaml"), str(dep)]) == 1
    assert "missing.yaml" in capsys.readouterr().err


def test_repository_alphad_configs_parse() -> None:
    """Every alphad configuration in the repository that has priorities is accepted; a
    priority that keeps the switch's alpha takes the deployment's default."""
    found = []
    for path in sorted((ROOT.parent / "configs").glob("**/*.yaml")):
        doc = yaml.safe_load(path.read_text())
        if isinstance(doc, dict) and "priorities" in doc:
            found.append(path)
            prios = ctl.parse_priorities(doc, default_alpha=Fraction(8))
            for raw, p in zip(doc["priorities"], prios, strict=True):
                assert p.alpha == (Fraction(raw["alpha"]) if "alpha" in raw else 8)
    if not found:
        pytest.skip("no alphad configuration with 'priorities' under configs/ yet")
