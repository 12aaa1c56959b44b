"""The one interface every switch backend implements, and its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import ValidationInfo

from alphad.model import Changes, Sample, Topology

__all__ = [
    "Backend",
    "BackendError",
    "FatalBackendError",
    "TransientBackendError",
    "resolve_path",
]


class BackendError(Exception):
    """A backend call failed. ``transient`` tells the loop whether to retry."""

    transient: bool = True

    def __init__(self, message: str, *, backend: str = "", op: str = "") -> None:
        super().__init__(message)
        self.backend = backend
        self.op = op


class TransientBackendError(BackendError):
    """Worth retrying next interval (connection lost, timeout, busy)."""

    transient = True


class FatalBackendError(BackendError):
    """Cannot go on (library does not load, switch refuses the configuration)."""

    transient = False


@runtime_checkable
class Backend(Protocol):
    """A switch interface: vasic, sai, sonic, gnmi, sim.

    ``topology`` is built once per connection. ``sample`` returns the
    telemetry of one interval. ``apply`` writes the alpha of the queues in
    ``changes`` (only those). ``restore`` puts the switch back on the buffer
    configuration it had before alphad touched it; it is idempotent. ``close``
    releases the connection without restoring.
    """

    name: str

    def topology(self) -> Topology: ...

    def sample(self) -> Sample: ...

    def apply(self, changes: Changes) -> None: ...

    def restore(self) -> None: ...

    def close(self) -> None: ...


def resolve_path(value: Any, info: ValidationInfo) -> Path:
    """Resolve a relative path against the directory of the config file."""
    p = Path(value).expanduser()
    base = (info.context or {}).get("base_dir")
    if not p.is_absolute() and base is not None:
        p = Path(base) / p
    return p
