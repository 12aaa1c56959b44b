"""The frontier: each config's gain where raising pays beside its harm on p00."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.suite import frontier
from bench.suite.__main__ import main
from bench.suite.campaign import row_key
from bench.suite.tests.test_suite import _m


def _files(tmp_path: Path) -> tuple[Path, Path]:
    gain: dict = {"scenarios": {}, "rows": {}}  # type: ignore[type-arg]
    for n in ("s21", "s22"):
        gain["scenarios"][n] = {"half": "dev", "burst_classes": [1]}
        for s, j in ((1, 0.0), (2, 0.1)):
            gain["rows"][row_key(n, s, "dt")] = {"1s": _m(10 + j, 5, 2)}
            gain["rows"][row_key(n, s, "auto18@100ms")] = {"1s": _m((10 + j) / 2, 5, 2)}
    harm: dict = {"scenarios": {"p00": {"half": "dev", "burst_classes": [1, 2]}},  # type: ignore[type-arg]
                  "rows": {}}
    for s, (d, c) in enumerate([(2, 6), (3, 3), (1, 4)], start=1):
        harm["rows"][row_key("p00", s, "dt")] = {"1s": _m(10, 5, d)}
        harm["rows"][row_key("p00", s, "auto18@100ms")] = {"1s": _m(10, 5, c)}
    paths = tmp_path / "gain.json", tmp_path / "harm.json"
    for p, r in zip(paths, (gain, harm), strict=True):
        p.write_text(json.dumps(r))
    return paths


def test_a_point_pairs_the_gain_side_with_the_harm_scenarios_count(tmp_path: Path) -> None:
    g, h = (json.loads(p.read_text()) for p in _files(tmp_path))
    p = frontier.point(g, ["s21", "s22"], h, "p00", "auto18@100ms")
    assert p is not None
    assert math.isclose(p.gain, 2 ** (-1 / 3) - 1)  # two of six metrics halved in both
    assert p.gain_not_worse == 1.0 and p.gain_pairs == 12
    assert p.harm > 0  # more short flows with a timeout than DT
    assert (p.count, p.dt_count, p.seeds_worse, p.seeds) == (13, 6, 2, 3)
    assert frontier.point(g, ["s21"], h, "p00", "auto39@1s") is None  # no rows: no point


def test_frontier_prints_the_table_and_draws_the_points(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    g, h = _files(tmp_path)
    png = tmp_path / "f.png"
    assert main(["frontier", "--results", str(g), "--harm-results", str(h), "--half",
                 "s21,s22", "--configs", "auto18@100ms,auto39@1s", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "| `auto18@100ms` | -21% |" in out
    assert "| 13 (DT 6) | 2 of 3 |" in out
    assert "no pair on one side: auto39@1s" in out
    assert png.stat().st_size > 0
    assert main(["frontier", "--results", str(tmp_path / "none.json"), "--configs",
                 "dt"]) == 2
    assert "--results:" in capsys.readouterr().err
    assert main(["frontier", "--results", str(g), "--harm-results", str(h), "--harm", "q9",
                 "--configs", "dt"]) == 2
    assert "unknown scenario 'q9'" in capsys.readouterr().err
    assert main(["frontier", "--results", str(g), "--harm-results", str(h), "--harm", "dev",
                 "--configs", "dt"]) == 2
    assert "--harm 'dev': expected one scenario's name" in capsys.readouterr().err


def test_each_config_is_read_with_dt_from_the_first_file_that_holds_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A second pair of files, another program's, holds another config with its own DT:
    each config's point pairs it with the DT of its own file."""
    g, h = _files(tmp_path)
    g2, h2 = (json.loads(p.read_text()) for p in (g, h))
    for r in (g2, h2):  # the other program's DT is twice as bad; its config is the first's
        r["rows"] = {k.replace("auto18@100ms", "auto38@100ms"): v for k, v in r["rows"].items()}
        for k in [k for k in r["rows"] if k.endswith("|dt")]:
            m = r["rows"][k]["1s"]
            r["rows"][k] = {"1s": {x: 2 * v if isinstance(v, (int, float)) else v
                                   for x, v in m.items()}}
    g2p, h2p = tmp_path / "gain2.json", tmp_path / "harm2.json"
    g2p.write_text(json.dumps(g2))
    h2p.write_text(json.dumps(h2))
    assert main(["frontier", "--results", str(g), "--results", str(g2p), "--harm-results",
                 str(h), "--harm-results", str(h2p), "--half", "s21,s22", "--configs",
                 "auto18@100ms,auto38@100ms"]) == 0
    out = capsys.readouterr().out
    assert "| `auto18@100ms` | -21% |" in out and "| 13 (DT 6) | 2 of 3 |" in out
    assert "`auto38@100ms`" in out and "| 13 (DT 12) |" in out
    assert "no pair on one side" not in out
    g1 = json.loads(g.read_text())
    assert frontier.holding([g1, g2], "auto38@100ms", ["s21"]) is g2
    assert frontier.holding([g1, g2], "auto18@100ms", ["s21"]) is g1
    assert frontier.holding([g1], "auto38@100ms", ["s21"]) is None
    assert frontier.holding([g1, g2], "auto18@100ms", ["p00"]) is None  # not on the side's
