"""Username/password metadata (as sonic-gnmi and openconfig's gnmi_cli send it) checked
against a credentials file, and the server's TLS credentials.

Credentials file (JSON), re-read when it changes::

    {"users": {"alphad": {"password": "...", "expires": "2031-01-01T00:00:00Z"}}}

``expires`` is optional (ISO 8601; a time without zone is UTC). A request with
no or wrong credentials, or with credentials past their expiry, fails with
UNAUTHENTICATED; a running subscription whose credentials expire is closed with
UNAUTHENTICATED.
"""

from __future__ import annotations

import hmac
import json
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc

from alphad_vswitch_gnmi.errors import GnmiError

__all__ = ["AuthError", "Credentials", "User", "server_credentials"]


class AuthError(ValueError):
    """The credentials file is unusable (the message names the file and the key)."""


@dataclass(frozen=True)
class User:
    name: str
    password: str
    expires: datetime | None


def _parse_expiry(v: Any, where: str) -> datetime | None:
    if v is None:
        return None
    if not isinstance(v, str):
        raise AuthError(f"{where}: 'expires' must be an ISO 8601 time string")
    try:
        t = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        raise AuthError(f"{where}: 'expires' {v!r} is not an ISO 8601 time") from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def load_users(path: Path) -> dict[str, User]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise AuthError(f"{path}: cannot read: {e.strerror or e}") from None
    except ValueError as e:
        raise AuthError(f"{path}: not valid JSON: {e}") from None
    users = raw.get("users") if isinstance(raw, dict) else None
    if not isinstance(users, dict):
        raise AuthError(f"{path}: expected an object with 'users'")
    out = {}
    for name, u in users.items():
        where = f"{path}: users.{name}"
        if not isinstance(u, dict) or not isinstance(u.get("password"), str) or not u["password"]:
            raise AuthError(f"{where}: needs a non-empty 'password' string")
        unknown = set(u) - {"password", "expires"}
        if unknown:
            raise AuthError(f"{where}: unknown keys {sorted(unknown)}")
        out[name] = User(name, u["password"], _parse_expiry(u.get("expires"), where))
    return out


class Credentials:
    """The users of a credentials file; ``None`` path: no authentication."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._mtime: float | None = None
        self._users: dict[str, User] = {}
        if path is not None:
            self._reload()

    @property
    def enabled(self) -> bool:
        return self.path is not None

    def _reload(self) -> None:
        assert self.path is not None
        with self._lock:
            try:
                m = self.path.stat().st_mtime_ns
            except OSError as e:
                raise AuthError(f"{self.path}: cannot read: {e.strerror or e}") from None
            if m != self._mtime:
                self._users = load_users(self.path)
                self._mtime = m

    def check(self, metadata: Any) -> str:
        """The user named by the request's metadata; GnmiError(UNAUTHENTICATED) if not."""
        if self.path is None:
            return ""
        md = {k: v for k, v in (metadata or ())}
        name, password = md.get("username"), md.get("password")
        if not name or password is None:
            raise GnmiError(grpc.StatusCode.UNAUTHENTICATED,
                            "username and password metadata are required")
        try:
            self._reload()
        except AuthError:
            pass  # keep the users we had
        u = self._users.get(str(name))
        if u is None or not hmac.compare_digest(u.password.encode(), str(password).encode()):
            raise GnmiError(grpc.StatusCode.UNAUTHENTICATED, "unknown user or wrong password")
        self.still_valid(u.name)
        return u.name

    def still_valid(self, name: str) -> None:
        if self.path is None:
            return
        try:
            self._reload()
        except AuthError:
            pass  # keep the users we had
        u = self._users.get(name)
        if u is None:
            raise GnmiError(grpc.StatusCode.UNAUTHENTICATED, f"user {name!r} was removed")
        if u.expires is not None and datetime.now(UTC) >= u.expires:
            raise GnmiError(grpc.StatusCode.UNAUTHENTICATED,
                            f"credentials of user {name!r} expired at "
                            f"{u.expires.isoformat()}")


def server_credentials(cert: Path, key: Path, ca: Path | None = None,
                       require_client_cert: bool = False) -> grpc.ServerCredentials:
    try:
        pair = (key.read_bytes(), cert.read_bytes())
        root = ca.read_bytes() if ca else None
    except OSError as e:
        raise AuthError(f"TLS: cannot read {e.filename}: {e.strerror}") from None
    return grpc.ssl_server_credentials([pair], root_certificates=root,
                                       require_client_auth=require_client_cert)
