"""The operator's alphas: each managed queue's baseline is the switch's own.

A backend that reads the switch's buffer configuration (sonic, gnmi, sai/vasic)
reports each queue's alpha before alphad touched it (``original_k``: the
``dynamic_th`` of the queue's profile, alpha = 2^dynamic_th). That alpha is the
queue's baseline, alpha_p in ABM's terms. ``priorities[].alpha`` overrides it for
a whole class; an override below a queue's own alpha lowers that queue's
threshold and is refused unless the class sets ``allow_lower: true``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from alphad.config import Config
from alphad.model import Topology

__all__ = ["BaselineError", "Change", "check_overrides", "describe", "plan"]

log = logging.getLogger("alphad")


class BaselineError(ValueError):
    """A configuration would lower thresholds without ``allow_lower`` (names the key)."""


@dataclass(frozen=True)
class Change:
    """One class's override against the switch's own alphas on its managed queues."""

    index: int  # position in priorities
    name: str
    alpha: float  # the override
    queues: int  # managed queues of the class
    changed: int  # queues whose alpha the override changes
    lowered: int  # of which lowered
    own: dict[float, int]  # the switch's alphas on those queues: alpha -> number of queues
    first_lowered: str  # "Ethernet0:1" (empty when none)


def _class_queues(cfg: Config, topo: Topology, i: int) -> np.ndarray:
    """Managed positions of priority i (ports, managed mask and queue indices as in
    :func:`alphad.controller.build_classes`)."""
    p = cfg.priorities[i]
    m = np.isin(topo.queue_index, np.asarray(p.queues, dtype=np.int64))
    if cfg.ports is not None:
        wanted = np.array([name in set(cfg.ports) for name in topo.ports])
        m &= wanted[topo.queue_port]
    if topo.managed is not None:
        m &= topo.managed
    return np.flatnonzero(m)


def plan(cfg: Config, topo: Topology, own: np.ndarray | None) -> list[Change]:
    """What each override changes against ``own`` (the switch's alpha per queue)."""
    out: list[Change] = []
    if own is None:
        return out
    for i, p in enumerate(cfg.priorities):
        if p.alpha is None:
            continue
        q = _class_queues(cfg, topo, i)
        a = own[q]
        values, counts = np.unique(a, return_counts=True)
        low = q[a > p.alpha]
        first = ""
        if low.size:
            port, idx = topo.key(int(low[0]))
            first = f"{port}:{idx}"
        out.append(Change(i, p.name, p.alpha, int(q.size), int((a != p.alpha).sum()),
                          int(low.size), {float(v): int(c) for v, c in zip(values, counts,
                                                                           strict=True)},
                          first))
    return out


def _own_text(own: dict[float, int]) -> str:
    return ", ".join(f"{n} at {a:g} (dynamic_th {int(np.rint(np.log2(a)))})"
                     for a, n in sorted(own.items()))


def check_overrides(cfg: Config, topo: Topology, own: np.ndarray | None) -> list[str]:
    """One ``priorities[i].alpha: ...`` error per class whose override lowers a queue's
    threshold below the switch's own without ``allow_lower``, and one
    ``quantize.kmax: ...`` error per class kept on the switch's alphas that the hardware
    range would clamp below them."""
    errors = []
    hi = 2.0 ** cfg.quantize.kmax
    if own is not None:
        for i, p in enumerate(cfg.priorities):
            if p.alpha is not None or p.allow_lower:
                continue
            q = _class_queues(cfg, topo, i)
            over = q[own[q] > hi]
            if over.size:
                port, idx = topo.key(int(over[0]))
                top = int(np.rint(np.log2(own[over].max())))
                errors.append(
                    f"quantize.kmax: {cfg.quantize.kmax} is below the switch's own dynamic_th "
                    f"{top} on {over.size} of the {q.size} queues of {p.name!r} (first "
                    f"{port}:{idx}): it would lower their thresholds; raise quantize.kmax to "
                    f"{top}, or set priorities[{i}].allow_lower: true to do so")
    for c in plan(cfg, topo, own):
        if c.lowered and not cfg.priorities[c.index].allow_lower:
            errors.append(
                f"priorities[{c.index}].alpha: {c.alpha:g} is below the switch's own alpha on "
                f"{c.lowered} of the {c.queues} queues of {c.name!r} (first {c.first_lowered}; "
                f"the switch has {_own_text(c.own)}): it would lower their thresholds; set "
                f"priorities[{c.index}].allow_lower: true to do so, or remove the alpha to "
                "keep the switch's own")
    return errors


def describe(cfg: Config, topo: Topology, own: np.ndarray | None) -> list[str]:
    """Log lines: each class's baseline, and what an override changes from what."""
    lines = []
    changes = {c.index: c for c in plan(cfg, topo, own)}
    for i, p in enumerate(cfg.priorities):
        q = _class_queues(cfg, topo, i)
        if p.alpha is None:
            if own is None:
                continue
            values, counts = np.unique(own[q], return_counts=True)
            have = dict(zip(values.tolist(), counts.tolist(), strict=True))
            lines.append(f"class {p.name}: {q.size} queues keep the switch's own alpha as "
                         f"baseline ({_own_text(have)})")
            continue
        c = changes.get(i)
        if c is None:
            lines.append(f"class {p.name}: baseline alpha {p.alpha:g} on {q.size} queues")
        elif c.changed == 0:
            lines.append(f"class {p.name}: alpha {p.alpha:g} on {c.queues} queues, as the "
                         "switch has it")
        else:
            lines.append(f"class {p.name}: alpha {p.alpha:g} (priorities[{i}].alpha) replaces "
                         f"the switch's own on {c.changed} of {c.queues} queues (the switch has "
                         f"{_own_text(c.own)}); {c.lowered} lowered")
    return lines
