"""``python -m p4ref`` commands: output and error handling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import ROOT
from p4ref.cli import main


def test_synth_then_replay(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "s.csv"
    assert main(["synth", "--scheme", "dt", "--out", str(out)]) == 0
    assert "# source=synthetic" in out.read_text()
    assert main(["replay", str(out), "--cell-bytes", "80"]) == 0
    text = capsys.readouterr().out
    assert "SYNTHETIC" in text and "model vs exact(gamma=1/active)" in text


def test_replay_of_a_committed_trace(capsys: Any) -> None:
    traces = sorted((ROOT / "tests" / "data").glob("*.csv"))
    assert main(["replay", str(traces[0])]) == 0
    assert "model vs exact(gamma=1/active)" in capsys.readouterr().out


def test_errors_are_messages_not_tracebacks(tmp_path: Path, capsys: Any) -> None:
    assert main(["replay", str(tmp_path / "none.csv")]) == 1
    assert "none.csv" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("t_ns,switch\n1,a\n")
    assert main(["replay", str(bad)]) == 1
    assert "bad.csv line 1: header lacks column(s) port" in capsys.readouterr().err


def test_errgrid_prints_one_row_per_mantissa(capsys: Any) -> None:
    assert main(["errgrid", "--mantissa-bits", "5", "--rem-points", "20", "--max-np", "8"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("m= 5")]
    assert len(rows) == 1 and "mean=" in rows[0]
