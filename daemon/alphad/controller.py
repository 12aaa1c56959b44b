"""One switch's control step: estimate -> scheme -> quantize -> changed queues.

The same Controller runs on a real switch, on the virtual ASIC and inside the
ns-3 co-simulation; it does no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from alphad import schemes
from alphad.estimate import Estimates, Estimator, EstimatorParams
from alphad.model import Changes, Classes, Sample, Topology
from alphad.quantize import Quantizer

if TYPE_CHECKING:
    from alphad.config import Config

__all__ = ["Controller", "Decision", "build_classes", "strict_ranks"]


def build_classes(
    topo: Topology,
    priorities: list[tuple[str, list[int], float | None, str | None]],
    ports: list[str] | None = None,
    baseline: np.ndarray | None = None,
    strict: Sequence[int | None] = (),
) -> Classes:
    """Map ``(name, queue indices, alpha_p, group)`` entries onto the topology;
    ``strict``: each entry's strict-priority rank (None: not strict).

    Queues of ports outside ``ports`` (when given), queues whose index no
    priority lists, and queues the backend cannot manage get priority -1.
    A class whose alpha_p is None keeps ``baseline`` (the switch's own alpha of
    each queue); its alpha_p is the largest of them.
    """
    names = tuple(p[0] for p in priorities)
    for i, p in enumerate(priorities):
        if p[2] is None and baseline is None:
            raise ValueError(f"priorities[{i}].alpha: required on this backend (it reports "
                             "no alpha of its own for the queues)")
    group_names: list[str] = []
    group = np.zeros(len(priorities), dtype=np.int32)
    for i, p in enumerate(priorities):
        g = p[3] or p[0]
        if g not in group_names:
            group_names.append(g)
        group[i] = group_names.index(g)
    by_index = {q: i for i, p in enumerate(priorities) for q in p[1]}
    prio = np.array([by_index.get(int(q), -1) for q in topo.queue_index], dtype=np.int32)
    if ports is not None:
        wanted = np.array([name in set(ports) for name in topo.ports])
        prio[~wanted[topo.queue_port]] = -1
    if topo.managed is not None:
        prio[~topo.managed] = -1
    alpha_p = np.ones(len(priorities))
    alpha_base = None
    if baseline is not None and any(p[2] is None for p in priorities):
        own = np.asarray(baseline, dtype=np.float64)
        alpha_base = own.copy()
        for i, p in enumerate(priorities):
            mine = prio == i
            if p[2] is not None:
                alpha_base[mine] = p[2]
            elif mine.any():
                alpha_p[i] = float(own[mine].max())
    for i, p in enumerate(priorities):
        if p[2] is not None:
            alpha_p[i] = p[2]
    return Classes(names=names, alpha_p=alpha_p, prio=prio, group=group,
                   group_names=tuple(group_names), alpha_base=alpha_base,
                   strict=tuple(strict) if any(r is not None for r in strict) else ())


def strict_ranks(topo: Topology, queues: Sequence[Sequence[int]],
                 strict_q: np.ndarray) -> list[int | None]:
    """Each class's strict-priority rank from the switch's schedulers: a class whose queues
    (indices ``queues``) are all on strict schedulers, on every port that has them, is
    strict; the strict classes are ranked by their highest queue index, highest first (the
    usual order of SAI strict queues). None for the others."""
    top: list[int | None] = []
    for qs in queues:
        mine = np.isin(topo.queue_index, np.asarray(qs, dtype=np.int64))
        top.append(max(qs) if mine.any() and strict_q[mine].all() else None)
    order = sorted({t for t in top if t is not None}, reverse=True)
    return [None if t is None else order.index(t) for t in top]


@dataclass
class Decision:
    """What one step computed, for metrics, the live view and the API."""

    est: Estimates | None
    target: np.ndarray  # scheme's target alpha [n] (float)
    alpha: np.ndarray  # alpha after quantization [n]
    k: np.ndarray | None  # log2 alpha after quantization [n]
    changes: Changes


class Controller:
    """Per-switch state: estimator history and the scheme's own state."""

    def __init__(
        self,
        topo: Topology,
        classes: Classes,
        scheme: str = "abm",
        scheme_params: Mapping[str, Any] | None = None,
        quantizer: Quantizer | None = None,
        estimator: EstimatorParams | None = None,
        interval: float = 0.1,
    ) -> None:
        self.topo = topo
        self.classes = classes
        self.quantizer = quantizer or Quantizer()
        self.estimator = Estimator(topo, classes, estimator)
        self.managed = classes.prio >= 0
        self._managed_idx = np.flatnonzero(self.managed)
        self.ctx = schemes.SchemeContext(topo, classes, self.quantizer, interval,
                                         baseline=classes.alpha_q())
        self.scheme_name = scheme
        self.scheme = schemes.get(scheme)(self.ctx, dict(scheme_params or {}))
        self.last: Decision | None = None
        # (targets, alphas in effect) -> (alpha, k, queues to write) of the last quantization
        self._quantized: tuple[bytes, bytes, np.ndarray, np.ndarray | None,
                               np.ndarray] | None = None

    @classmethod
    def from_config(cfg_cls, cfg: Config, topo: Topology,
                    baseline: np.ndarray | None = None,
                    strict_q: np.ndarray | None = None) -> Controller:
        """``baseline``: the switch's own alpha of each queue, alpha_p of the classes
        without an ``alpha`` override; ``strict_q``: which queues the switch serves in strict
        priority (backends that know), read where no ``priorities[].strict`` is set."""
        strict = [p.strict for p in cfg.priorities]
        if all(r is None for r in strict) and strict_q is not None:
            strict = strict_ranks(topo, [p.queues for p in cfg.priorities], strict_q)
        classes = build_classes(
            topo, [(p.name, list(p.queues), p.alpha, p.group) for p in cfg.priorities],
            cfg.ports, baseline, strict,
        )
        q = cfg.quantize
        e = cfg.estimate
        return cfg_cls(
            topo,
            classes,
            scheme=cfg.scheme,
            scheme_params=cfg.scheme_params,
            quantizer=Quantizer(q.mode, q.kmin, q.kmax, q.hysteresis),
            estimator=EstimatorParams(e.congested_fraction, e.min_bytes, e.gamma_ewma,
                                      e.gamma_clamp),
            interval=cfg.interval,
        )

    def _quantize(self, target: np.ndarray, current: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(alpha, k, managed queues whose alpha changes); the previous interval's answer
        when neither the targets nor the alphas in effect changed (a pure function)."""
        key_t, key_c = target.tobytes(), current.tobytes()
        q = self._quantized
        if q is not None and q[0] == key_t and q[1] == key_c:
            return q[2], q[3], q[4]
        alpha, k = self.quantizer.apply(target, current)
        m = self._managed_idx
        idx = m[alpha[m] != current[m]]
        for a in (alpha, k, idx):  # shared with the next interval's answer: read-only
            if a is not None:
                a.flags.writeable = False
        self._quantized = (key_t, key_c, alpha, k, idx)
        return alpha, k, idx

    def reset(self) -> None:
        """Forget history, e.g. after a reconnection."""
        self.estimator.reset()

    def step(self, sample: Sample) -> Changes:
        """The alpha writes for this interval (managed queues whose alpha changes)."""
        est = self.estimator.update(sample)
        current = sample.alpha
        if est is None:
            target = current
            alpha, k = current, None
            changes = Changes(np.zeros(0, dtype=np.int64), np.zeros(0))
        else:
            target = self.scheme(est)
            if not np.isfinite(target).all():  # never a write from NaN/inf: keep the alpha
                target = np.where(np.isfinite(target), target, current)
            alpha, k, idx = self._quantize(target, current)
            changes = Changes(idx, alpha[idx], None if k is None else k[idx])
        self.last = Decision(est, target, alpha, k, changes)
        return changes
