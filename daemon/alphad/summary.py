"""Exit summary on the virtual ASIC: alphad against static DT on the same traffic.

The virtual ASIC is deterministic for a given scenario and seed, so the same
traffic can be replayed under the switch's original static DT configuration
(no daemon) for the same model time, and the two compared.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TextIO, cast

if TYPE_CHECKING:
    from alphad.loop import Daemon

__all__ = ["Outcome", "replay_static", "vasic_summary"]


@dataclass(frozen=True)
class Outcome:
    model_seconds: float
    incast_offered: int
    incast_dropped: int
    greedy_delivered: int
    bursts: int

    @classmethod
    def from_totals(cls, t: dict[str, int]) -> Outcome:
        return cls(t["model_ns"] * 1e-9, t["incast_offered_bytes"], t["incast_dropped_bytes"],
                   t["greedy_delivered_bytes"], t["incast_bursts"])

    @property
    def incast_drop_fraction(self) -> float:
        return self.incast_dropped / self.incast_offered if self.incast_offered else 0.0

    @property
    def long_flow_gbps(self) -> float:
        return self.greedy_delivered * 8 / self.model_seconds / 1e9 if self.model_seconds else 0.0


class TrafficModel(Protocol):
    """A backend whose traffic is a model it counts (the virtual ASIC)."""

    def totals(self) -> dict[str, Any]: ...

    def advance(self, seconds: float) -> None: ...

    def close(self) -> None: ...


def replay_static(backend_cfg: Any, model_ns: int) -> Outcome:
    """Run the backend's scenario for ``model_ns`` under its own static DT configuration,
    on a manual clock (a backend of the same configuration, opened by the registry)."""
    from alphad.backends import open_backend

    be = cast(TrafficModel, open_backend(backend_cfg.model_copy(update={"clock": "manual"})))
    try:
        be.advance(model_ns * 1e-9)
        return Outcome.from_totals(be.totals())
    finally:
        be.close()


def vasic_summary(daemon: Daemon, backend: TrafficModel, backend_cfg: Any,
                  out: TextIO = sys.stdout) -> tuple[Outcome, Outcome | None]:
    """Print and return (alphad outcome, static-DT outcome); the second only when
    ``backend_cfg.compare_dt``. Closes ``backend``."""
    live = Outcome.from_totals(backend.totals())
    backend.close()  # one virtual switch per process: release it before the replay
    base = replay_static(backend_cfg, round(live.model_seconds * 1e9)) \
        if backend_cfg.compare_dt else None
    w = out.write
    w(f"\nSummary: {live.model_seconds:.2f} s of traffic, {live.bursts} incast bursts, "
      f"scheme {daemon.controller.scheme_name} every {daemon.interval * 1e3:g} ms\n")
    w(f"  {'':28} {'alphad':>14}" + (f" {'static DT':>14} {'change':>8}" if base else "") + "\n")

    def row(name: str, a: float, b: float | None, fmt: str, lower_is_better: bool) -> None:
        line = f"  {name:28} {fmt.format(a):>14}"
        if b is not None:
            ch = (a - b) / b * 100 if b else 0.0
            line += f" {fmt.format(b):>14} {ch:>+7.1f}%"
        w(line + "\n")

    row("incast bytes dropped", live.incast_dropped, base.incast_dropped if base else None,
        "{:,.0f}", True)
    row("incast bytes dropped (%)", 100 * live.incast_drop_fraction,
        100 * base.incast_drop_fraction if base else None, "{:.2f}", True)
    row("long-flow throughput (Gb/s)", live.long_flow_gbps,
        base.long_flow_gbps if base else None, "{:.3f}", False)
    return live, base
