"""Recording a run and `alphad report` (PNG plots with matplotlib)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _obs_support import OUTPUT, write_config
from matplotlib.image import imread

from alphad.backends.sai import VasicBackend
from alphad.config import load_config
from alphad.loop import Daemon
from alphad.report import Recorder, RecordError, busy_ports, load_run, render

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _record(tmp: Path, name: str, cycles: int = 200) -> tuple[Path, Daemon]:
    cfg = load_config(write_config(tmp))
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    path = tmp / name
    try:
        d = Daemon(cfg, be)
        rec = Recorder(path)
        d.on_cycle = rec
        for _ in range(cycles):
            be.advance(d.interval)
            d.cycle()
        rec.close()
        assert rec.records == cycles and rec.lost == 0
    finally:
        be.close()
    return path, d


def _check_png(p: Path, min_colors: int = 6) -> np.ndarray:
    assert p.read_bytes()[:8] == PNG_MAGIC
    img = imread(p)
    h, w = img.shape[:2]
    assert h >= 400 and w >= 800
    # Non-trivial: several distinct colours (lines, text) over the white background.
    colours = np.unique((img[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) >= min_colors
    assert (img[..., :3] < 0.9).mean() > 0.01  # ink on more than 1% of the picture
    return img


def test_record_roundtrip_matches_the_loop(tmp_path: Path) -> None:
    path, d = _record(tmp_path, "run.jsonl.gz")
    with gzip.open(path, "rt") as f:
        head = json.loads(f.readline())
    assert head["format"] == "alphad-record" and len(head["queue_port"]) == 128
    run = load_run(path)
    s = d.snapshot
    assert s is not None
    assert run.t.shape == (200,) and run.watermark.shape == (200, 128)
    assert np.all(np.diff(run.t) > 0)
    assert run.t[-1] == pytest.approx(s.sample.t)
    assert np.array_equal(run.alpha[-1], s.sample.alpha)
    assert np.allclose(run.threshold[-1], s.threshold, atol=0.5)
    assert np.array_equal(run.dropped[-1], np.rint(s.drops_total))
    i = run.find("Ethernet32", 3)
    assert run.priorities[run.prio[i]] == "query"
    assert len(np.unique(run.alpha[:, i])) > 1  # ABM moved the query queue's alpha
    assert np.all(np.diff(run.dropped, axis=0) >= 0)
    assert set(run.scheme) == {"abm"}


def test_render_writes_real_pngs(tmp_path: Path) -> None:
    path, _ = _record(tmp_path, "run.jsonl")
    out = OUTPUT / "report"
    paths = render(load_run(path), out, ports=["Ethernet0", "Ethernet32"])
    assert [p.name for p in paths] == ["overview.png", "port-Ethernet0.png",
                                       "port-Ethernet32.png"]
    for p in paths:
        _check_png(p)
    img = imread(out / "port-Ethernet32.png")
    assert img.shape[0] > 1000  # one row per queue: 8 queues
    with pytest.raises(KeyError, match="no port 'Ethernet99'"):
        render(load_run(path), tmp_path / "x", ports=["Ethernet99"])
    with pytest.raises(KeyError, match="no queue 9"):
        render(load_run(path), tmp_path / "x", ports=["Ethernet0"], queues=[9])


def test_load_errors_name_file_and_line(tmp_path: Path) -> None:
    path, _ = _record(tmp_path, "run.jsonl", cycles=5)
    lines = path.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], lines[1], "{not json", *lines[3:]]) + "\n")
    with pytest.raises(RecordError, match=r"bad\.jsonl:3: not JSON"):
        load_run(bad)
    short = json.loads(lines[2])
    short["alpha"] = short["alpha"][:5]
    bad.write_text("\n".join([lines[0], json.dumps(short)]) + "\n")
    with pytest.raises(RecordError, match=r"bad\.jsonl:2: 'alpha' has 5 values"):
        load_run(bad)
    bad.write_text('{"t": 1}\n')
    with pytest.raises(RecordError, match="not an alphad record"):
        load_run(bad)
    bad.write_text(lines[0] + "\n")
    with pytest.raises(RecordError, match="no interval"):
        load_run(bad)
    with pytest.raises(RecordError, match="No such file"):
        load_run(tmp_path / "missing.jsonl")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "alphad.cli", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ})


def test_cli_run_record_then_report(tmp_path: Path) -> None:
    cfg = write_config(tmp_path)
    rec = tmp_path / "run.jsonl"
    r = _cli("run", "-c", str(cfg), "--duration", "0.1", "--no-view", "--no-summary",
             "--no-api", "--record", str(rec))
    assert r.returncode == 0, r.stderr
    assert len(rec.read_text().splitlines()) == 1 + 100
    out = tmp_path / "plots"
    r = _cli("report", str(rec), "-o", str(out), "--ports", "Ethernet32", "--queues", "3,5")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(out / "overview.png"), str(out / "port-Ethernet32.png")]
    _check_png(out / "port-Ethernet32.png")
    assert busy_ports(load_run(rec)) == [f"Ethernet{4 * i}" for i in range(16)]  # the default
    r = _cli("report", str(rec), "--queues", "a,b")
    assert r.returncode == 2 and "--queues" in r.stderr
    r = _cli("report", str(tmp_path / "none.jsonl"))
    assert r.returncode == 2 and "none.jsonl" in r.stderr and "Traceback" not in r.stderr
    r = _cli("run", "-c", str(cfg), "--duration", "0.01", "--no-api",
             "--record", str(tmp_path / "no" / "dir.jsonl"))
    assert r.returncode == 1 and "--record" in r.stderr and "Traceback" not in r.stderr
