"""Wake pipes: a signal handler writes one byte (no lock taken), a loop or a thread
reads it."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

__all__ = ["hangups", "pipe", "wake"]

log = logging.getLogger("alphad")


def pipe(blocking_read: bool = False) -> tuple[int, int]:
    """A pipe whose write end never blocks (a full pipe means the reader is awake)."""
    r, w = os.pipe()
    os.set_blocking(r, blocking_read)
    os.set_blocking(w, False)
    return r, w


def wake(fd: int) -> None:
    """One byte down a wake pipe; safe in a signal handler (no lock)."""
    try:
        os.write(fd, b"\0")
    except OSError:
        pass  # full (the reader is awake already) or closed (the run is over)


def hangups(fd: int, hup: Callable[[], None]) -> None:
    """One re-read per burst of SIGHUPs, in its own thread (it reads files)."""
    try:
        while os.read(fd, 64):
            try:
                hup()
            except Exception:
                log.exception("SIGHUP: re-reading the configuration failed")
    finally:
        os.close(fd)
