"""Scheme protocol, context and registry."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from alphad.estimate import Estimates
from alphad.model import Classes, Topology
from alphad.quantize import Quantizer

__all__ = ["Scheme", "SchemeContext", "candidates", "get", "known", "numeric_params", "register",
           "registered"]


@dataclass(frozen=True)
class SchemeContext:
    """What a scheme knows besides the interval's estimates."""

    topo: Topology
    classes: Classes
    quantizer: Quantizer
    interval: float  # seconds
    baseline: np.ndarray = field(default_factory=lambda: np.zeros(0))  # operator alpha [n]

    @property
    def alpha_q(self) -> np.ndarray:
        """alpha_p of each queue's priority."""
        return self.classes.alpha_q()


class Scheme(Protocol):
    name: str

    def __call__(self, est: Estimates) -> np.ndarray: ...


Factory = Callable[[SchemeContext, Mapping[str, Any]], Scheme]
_REGISTRY: dict[str, Factory] = {}
_CANDIDATES: set[str] = set()  # superseded candidates: alphad.schemes.superseded


def register(name: str, candidate: bool = False) -> Callable[[Factory], Factory]:
    """Register a scheme's factory under ``name``; a ``candidate`` is one the evaluation
    reproduces, not one that ``known()`` offers to a switch's configuration."""
    def deco(factory: Factory) -> Factory:
        if name in _REGISTRY:
            raise ValueError(f"scheme {name!r} registered twice")
        _REGISTRY[name] = factory
        if candidate:
            _CANDIDATES.add(name)
        return factory

    return deco


def known() -> list[str]:
    """The schemes a configuration may name."""
    return sorted(set(_REGISTRY) - _CANDIDATES)


def candidates() -> list[str]:
    """The superseded candidates registered in this process (by importing
    :mod:`alphad.schemes.superseded`), which harnesses may run."""
    return sorted(_CANDIDATES)


def registered(name: str) -> bool:
    """Whether ``get(name)`` finds a factory: a known scheme or a registered candidate."""
    return name in _REGISTRY


def get(name: str) -> Factory:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown scheme {name!r} (known: {', '.join(known())})") from None


def numeric_params(scheme: str, params: Mapping[str, Any], defaults: Mapping[str, float],
                   positive: tuple[str, ...] = (),
                   fixed: Mapping[str, float] | None = None) -> dict[str, float]:
    """A scheme's numeric parameters: known keys only, finite and >= 0, the ``positive``
    ones > 0, and the ``fixed`` values (refused as keys) added. Errors name the scheme and
    the key."""
    fixed = fixed or {}
    refused = sorted(set(params) & set(fixed))
    if refused:
        k = refused[0]
        raise ValueError(f"scheme {scheme}: {k} is not a parameter (fixed at {fixed[k]:g}; "
                         f"parameters: {', '.join(sorted(defaults))})")
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(f"scheme {scheme}: unknown parameter {unknown[0]!r} "
                         f"(known: {', '.join(sorted(defaults))})")
    out: dict[str, float] = {}
    for k, v in params.items():
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
            raise ValueError(f"scheme {scheme}: {k} must be a non-negative number (got {v!r})")
        out[k] = float(v)
    for k in positive:
        if k in out and out[k] <= 0:
            raise ValueError(f"scheme {scheme}: {k} must be > 0")
    return {**out, **fixed}
