"""The offset study moves (c)'s phase changes off the interval clock."""

from __future__ import annotations

from alphad_ns3.scenario import RunSpec

from experiments.strategies import offset
from experiments.strategies import run as campaign


def _durations(phases: str) -> list[int]:
    return [int(p.split(",", 1)[0]) for p in phases.split(";")]


def test_every_phase_change_moves_by_the_offset_and_the_run_keeps_its_length() -> None:
    base, moved = campaign.scen_c(1, 8.0), offset.shifted(1, 50)
    d0, d1 = _durations(base.phases), _durations(moved.phases)
    assert sum(d1) == sum(d0)
    changes0 = [sum(d0[: k + 1]) for k in range(len(d0) - 1)]
    changes1 = [sum(d1[: k + 1]) for k in range(len(d1) - 1)]
    assert [b - a for a, b in zip(changes0, changes1, strict=True)] == [50] * len(changes0)
    # the traffic of each phase is the same, only its timing moves
    rest = [p.split(",", 1)[1] for p in base.phases.split(";")]
    assert [p.split(",", 1)[1] for p in moved.phases.split(";")] == rest
    assert moved.model_copy(update={"phases": base.phases}) == base
    spec = RunSpec(scenario=moved, scheme="dt", alphas=(0.5, 0.5))
    assert spec.key() != RunSpec(scenario=base, scheme="dt", alphas=(0.5, 0.5)).key()
