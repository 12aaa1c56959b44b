"""Schemes: pure, vectorised maps from Estimates to a target alpha per queue.

A scheme is built once per topology by its factory ``make(ctx, params)`` and
then called every interval with the interval's :class:`~alphad.estimate.Estimates`.
It returns the target alpha of every queue (float64 [n]); the controller
quantizes it and writes only what changed. Schemes do no I/O.

The superseded candidates for the default (``auto``, ``auto4``, ``auto9``) register only
where :mod:`alphad.schemes.superseded` is imported: by the harnesses that reproduce their
evaluation rows, never by the daemon.
"""

from __future__ import annotations

from alphad.schemes import abm, auto18, dt, fb, reference  # noqa: F401  (registration)
from alphad.schemes._base import Scheme, SchemeContext, candidates, get, known, register, registered

__all__ = ["Scheme", "SchemeContext", "candidates", "get", "known", "register", "registered"]
