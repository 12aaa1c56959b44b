"""Switch backends behind one protocol, looked up by the ``backend.type`` key.

Each backend module defines ``CONFIGS`` (type name -> pydantic config model,
with a ``type`` literal) and ``open_backend(config) -> Backend``. Modules are
imported only when their type is used, so optional dependencies (redis, grpc)
load only for the backends that need them.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from alphad.backends.base import Backend, BackendError, FatalBackendError, TransientBackendError

__all__ = [
    "Backend",
    "BackendError",
    "FatalBackendError",
    "TransientBackendError",
    "backend_config_class",
    "known_backends",
    "open_backend",
]

# type name -> module implementing it
_MODULES: dict[str, str] = {
    "vasic": "alphad.backends.sai",
    "sai": "alphad.backends.sai",
    "sim": "alphad.backends.sim",
    "sonic": "alphad.backends.sonic",
    "gnmi": "alphad.backends.gnmi",
}


def known_backends() -> list[str]:
    return sorted(t for t, m in _MODULES.items() if importlib.util.find_spec(m) is not None)


def _module(t: str) -> Any:
    if t not in known_backends():
        raise KeyError(f"unknown backend type {t!r} (known: {', '.join(known_backends())})")
    return importlib.import_module(_MODULES[t])


def backend_config_class(t: str) -> Any:
    return _module(t).CONFIGS[t]


def open_backend(config: Any) -> Backend:
    """Connect to the switch described by a validated backend config."""
    return _module(config.type).open_backend(config)  # type: ignore[no-any-return]
