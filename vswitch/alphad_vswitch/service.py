"""What the virtual switch's programs share (``alphad-vswitch``, ``alphad-vswitch-gnmi``):
the parser with ``--version``, ``--duration`` and ``--log-level``, logging, and running
until ``--duration`` ends or SIGINT/SIGTERM arrives (exit code 128+N after signal N)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading

__all__ = ["Stopper", "add_run_options", "duration", "error", "parser", "setup_logging"]


def duration(v: str) -> float:
    """An argparse type: '100ms', '1s', 0.5 -> seconds."""
    from alphad.config import parse_duration

    try:
        return parse_duration(v)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def parser(prog: str, doc: str, version: str) -> argparse.ArgumentParser:
    """The program's parser: its description is the first line of ``doc``."""
    p = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    p.add_argument("--version", action="version", version=f"{prog} {version}")
    return p


def add_run_options(p: argparse.ArgumentParser, log_level_env: str) -> None:
    """``--duration`` and ``--log-level`` (default: ``$log_level_env``, else info)."""
    p.add_argument("--duration", type=duration, default=None, help="stop after this long")
    p.add_argument("--log-level", default=os.environ.get(log_level_env, "info"),
                   choices=["debug", "info", "warning", "error"])


def setup_logging(level: str) -> None:
    logging.basicConfig(level=getattr(logging, level.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)


def error(prog: str, message: str, code: int) -> int:
    """Say what is wrong on stderr; return the exit code."""
    print(f"{prog}: {message}", file=sys.stderr)
    return code


class Stopper:
    """SIGINT and SIGTERM set ``event``; ``exit_code`` is 128+N after signal N, else 0."""

    def __init__(self, event: threading.Event | None = None) -> None:
        self.event = event or threading.Event()
        self.signum: int | None = None
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, self._on_signal)

    def _on_signal(self, s: int, _frame: object) -> None:
        if self.signum is None:
            self.signum = s
        self.event.set()

    @property
    def exit_code(self) -> int:
        return 128 + self.signum if self.signum is not None else 0
