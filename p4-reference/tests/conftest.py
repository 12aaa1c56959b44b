"""Test setup: the model package and the control plane are importable from the checkout."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
for sub in ("model", "control"):
    if str(ROOT / sub) not in sys.path:
        sys.path.insert(0, str(ROOT / sub))

import p4ref_control as ctl  # noqa: E402

ALPHAD_PRIORITIES = {
    "interval": "1s",          # other top-level keys of alphad.yaml are ignored
    "scheme": "abm",
    "backend": {"kind": "vasic"},
    "priorities": [
        {"name": "bulk", "queues": [0, 1, 2, 4, 5, 6, 7], "alpha": 0.5, "group": "low"},
        {"name": "query", "queues": [3], "alpha": 8},
    ],
}


def deployment_doc(**over: object) -> dict[str, object]:
    doc: dict[str, object] = {
        "scheme": "abm", "alpha_unsched": 64, "pool_bytes": 1_000_000, "cell_bytes": 80,
        "ports": [{"dev_port": 0, "routes": ["10.0.0.0/24"]},
                  {"dev_port": 4, "routes": ["10.0.1.0/24"]}],
    }
    doc.update(over)
    return doc


@pytest.fixture(scope="session")
def abm_plan() -> tuple[object, object]:
    dep = ctl.parse_deployment(deployment_doc())
    return ctl.build_plan(ctl.parse_priorities(ALPHAD_PRIORITIES, dep.queues_per_port), dep), dep
