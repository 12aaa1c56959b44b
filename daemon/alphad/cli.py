"""Command line: `alphad run`, `alphad restore`, `alphad check-config`, `alphad report`.

Exit codes: 0 success; 1 runtime failure (backend, restore); 2 bad input
(configuration, arguments); 128+N stopped by signal N after restoring.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from alphad import __version__

__all__ = ["main"]

log = logging.getLogger("alphad")


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper()),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


def _err(msg: str) -> None:
    print(f"alphad: {msg}", file=sys.stderr)


def _load(path: str):  # type: ignore[no-untyped-def]
    from alphad.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as e:
        _err(e.render())
        return None


def cmd_check_config(args: argparse.Namespace) -> int:
    from alphad.checks import check_scheme

    cfg = _load(args.config)
    if cfg is None:
        return 2
    problem = check_scheme(cfg)
    if problem is None and cfg.api.enabled:
        try:
            cfg.api.read_token()
        except ValueError as e:
            problem = str(e)
    if problem:
        _err(f"invalid configuration {args.config}:\n  {problem}")
        return 2
    print(f"{args.config}: OK (scheme {cfg.scheme}, backend {cfg.backend_type}, "
          f"interval {cfg.interval * 1e3:g} ms, {len(cfg.priorities)} priorities)")
    return 0


def _lock(cfg):  # type: ignore[no-untyped-def]
    """Take this switch's lock (None: the backend has no shared switch); LockError if
    another alphad holds it."""
    from alphad.lock import SwitchLock, switch_identity

    ident = switch_identity(cfg.backend)
    return SwitchLock(ident, cfg.lock_dir).acquire() if ident else None


def cmd_run(args: argparse.Namespace) -> int:
    from alphad.checks import check_scheme
    from alphad.lock import LockError

    cfg = _load(args.config)
    if cfg is None:
        return 2
    problem = check_scheme(cfg)
    if problem:
        _err(f"invalid configuration {args.config}:\n  {problem}")
        return 2
    _setup_logging(args.log_level or cfg.log_level)
    try:
        lock = _lock(cfg)
    except LockError as e:
        _err(f"refusing to start: {e}")
        return 1
    try:
        return _run(cfg, args)
    finally:
        if lock is not None:
            lock.release()


def _run(cfg, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    """``alphad run`` once the switch is locked."""
    from alphad.backends import BackendError, open_backend
    from alphad.loop import Daemon
    from alphad.metrics import Metrics

    try:
        backend = open_backend(cfg.backend)
    except BackendError as e:
        _err(f"cannot open backend {cfg.backend_type}: {e}")
        return 1
    try:
        try:
            metrics = Metrics()
            daemon = Daemon(cfg, backend, metrics)
        except ValueError as e:  # topology the configuration cannot manage
            _err(f"cannot manage this switch: {e}")
            backend.restore()
            return 2
        if cfg.metrics.enabled and not args.no_metrics:
            host, port = cfg.metrics.host_port
            try:
                metrics.serve(host, port)
            except OSError as e:
                _err(f"metrics.listen {cfg.metrics.listen}: {e.strerror or e}")
                backend.restore()
                return 1
        try:
            services = _start_services(daemon, metrics, cfg, args)
        except (OSError, ValueError) as e:
            _err(str(e))
            backend.restore()
            return 1 if isinstance(e, OSError) else 2
        try:
            view_on = cfg.view if args.view is None else args.view
            if view_on and sys.stdout.isatty():
                from alphad.view import LiveView

                with LiveView() as view:
                    services.hooks.insert(0, view)
                    rc = daemon.run(args.duration)
            else:
                rc = daemon.run(args.duration)
        finally:
            services.close()
        _report(daemon, backend, cfg, args)
        return rc
    finally:
        backend.close()


class _Services:
    """What runs beside the loop: history, recorder, HTTP API; ``on_cycle`` hooks."""

    def __init__(self) -> None:
        self.hooks: list[Callable[[Any], None]] = []
        self.closers: list[Callable[[], None]] = []

    def __call__(self, daemon: Any) -> None:
        for h in self.hooks:
            h(daemon)

    def close(self) -> None:
        for c in reversed(self.closers):
            try:
                c()
            except Exception as e:  # shutdown goes on
                log.warning("shutdown: %s", e)


def _start_services(daemon, metrics, cfg, args) -> _Services:  # type: ignore[no-untyped-def]
    """History, --record, the HTTP API and SIGHUP; OSError/ValueError name the setting."""
    from alphad.history import History
    from alphad.reconfig import ConfigStore

    sv = _Services()
    daemon.on_cycle = sv
    store = ConfigStore(daemon, Path(args.config))
    daemon.on_hangup = store.reload
    history = History()
    sv.hooks.append(history)
    if args.record:
        from alphad.report import Recorder

        try:
            rec = Recorder(Path(args.record))
        except OSError as e:
            raise OSError(f"--record {args.record}: {e.strerror or e}") from None
        sv.hooks.append(rec)
        sv.closers.append(rec.close)
    if cfg.api.enabled and not args.no_api:
        from alphad.api import ApiServer, create_app

        token = cfg.api.read_token()  # ValueError names api.token_file
        app = create_app(daemon, store, metrics, history, token)
        host, port = cfg.api.host_port
        try:
            server = ApiServer(app, host, port)
        except OSError as e:
            raise OSError(f"api.listen {cfg.api.listen}: {e.strerror or e}") from None
        server.start()
        sv.closers.append(server.stop)
        log.info("HTTP API and live page on %s (writes %s)", server.url,
                 "need the bearer token" if token else "disabled: no api.token")
    return sv


def _report(daemon, backend, cfg, args) -> None:  # type: ignore[no-untyped-def]
    st = daemon.stats
    print(f"alphad: {st.intervals} intervals, {st.overruns} overruns, {st.writes} alpha writes "
          f"({st.write_errors} failed), restored={'yes' if st.restored else 'NO'} "
          f"in {st.restore_seconds * 1e3:.1f} ms", file=sys.stderr)
    if not args.no_summary:
        from alphad.backends import exit_summary

        exit_summary(daemon, backend, cfg.backend)


def cmd_restore(args: argparse.Namespace) -> int:
    """Put the switch back on its original buffer configuration and exit.

    Backends that keep a journal (sonic, gnmi) reconcile from it, so this
    works after a crash or a SIGKILL of the daemon.
    """
    from alphad.backends import BackendError, open_backend

    cfg = _load(args.config)
    if cfg is None:
        return 2
    _setup_logging(args.log_level or cfg.log_level)
    from alphad.lock import LockError

    try:
        lock = _lock(cfg)
    except LockError as e:
        _err(f"refusing to restore: {e}; stop it instead (SIGTERM restores the switch)")
        return 1
    try:
        backend = open_backend(cfg.backend)
    except BackendError as e:
        if getattr(e, "restored", False):  # restored at open; the switch cannot be managed
            print(f"alphad: {cfg.backend_type} switch restored to its original buffer "
                  f"configuration (alphad could not manage it now: {e})")
            return 0
        _err(f"cannot open backend {cfg.backend_type}: {e}")
        return 1
    else:
        try:
            backend.restore()
        except BackendError as e:
            _err(f"restore failed: {e}")
            return 1
        finally:
            backend.close()
    finally:
        if lock is not None:
            lock.release()
    print(f"alphad: {cfg.backend_type} switch restored to its original buffer configuration")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="alphad",
        description="alphad: adaptive buffer management (ABM, FB) for Dynamic-Threshold switches",
    )
    p.add_argument("--version", action="version", version=f"alphad {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run the control loop")
    r.add_argument("-c", "--config", required=True, help="YAML configuration file")
    r.add_argument("--duration", type=float, default=None,
                   help="stop after this many seconds (model seconds on a manual clock)")
    g = r.add_mutually_exclusive_group()
    g.add_argument("--view", dest="view", action="store_true", default=None,
                   help="live terminal view (default: the config's 'view')")
    g.add_argument("--no-view", dest="view", action="store_false")
    r.add_argument("--no-metrics", action="store_true", help="do not serve /metrics")
    r.add_argument("--no-api", action="store_true",
                   help="do not serve the HTTP API and live page")
    r.add_argument("--record", metavar="FILE",
                   help="record every interval to FILE (JSON Lines; .gz compresses) "
                        "for `alphad report`")
    r.add_argument("--no-summary", action="store_true", help="no exit summary")
    r.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    r.set_defaults(func=cmd_run)

    rs = sub.add_parser("restore", help="restore the switch's original configuration and exit")
    rs.add_argument("-c", "--config", required=True)
    rs.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    rs.set_defaults(func=cmd_restore)

    c = sub.add_parser("check-config", help="validate a configuration file and exit")
    c.add_argument("-c", "--config", required=True)
    c.set_defaults(func=cmd_check_config)

    rp = sub.add_parser("report", help="plot a recorded run (PNG)")
    rp.add_argument("record", help="file written by `alphad run --record`")
    rp.add_argument("-o", "--out", default="report", help="output directory (default: report)")
    rp.add_argument("--ports", help="comma-separated ports (default: every busy port)")
    rp.add_argument("--queues", help="comma-separated queue indices (default: all)")
    rp.set_defaults(func=cmd_report)
    return p


def cmd_report(args: argparse.Namespace) -> int:
    import importlib.util

    from alphad.report import RecordError, load_run, render

    if importlib.util.find_spec("matplotlib") is None:
        _err("alphad report needs matplotlib: pip install 'alphad[report]'")
        return 1

    try:
        queues = [int(q) for q in args.queues.split(",")] if args.queues else None
    except ValueError:
        _err(f"--queues: {args.queues!r} is not a comma-separated list of queue indices")
        return 2
    ports = [p.strip() for p in args.ports.split(",") if p.strip()] if args.ports else None
    try:
        run = load_run(Path(args.record))
        paths = render(run, Path(args.out), ports, queues)
    except RecordError as e:
        _err(str(e))
        return 2
    except KeyError as e:
        _err(str(e.args[0]))
        return 2
    except OSError as e:
        _err(f"{args.out}: {e.strerror or e}")
        return 1
    for p in paths:
        print(p)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "config", None) and not Path(args.config).exists():
        _err(f"config file not found: {args.config}")
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
