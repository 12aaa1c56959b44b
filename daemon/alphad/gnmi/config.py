"""Configuration of the ``gnmi`` backend (:mod:`alphad.backends.gnmi`): pydantic only,
no gRPC, so a configuration validates where the ``alphad[gnmi]`` extra is not installed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from alphad.backends.base import ConfigPath
from alphad.config import Duration

__all__ = ["GnmiConfig", "TlsConfig"]

_ADDR = re.compile(r"^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.\-]+):(\d{1,5})$")


class TlsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ca: ConfigPath | None = None  # CA bundle that signs the switch's certificate
    cert: ConfigPath | None = None  # client certificate (mutual TLS), with key
    key: ConfigPath | None = None
    server_name: Annotated[str | None, Field(min_length=1)] = None  # name in the certificate


class GnmiConfig(BaseModel):
    """A switch behind a gNMI server (sonic-gnmi, or alphad-vswitch-gnmi)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["gnmi"]
    address: str  # host:port of the gNMI server (sonic-gnmi: 8080)
    insecure: bool = False  # plain TCP without TLS (tests on loopback only)
    tls: TlsConfig = TlsConfig()
    username: Annotated[str | None, Field(min_length=1)] = None
    password_file: ConfigPath | None = None  # re-read at every reconnection
    password: str | None = None  # prefer password_file
    telemetry: Literal["sonic", "openconfig"] = "sonic"
    actuation: Literal["sonic-db", "openconfig"] = "sonic-db"
    # SAMPLE interval asked of the switch; sonic-gnmi refuses anything below 1 s
    sample_interval: Annotated[Duration, Field(gt=0, le=3600)] = 1.0
    stall_intervals: Annotated[float, Field(ge=1.5, le=1000)] = 3.0  # silence = stalled
    timeout: Annotated[Duration, Field(gt=0, le=600)] = 5.0  # connect, Get
    set_timeout: Annotated[Duration, Field(gt=0, le=600)] = 10.0  # validated Sets take seconds
    backoff_initial: Annotated[Duration, Field(gt=0, le=600)] = 0.5
    backoff_max: Annotated[Duration, Field(gt=0, le=3600)] = 10.0
    manage_flex_counters: bool = True  # set the flex counter poll interval (journaled)
    poll_interval: Duration | None = None  # flex counter POLL_INTERVAL; default sample_interval
    pool: Annotated[str | None, Field(min_length=1)] = None
    pool_watermark: bool = True
    journal: ConfigPath = Path("/var/lib/alphad/gnmi-journal.json")

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        m = _ADDR.match(v.strip())
        if not m or not 0 < int(m.group(2)) < 65536:
            raise ValueError(f"{v!r} is not host:port")
        return v.strip()

    @model_validator(mode="after")
    def _security(self) -> GnmiConfig:
        if self.insecure and (self.tls.ca or self.tls.cert):
            raise ValueError("insecure: true and tls: ... exclude each other")
        if bool(self.tls.cert) != bool(self.tls.key):
            raise ValueError("tls.cert and tls.key go together")
        if self.username and self.password is None and self.password_file is None:
            raise ValueError("username needs password_file (or password)")
        if self.backoff_max < self.backoff_initial:
            raise ValueError("backoff_max is below backoff_initial")
        return self

