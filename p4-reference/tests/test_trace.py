"""Trace reader: round trip and errors that name file, line and column."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from p4ref.trace import COLUMNS, TraceError, read_trace, write_trace

ROW = (1000, "leaf0", 2, 3, "query", 1500, 3000, 60000, 300000, 1, 2, 0.5, 8.0, 1, 1, 64000.0)
META = {"scheme": "abm", "alpha_unsched": "64", "admit_rule": "fit", "source": "test"}


def test_round_trip_keeps_every_value() -> None:
    rows = [ROW, (2000, "leaf0", 1, 0, "bulk", 64, 0, 61500, 300000, 0, 0, 1.0, 0.5, 0, 0,
                  0.1 + 0.2)]
    tr = read_trace("t.csv", write_trace(rows, META))
    assert len(tr) == 2 and tr.scheme == "abm" and tr.alpha_unsched == 64.0
    assert tr.meta["source"] == "test"
    for i, col in enumerate(COLUMNS):
        got = list(tr.cols[col])
        assert got == [r[i] for r in rows], col           # floats survive exactly (repr)


def test_extra_columns_and_any_order_are_accepted(tmp_path: Path) -> None:
    cols = [*reversed(COLUMNS), "flow_id"]
    text = ",".join(cols) + "\n" + ",".join(str(v) for v in [*reversed(ROW), 7]) + "\n"
    p = tmp_path / "x.csv"
    p.write_text(text)
    tr = read_trace(p)
    assert tr.cols["qlen_bytes"][0] == 3000 and tr.scheme == "abm"


def _text(**repl: str) -> str:
    values = [str(v) for v in ROW]
    for k, v in repl.items():
        values[COLUMNS.index(k)] = v
    return "# scheme=abm\n" + ",".join(COLUMNS) + "\n" + ",".join(values) + "\n"


@pytest.mark.parametrize(("text", "message"), [
    (_text(qlen_bytes="lots"), "t.csv line 3: column qlen_bytes: expected an integer, got 'lots'"),
    (_text(gamma="1.5"), r"t.csv: data row 1: gamma > 1"),
    (_text(gamma="0"), "line 3: column gamma: '0' out of range"),
    (_text(admitted="2"), "line 3: column admitted: '2' out of range"),
    (_text(pool_occupancy_bytes="400000"), "pool_occupancy_bytes exceeds pool_bytes"),
    (_text(switch=""), "line 3: column switch: empty"),
    ("# scheme=pie\n" + ",".join(COLUMNS) + "\n", "scheme=.pie.: the P4 reference implements"),
    ("# admit_rule=maybe\n" + ",".join(COLUMNS) + "\n", "admit_rule='maybe'"),
    ("# alpha_unsched=-1\n" + ",".join(COLUMNS) + "\n", "alpha_unsched='-1'"),
    ("# just a note\n" + ",".join(COLUMNS) + "\n", "line 1: comment lines before the header"),
    ("t_ns,switch\n1,a\n", "line 1: header lacks column\\(s\\) port, queue"),
    (",".join(COLUMNS) + "\n1,2\n", "line 2: 2 fields, header has 16"),
    ("# scheme=dt\n", "no header line"),
])
def test_errors_name_line_and_column(text: str, message: str) -> None:
    with pytest.raises(TraceError, match=message):
        read_trace("t.csv", text)


def test_missing_file_is_a_trace_error(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match=r"nope\.csv"):
        read_trace(tmp_path / "nope.csv")


def test_select_keeps_meta() -> None:
    tr = read_trace("t.csv", write_trace([ROW, ROW], META))
    sub = tr.select(np.array([True, False]))
    assert len(sub) == 1 and sub.meta == tr.meta


def test_groups_and_abm_core_meta() -> None:
    meta = {"scheme": "abm-core", "alpha_unsched": "64", "groups": "0,0,1"}
    tr = read_trace("t.csv", write_trace([ROW], meta))
    assert tr.alpha_unsched is None                      # abm-core has no first-RTT alpha
    assert [tr.group_of(p) for p in ("0", "1", "2")] == ["0", "0", "1"]
    with pytest.raises(TraceError, match="groups='0,0,1' has no entry for priority 'query'"):
        tr.group_of("query")
