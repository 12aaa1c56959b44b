"""Backend ``gnmi``: a switch reached only through gNMI (SONiC's sonic-gnmi, or any
target with SONiC-native or OpenConfig qos paths).

- Topology: Get of CONFIG_DB ``PORT``/``BUFFER_*``/``PORT_QOS_MAP`` and COUNTERS_DB
  ``COUNTERS_QUEUE_NAME_MAP`` (target = database), the same discovery as the
  ``sonic`` backend.
- Telemetry: one Subscribe STREAM/SAMPLE, SONiC ``COUNTERS/Ethernet*/Queues`` (plus
  the pool's counters) or OpenConfig queue state; reconnection with backoff and
  stall detection (:mod:`alphad.gnmi.telemetry`).
- Actuation: ``sonic-db`` (per-queue profile clones and BUFFER_QUEUE splitting
  written with gNMI Set, as the sonic backend does through Redis) or OpenConfig
  ``dynamic-limit-scaling-factor`` (the target realises the per-queue value).
  Every original is journaled in a local file before the first change; restore
  writes them back in one Set and checks the result.

The configuration (:mod:`alphad.gnmi.config`) imports no gRPC; the implementation
(:mod:`alphad.gnmi.backend`) and its gRPC dependencies load when a backend opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from alphad.backends.base import FatalBackendError, host_key
from alphad.gnmi.config import GnmiConfig, TlsConfig

if TYPE_CHECKING:
    from alphad.gnmi.backend import GnmiBackend

__all__ = ["CONFIGS", "GnmiConfig", "TlsConfig", "open_backend", "switch_identity"]

CONFIGS: dict[str, type[BaseModel]] = {"gnmi": GnmiConfig}


def open_backend(cfg: GnmiConfig) -> GnmiBackend:
    """The backend; its gRPC and gNMI dependencies load only now (extra ``alphad[gnmi]``)."""
    try:
        from alphad.gnmi.backend import GnmiBackend
    except ImportError as e:
        raise FatalBackendError(f"backend gnmi needs grpcio, protobuf and pygnmi (pip install "
                                f"'alphad[gnmi]'): {e}", backend="gnmi", op="open") from None
    return GnmiBackend(cfg)


def switch_identity(cfg: GnmiConfig) -> str:
    """The target's host:port."""
    host, _, port = cfg.address.rpartition(":")
    return f"gnmi:{host_key(host.strip('[]'))}:{port}"
