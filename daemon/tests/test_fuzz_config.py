"""The YAML configuration fuzzed with hypothesis: arbitrary text, and a valid file with
one key given an arbitrary value. Every input is either accepted (and then builds a
controller) or refused with ConfigError lines that name a field or a line; never
another exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphad.checks import check_scheme, synthetic_topology
from alphad.config import ConfigError, parse_config
from alphad.controller import Controller

ROOT = Path(__file__).resolve().parents[2]
SCN = ROOT / "configs" / "scenarios" / "default.scn"
FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

BASE: dict[str, Any] = {
    "interval": "10ms",
    "scheme": "abm",
    "priorities": [{"name": "bulk", "queues": [0, 1, 2], "alpha": 0.5},
                   {"name": "query", "queues": [3], "alpha": 1}],
    "quantize": {"mode": "pow2", "kmin": -8, "kmax": 7, "hysteresis": 0.25},
    "estimate": {"congested_fraction": 0.9, "min_bytes": 1500},
    "failsafe": {"stale_intervals": 5, "min_stale": "100ms", "error_intervals": 3,
                 "recover_intervals": 3, "max_line_rate": 2, "max_fill": 2},
    "limits": {"max_step": 15, "queue_min_interval": 0, "write_budget": 10000},
    "backend": {"type": "vasic", "scenario": str(SCN), "clock": "manual"},
    "metrics": {"enabled": False, "listen": "127.0.0.1:9464"},
    "api": {"enabled": True, "listen": "127.0.0.1:8080"},
}
# (path, top-level keys an error about a bad value there may name)
PATHS: list[tuple[tuple[Any, ...], tuple[str, ...]]] = [
    (("interval",), ("interval",)),
    (("scheme",), ("scheme",)),
    (("scheme_params",), ("scheme_params",)),
    (("priorities",), ("priorities",)),
    (("priorities", 0, "queues"), ("priorities",)),
    (("priorities", 0, "alpha"), ("priorities",)),
    (("priorities", 1, "name"), ("priorities",)),
    (("quantize", "kmin"), ("quantize", "priorities")),
    (("quantize", "kmax"), ("quantize", "priorities")),
    (("quantize", "hysteresis"), ("quantize",)),
    (("estimate", "min_bytes"), ("estimate",)),
    (("failsafe", "stale_intervals"), ("failsafe",)),
    (("failsafe", "min_stale"), ("failsafe",)),
    (("failsafe", "recover_intervals"), ("failsafe",)),
    (("limits", "max_step"), ("limits",)),
    (("limits", "queue_min_interval"), ("limits",)),
    (("limits", "write_budget"), ("limits",)),
    (("backend",), ("backend",)),
    (("backend", "type"), ("backend",)),
    (("backend", "clock"), ("backend",)),
    (("metrics", "listen"), ("metrics",)),
    (("api", "token"), ("api",)),
    (("ports",), ("ports",)),
    (("lock_dir",), ("lock_dir",)),
    (("nonsense_key",), ("nonsense_key",)),
]

scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats()
           | st.text(max_size=20)
           | st.sampled_from(["10ms", "-1s", "1e999", "0", "nan", "abm", "dt", "vasic",
                              "sonic", "80us", "~", "yes", "0x10", "1h", "", " "]))
values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4)
                      | st.dictionaries(st.text(max_size=8) | st.integers(), kids, max_size=4),
                      max_leaves=10)


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    doc = yaml.safe_load(yaml.safe_dump(doc))  # deep copy
    cur = doc
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return doc


def _check(text: str, tmp: Path, names: tuple[str, ...] | None = None) -> None:
    try:
        cfg = parse_config(text, "fuzz.yaml", tmp)
    except ConfigError as e:
        assert e.errors, text
        for line in e.errors:
            assert isinstance(line, str) and line.strip(), e.errors
            assert "Traceback" not in line
        if names is not None:
            assert any(n in line for line in e.errors for n in names), (names, e.errors)
        return
    problem = check_scheme(cfg)  # a valid file builds the daemon's controller
    if problem is None:
        Controller.from_config(cfg, synthetic_topology(cfg))
    else:
        assert problem.startswith("scheme_params:")


def test_base_config_is_valid(tmp_path: Path) -> None:
    cfg = parse_config(yaml.safe_dump(BASE), "base", tmp_path)
    assert cfg.limits.write_budget == 10000 and cfg.failsafe.min_stale == 0.1


@given(text=st.text(max_size=300))
@FUZZ
def test_arbitrary_text(text: str) -> None:
    _check(text, Path("/nonexistent-base"))


@given(lines=st.lists(st.sampled_from([
    "interval: 10ms", "scheme: abm", "priorities:", "  - name: a", "    queues: [0, 1]",
    "    alpha: 0.5", "backend: {type: vasic, scenario: x.scn}", "quantize: {kmin: 3}",
    "  - {name: b, queues: [0], alpha: 2}", "limits:", "  write_budget: -1", "failsafe: []",
    "interval: &a 5ms", "scheme: *a", "priorities: *a", "  queues: [", "\t", "key: 'open",
    "- item", "? complex", "!!python/object:os.system {}", "<<: *a", "..."]), max_size=12))
@FUZZ
def test_yaml_shaped_text(lines: list[str]) -> None:
    _check("\n".join(lines), Path("/nonexistent-base"))


@given(where=st.sampled_from(PATHS), value=values)
@FUZZ
def test_one_key_with_any_value(where: Any, value: Any) -> None:
    path, names = where
    doc = _set(BASE, path, value)
    _check(yaml.safe_dump(doc), Path("/nonexistent-base"), names)
