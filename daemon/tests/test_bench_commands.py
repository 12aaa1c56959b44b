"""Every benchmark and study command the docs show runs: ``python -m bench.<name>`` and
``python -m experiments.<study>.<script>`` answer ``--help`` from the repository root,
and no doc runs one as a script path (they are packages: a path would not import)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULE = re.compile(r"python -m ((?:bench|experiments)(?:\.\w+)+)(?![.\w])")
SCRIPT = re.compile(r"python3? (?:bench|experiments)/[\w/]+\.py")


def _texts() -> dict[str, str]:
    files = [ROOT / "README.md", ROOT / "Makefile", *ROOT.glob("docs/**/*.md"),
             *ROOT.glob("ns3-harness/**/*.md"), *ROOT.glob("bench/*/*.py"),
             *ROOT.glob("experiments/*/*.py")]
    return {str(f.relative_to(ROOT)): f.read_text() for f in files if f.is_file()}


def _modules() -> list[str]:
    return sorted({m for t in _texts().values() for m in MODULE.findall(t)})


def test_no_doc_runs_a_benchmark_by_its_path() -> None:
    bad = [f"{f}: {m}" for f, t in _texts().items() for m in SCRIPT.findall(t)]
    assert bad == []


def test_the_commands_are_found() -> None:
    mods = _modules()
    assert {"bench.loop", "bench.sonic", "bench.gnmi", "bench.soak", "bench.fidelity",
            "bench.observability", "experiments.strategies.run"} <= set(mods)


@pytest.mark.parametrize("module", _modules())
def test_every_command_shown_answers_help(module: str) -> None:
    r = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, check=False)
    assert r.returncode == 0 and "usage:" in r.stdout, r.stderr[-2000:]
