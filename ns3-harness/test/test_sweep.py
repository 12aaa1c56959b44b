"""The sweep executor: parallel runs, cache by parameters, resume, failures reported."""

from __future__ import annotations

import json
from pathlib import Path

from alphad_ns3.scenario import RunSpec, Scenario
from alphad_ns3.sweep import cached, execute

TINY = Scenario(gen=0.003, drain=0.002, qps=100.0, load=0.3)


def test_runs_once_then_from_cache(tmp_path: Path) -> None:
    specs = [RunSpec(scenario=TINY.model_copy(update={"seed": s})) for s in (1, 2)]
    seen: list[str] = []
    res = execute(specs, tmp_path, workers=2, progress=lambda r: seen.append(r["key"]))
    assert sorted(seen) == sorted(s.key() for s in specs)
    assert all("metrics" in r for r in res.values())
    stamp = {s.key(): (tmp_path / s.key() / "done.json").stat().st_mtime_ns for s in specs}
    # a different seed is a different run; the same parameters come from the cache
    more = [*specs, RunSpec(scenario=TINY.model_copy(update={"seed": 3}))]
    res2 = execute(more, tmp_path, workers=2)
    assert len(res2) == 3
    for s in specs:
        assert (tmp_path / s.key() / "done.json").stat().st_mtime_ns == stamp[s.key()]
        same = json.dumps(res2[s.key()]["metrics"]) == json.dumps(res[s.key()]["metrics"])
        assert same  # NaN-safe comparison
    assert cached(more[2], tmp_path) is not None


def test_a_failed_run_is_reported_not_cached(tmp_path: Path) -> None:
    spec = RunSpec(scenario=TINY)
    res = execute([spec], tmp_path, workers=1, program=str(tmp_path / "no-such-program"))
    assert "not built" in res[spec.key()]["error"]
    assert cached(spec, tmp_path) is None


def test_the_key_counts_the_cdf_by_content_not_path(tmp_path: Path) -> None:
    """The same run has the same cache key in any checkout; another CDF is another run."""
    src = Path(TINY.cdf)
    copy = tmp_path / "elsewhere.cdf"
    copy.write_bytes(src.read_bytes())
    here = RunSpec(scenario=TINY)
    assert RunSpec(scenario=TINY.model_copy(update={"cdf": str(copy)})).key() == here.key()
    copy.write_bytes(src.read_bytes().replace(b"1", b"2", 1))
    assert RunSpec(scenario=TINY.model_copy(update={"cdf": str(copy)})).key() != here.key()
