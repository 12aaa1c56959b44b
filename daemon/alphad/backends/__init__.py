"""Switch backends behind one protocol, looked up by the ``backend.type`` key.

Every backend is one module, registered by one line of :data:`BACKENDS`, that exports

- ``CONFIGS``: type name -> its pydantic config model (with a ``type`` literal);
- ``open_backend(config) -> Backend``: the connection to the switch;
- ``switch_identity(config) -> str | None``: the switch the configuration reaches,
  named before anything is opened (:mod:`alphad.lock`); None: nothing is shared;
- optionally ``exit_summary(daemon, backend, config)``: what ``alphad run`` prints at exit.

A module is imported only when its type is used (a configuration names it), and
one whose implementation needs an optional dependency imports it in
``open_backend`` only (gnmi: grpc), so ``check-config`` never needs it.
docs/writing-a-backend.md shows a new backend end to end.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from alphad.backends.base import Backend, BackendError, FatalBackendError, TransientBackendError

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendError",
    "FatalBackendError",
    "TransientBackendError",
    "backend_config_class",
    "exit_summary",
    "known_backends",
    "open_backend",
    "switch_identity",
]

# type name -> the module implementing it
BACKENDS: dict[str, str] = {
    "vasic": "alphad.backends.sai",
    "sai": "alphad.backends.sai",
    "sim": "alphad.backends.sim",
    "sonic": "alphad.backends.sonic",
    "gnmi": "alphad.backends.gnmi",
}


def known_backends() -> list[str]:
    return sorted(t for t, m in BACKENDS.items() if importlib.util.find_spec(m) is not None)


def _module(t: str) -> Any:
    if t not in known_backends():
        raise KeyError(f"unknown backend type {t!r} (known: {', '.join(known_backends())})")
    return importlib.import_module(BACKENDS[t])


def backend_config_class(t: str) -> Any:
    return _module(t).CONFIGS[t]


def open_backend(config: Any) -> Backend:
    """Connect to the switch described by a validated backend config."""
    return _module(config.type).open_backend(config)  # type: ignore[no-any-return]


def switch_identity(config: Any) -> str | None:
    """The switch a validated backend config reaches (None: a switch of its own)."""
    return _module(config.type).switch_identity(config)  # type: ignore[no-any-return]


def exit_summary(daemon: Any, backend: Backend, config: Any) -> None:
    """The backend's exit summary, for the backends that have one."""
    summary = getattr(_module(config.type), "exit_summary", None)
    if summary is not None:
        summary(daemon, backend, config)
