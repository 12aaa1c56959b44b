"""The one interface every switch backend implements, its errors, and what the
backends share: the config path type and the checks of a pow2 write."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Protocol, runtime_checkable

import numpy as np
from pydantic import BeforeValidator, ValidationInfo

from alphad.model import Changes, Sample, Topology

__all__ = [
    "Backend",
    "BackendError",
    "ConfigPath",
    "FatalBackendError",
    "TransientBackendError",
    "check_pow2",
    "host_key",
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


ConfigPath = Annotated[Path, BeforeValidator(resolve_path)]
"""A path in a backend configuration, relative to the configuration file."""


def check_pow2(changes: Changes, topo: Topology, keys: list[tuple[str, int]], *, backend: str,
               switch: str, lo: int = -8, hi: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """The queue positions and exponents of a write to a switch that takes alpha = 2^k
    with k in lo..hi (SONiC's ``dynamic_th``) on its managed queues only. Anything
    else raises :class:`FatalBackendError`: retrying cannot make it valid."""
    if changes.k is None:
        raise FatalBackendError(f"{switch} takes alpha = 2^dynamic_th only; set "
                                "quantize.mode: pow2", backend=backend, op="apply")
    idx = np.asarray(changes.idx)
    ks = np.asarray(changes.k).astype(np.int64)
    if ks.min() < lo or ks.max() > hi:
        raise FatalBackendError(f"dynamic_th outside {lo}..{hi}", backend=backend, op="apply")
    managed = topo.managed
    if managed is not None and not managed[idx].all():
        bad = [keys[i] for i in idx.tolist() if not managed[i]]
        raise FatalBackendError(f"refusing to change unmanaged (lossless) queues {bad[:4]}",
                                backend=backend, op="apply")
    return idx, ks


def host_key(host: str) -> str:
    """A host name as a switch identity: the loopback names read as one."""
    h = host.lower()
    return "127.0.0.1" if h in ("localhost", "::1", "ip6-localhost") else h
