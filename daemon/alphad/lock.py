"""One alphad per switch: an advisory lock (flock) on a file named after the switch.

The switch's identity comes from the backend configuration, before the backend is
opened (opening a sonic or gnmi backend reconciles a leftover journal, which must
never happen under a running daemon); each backend's module names it
(``switch_identity``): the real path of the libsai for ``sai`` (one ASIC per library
on a host), the Redis instance and CONFIG_DB id for ``sonic``, the target's host:port
for ``gnmi``, none for ``vasic`` and ``sim`` (each process runs a switch of its own).

The kernel drops an flock when its holder dies (SIGKILL, crash), so a restarted
daemon never finds a stale lock. The lock directory is ``lock_dir`` of the
configuration, else ``$ALPHAD_LOCK_DIR``, else ``/run/lock/alphad`` (or, where
``/run/lock`` is not writable, ``alphad-lock`` in the temporary directory).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["LockError", "SwitchLock", "default_lock_dir", "switch_identity"]

ENV = "ALPHAD_LOCK_DIR"


class LockError(Exception):
    """The switch is managed by another alphad, or the lock file cannot be used."""

    def __init__(self, message: str, holder: int | None = None) -> None:
        super().__init__(message)
        self.holder = holder


def switch_identity(backend_cfg: Any) -> str | None:
    """A string naming the switch a backend configuration reaches (the backend's
    ``switch_identity``, :mod:`alphad.backends`); None: no shared switch."""
    from alphad.backends import switch_identity as identity

    return identity(backend_cfg)


def default_lock_dir() -> Path:
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    run_lock = Path("/run/lock")
    if os.access(run_lock, os.W_OK | os.X_OK):
        return run_lock / "alphad"
    return Path(tempfile.gettempdir()) / "alphad-lock"


def lock_path(identity: str, directory: Path) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", identity).strip("_")[-60:]
    digest = hashlib.sha256(identity.encode()).hexdigest()[:12]
    return directory / f"{slug}.{digest}.lock"


class SwitchLock:
    """Held while this process manages the switch; ``release`` (or exit) frees it."""

    def __init__(self, identity: str, directory: Path | None = None) -> None:
        self.identity = identity
        self.directory = directory or default_lock_dir()
        self.path = lock_path(identity, self.directory)
        self._fd: int | None = None

    def acquire(self) -> SwitchLock:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):  # shared by every user (like /run/lock)
                if self.directory.stat().st_uid == os.getuid():
                    self.directory.chmod(0o1777)
        except OSError as e:
            raise LockError(f"lock_dir {self.directory}: {e.strerror or e}") from None
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except PermissionError:
            try:  # a lock file of another user: flock needs no write access
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError as e:
                raise LockError(f"lock file {self.path}: {e.strerror or e}") from None
        except OSError as e:
            raise LockError(f"lock file {self.path}: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = _read_pid(fd)
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                who = f"alphad (pid {holder})" if holder else "another alphad"
                raise LockError(f"{who} already manages this switch ({self.identity}; lock "
                                f"{self.path})", holder) from None
            raise LockError(f"lock file {self.path}: {e.strerror or e}") from None
        with contextlib.suppress(OSError):  # the holder's pid, for the message above
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing drops the flock

    def __enter__(self) -> SwitchLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None
