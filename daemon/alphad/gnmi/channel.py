"""A gNMI client connection: TLS with a CA (and optionally a client certificate),
username/password metadata, deadlines on every call, and errors that say what went
wrong (certificate, credentials, path) instead of gRPC's generic text.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from alphad.gnmi.proto import pb, pb_grpc, status_name

__all__ = ["Connection", "GnmiCallError", "TargetSpec", "describe"]

log = logging.getLogger("alphad.gnmi")

MAX_MSG = 64 * 1024 * 1024  # a 4096-queue COUNTERS/Ethernet*/Queues sample is ~1.5 MB


class GnmiCallError(Exception):
    """A failed gNMI call; ``code`` is the gRPC status (None: no connection)."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class TargetSpec:
    address: str  # host:port
    insecure: bool = False
    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None
    server_name: str | None = None  # name to verify the server certificate against
    username: str | None = None
    password: str | None = None
    password_file: Path | None = None  # read at every (re)connection: rotation on disk

    def read_password(self) -> str | None:
        if self.password_file is not None:
            try:
                return self.password_file.read_text(encoding="utf-8").strip()
            except OSError as e:
                raise GnmiCallError(f"password file {self.password_file}: cannot read: "
                                    f"{e.strerror or e}") from None
        return self.password


def describe(e: grpc.RpcError, what: str, spec: TargetSpec) -> GnmiCallError:
    """A gRPC error as a message naming the cause."""
    code = e.code() if hasattr(e, "code") else None
    details = (e.details() if hasattr(e, "details") else "") or str(e)
    low = details.lower()
    if code == grpc.StatusCode.UNAVAILABLE and ("certificate" in low or "ssl" in low
                                                or "handshake" in low or "tls" in low):
        hint = (f"TLS handshake with {spec.address} failed: the server certificate does not "
                f"verify against {spec.ca or 'the system CAs'}"
                + (f" for name {spec.server_name!r}" if spec.server_name else "")
                + " (expired, wrong CA or wrong name?)")
        return GnmiCallError(f"{what}: {hint}: {details}", code)
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return GnmiCallError(f"{what}: the switch refused the credentials of user "
                             f"{spec.username!r}: {details}", code)
    return GnmiCallError(f"{what}: {status_name(code)}: {details}", code)


class Connection:
    """One gRPC channel to a gNMI target."""

    def __init__(self, spec: TargetSpec, timeout: float) -> None:
        self.spec = spec
        self.timeout = timeout
        self.channel = self._channel()
        self.stub = pb_grpc.gNMIStub(self.channel)
        self.metadata = self._metadata()

    def _metadata(self) -> list[tuple[str, str]]:
        s = self.spec
        if not s.username:
            return []
        return [("username", s.username), ("password", s.read_password() or "")]

    def _channel(self) -> grpc.Channel:
        s = self.spec
        opts: list[tuple[str, Any]] = [
            ("grpc.max_receive_message_length", MAX_MSG),
            ("grpc.max_send_message_length", MAX_MSG),
            # reconnection is ours (backoff, stall detection): fail fast, do not queue
            ("grpc.enable_retries", 0),
            ("grpc.initial_reconnect_backoff_ms", 200),
            ("grpc.max_reconnect_backoff_ms", 2000),
            ("grpc.keepalive_time_ms", 10000),
            ("grpc.keepalive_timeout_ms", 5000),
        ]
        if s.insecure:
            return grpc.insecure_channel(s.address, options=opts)
        try:
            root = s.ca.read_bytes() if s.ca else None
            key = s.key.read_bytes() if s.key else None
            chain = s.cert.read_bytes() if s.cert else None
        except OSError as e:
            raise GnmiCallError(f"TLS: cannot read {e.filename}: {e.strerror}") from None
        if s.server_name:
            opts.append(("grpc.ssl_target_name_override", s.server_name))
        creds = grpc.ssl_channel_credentials(root_certificates=root, private_key=key,
                                             certificate_chain=chain)
        return grpc.secure_channel(s.address, creds, options=opts)

    def wait_ready(self, timeout: float | None = None) -> None:
        t = self.timeout if timeout is None else timeout
        try:
            grpc.channel_ready_future(self.channel).result(timeout=t)
        except grpc.FutureTimeoutError:
            # one call to learn why (TLS failure, refused connection...)
            try:
                self.stub.Capabilities(pb.CapabilityRequest(), metadata=self.metadata,
                                       timeout=min(t, 2.0))
            except grpc.RpcError as e:
                raise describe(e, f"gNMI {self.spec.address}", self.spec) from None
            raise GnmiCallError(f"gNMI {self.spec.address}: not reachable within {t:g} s"
                                ) from None

    def call(self, method: str, request: Any, timeout: float | None = None) -> Any:
        try:
            return getattr(self.stub, method)(request, metadata=self.metadata,
                                              timeout=self.timeout if timeout is None else timeout)
        except grpc.RpcError as e:
            raise describe(e, f"gNMI {method}", self.spec) from None

    def close(self) -> None:
        self.channel.close()
