"""Schemes: pure, vectorised maps from Estimates to a target alpha per queue.

A scheme is built once per topology by its factory ``make(ctx, params)`` and
then called every interval with the interval's :class:`~alphad.estimate.Estimates`.
It returns the target alpha of every queue (float64 [n]); the controller
quantizes it and writes only what changed. Schemes do no I/O.
"""

from __future__ import annotations

from alphad.schemes import abm, auto, auto4, auto9, auto18, dt, fb, reference  # noqa: F401  (registration)
from alphad.schemes._base import Scheme, SchemeContext, get, known, register

__all__ = ["Scheme", "SchemeContext", "get", "known", "register"]
