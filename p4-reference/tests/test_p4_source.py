"""The P4 source, the model's schema and the control plane describe the same program.

No P4 compiler runs here, so this reads ``p4src/*.p4`` as text: every table's keys (with
their ``@name``), match kinds, actions, parameter widths, default action and size must be
what :mod:`p4ref.schema` says, and the const ``state_delta`` entries must be the model's
:func:`~p4ref.pipeline.state_transition`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from conftest import ROOT
from p4ref import schema
from p4ref.pipeline import state_transition

SRC = "\n".join((ROOT / "p4src" / n).read_text() for n in ("headers.p4", "alphad_ref.p4"))
TEXT = re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", SRC, flags=re.S))
DEFINES = dict(re.findall(r"#define[ \t]+(\w+)[ \t]+(\S+)", TEXT))
WIDTHS = {"PortId_t": 9, "QueueId_t": 5}            # Tofino 1 widths (tofino1_specs.p4)


def _block(start: int) -> tuple[str, int]:
    """Text between the brace at/after ``start`` and its match."""
    i = TEXT.index("{", start)
    depth = 0
    for j in range(i, len(TEXT)):
        depth += {"{": 1, "}": -1}.get(TEXT[j], 0)
        if depth == 0:
            return TEXT[i + 1:j], j
    raise AssertionError("unbalanced braces")


def _controls() -> list[tuple[str, int, int]]:
    out = []
    for m in re.finditer(r"\bcontrol\s+(\w+)\s*\(", TEXT):
        depth, k = 1, m.end()
        while depth:                                   # skip the parameter list
            depth += {"(": 1, ")": -1}.get(TEXT[k], 0)
            k += 1
        _, end = _block(k)
        out.append((m.group(1), k, end))
    return out


def _owner(pos: int) -> str:
    for name, lo, hi in _controls():
        if lo <= pos <= hi:
            return name
    raise AssertionError(f"declaration at {pos} outside any control")


def _int(tok: str) -> int:
    tok = DEFINES.get(tok.strip(), tok.strip())
    return int(tok, 0)


@dataclass
class P4Table:
    keys: list[tuple[str, str]]
    actions: list[str]
    default: tuple[str, list[int]]
    size: int
    const: list[tuple[list[int], str, list[int]]]


def _tables() -> dict[str, P4Table]:
    out = {}
    for m in re.finditer(r"\btable\s+(\w+)\s*\{", TEXT):
        body, _ = _block(m.start())
        keys = re.findall(r":\s*(exact|ternary|lpm)\s*@name\(\"(\w+)\"\)", body)
        km = re.search(r"\bkey\s*=\s*\{([^}]*)\}", body)
        if km:
            assert len(keys) == km.group(1).count(";"), f"table {m.group(1)}: key without @name"
        acts = re.search(r"actions\s*=\s*\{([^}]*)\}", body)
        assert acts, m.group(1)
        dm = re.search(r"default_action\s*=\s*(\w+)\(([^)]*)\)", body)
        assert dm, m.group(1)
        size = re.search(r"\bsize\s*=\s*(\w+)", body)
        const = [([_int(x) for x in k.split(",")], a, [_int(x) for x in v.split(",") if x.strip()])
                 for k, a, v in re.findall(r"\(([^)]*)\)\s*:\s*(\w+)\(([^)]*)\)\s*;", body)]
        out[f"{_owner(m.start())}.{m.group(1)}"] = P4Table(
            [(n, k) for k, n in keys],
            [a.strip() for a in acts.group(1).split(";") if a.strip()],
            (dm.group(1), [_int(x) for x in dm.group(2).split(",") if x.strip()]),
            _int(size.group(1)) if size else 0, const)
    return out


def _actions() -> dict[str, list[tuple[str, int]]]:
    out = {}
    for m in re.finditer(r"\baction\s+(\w+)\s*\(([^)]*)\)", TEXT):
        params = []
        for p in (x.strip() for x in m.group(2).split(",") if x.strip()):
            typ, name = p.rsplit(None, 1)
            bits = re.fullmatch(r"bit<(\d+)>", typ)
            params.append((name, int(bits.group(1)) if bits else WIDTHS[typ]))
        out[f"{_owner(m.start())}.{m.group(1)}"] = params
    return out


TABLES = _tables()
ACTIONS = _actions()


def test_register_sizes_match_the_model() -> None:
    assert _int("MAX_QUEUES") == schema.MAX_QUEUES
    assert _int("MAX_NIDX") == schema.MAX_NIDX
    assert _int("MAX_PORTS") == schema.MAX_PORTS


@pytest.mark.parametrize("name", sorted(schema.SCHEMA))
def test_table_matches_schema(name: str) -> None:
    spec = schema.SCHEMA[name]
    t = TABLES[name]
    assert t.keys == [(k.name, k.kind) for k in spec.keys]
    ctrl = name.split(".")[0]
    assert sorted(f"{ctrl}.{a}" for a in t.actions) == sorted(a.name for a in spec.actions)
    for a in spec.actions:
        assert ACTIONS[a.name] == list(a.params), a.name
    assert f"{ctrl}.{t.default[0]}" == spec.default_action
    assert t.default[1] == [v for _, v in spec.default_params]
    assert t.size == spec.size


def test_every_runtime_table_is_in_the_schema() -> None:
    runtime = {n for n, t in TABLES.items() if not t.const}
    assert runtime == set(schema.SCHEMA)


def test_state_delta_const_entries_are_the_model_transition() -> None:
    t = TABLES["Ingress.state_delta"]
    assert t.keys == [("old_state", "exact"), ("new_state", "exact")]
    seen = {(k[0], k[1]): tuple(v) for k, a, v in t.const if a == "set_delta"}
    assert seen == {(o, n): state_transition(o, n) for o in range(4) for n in range(4)}


def test_every_register_action_is_on_a_declared_register() -> None:
    regs = set(re.findall(r"Register<[^;]*?>\s*\([^;]*?\)\s*(\w+)\s*;", TEXT))
    used = set(re.findall(r"RegisterAction<[^>]*>+\s*\((\w+)\)", TEXT))
    assert used <= regs and {"qlen_ig", "qstate", "occupancy", "np_reg", "active_reg",
                             "qlen_eg", "state_eg", "qlen_gh"} == regs
