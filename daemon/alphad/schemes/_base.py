"""Scheme protocol, context and registry."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from alphad.estimate import Estimates
from alphad.model import Classes, Topology
from alphad.quantize import Quantizer

__all__ = ["Scheme", "SchemeContext", "get", "known", "register"]


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


def register(name: str) -> Callable[[Factory], Factory]:
    def deco(factory: Factory) -> Factory:
        if name in _REGISTRY:
            raise ValueError(f"scheme {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return deco


def known() -> list[str]:
    return sorted(_REGISTRY)


def get(name: str) -> Factory:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown scheme {name!r} (known: {', '.join(known())})") from None
