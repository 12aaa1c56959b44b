"""``alphad-vswitch-gnmi``: the gNMI server of the virtual SONiC switch.

It serves the Redis databases of a running ``alphad-vswitch`` (found through
SONiC's ``database_config.json`` or ``--redis``). Exit codes: 0 done, 1 runtime
failure, 2 bad input (arguments, TLS files, credentials file), 128+N stopped by
signal N.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from alphad_vswitch import service
from alphad_vswitch_gnmi import __version__

__all__ = ["main"]

log = logging.getLogger("alphad.vswitch.gnmi")
PROG = "alphad-vswitch-gnmi"


def build_parser() -> argparse.ArgumentParser:
    p = service.parser(PROG, __doc__, __version__)
    env = os.environ.get
    p.add_argument("--listen", default=env("GNMI_LISTEN", "127.0.0.1:8080"),
                   help="host:port to serve on (default 127.0.0.1:8080, sonic-gnmi's port; "
                        "port 0 picks a free one, see --port-file)")
    p.add_argument("--port-file", type=Path, help="write the port listened on to this file")
    p.add_argument("--redis", default=env("VSWITCH_REDIS"),
                   help="Redis address of the switch (unix:///path or tcp://host:port)")
    p.add_argument("--database-config", type=Path, default=env("VSWITCH_DATABASE_CONFIG"),
                   help="SONiC database_config.json of the switch")
    tls = p.add_argument_group("security")
    tls.add_argument("--tls-cert", type=Path, help="server certificate (PEM)")
    tls.add_argument("--tls-key", type=Path, help="server private key (PEM)")
    tls.add_argument("--ca-cert", type=Path, help="CA to verify client certificates with")
    tls.add_argument("--require-client-cert", action="store_true")
    tls.add_argument("--insecure", action="store_true", help="plain TCP, no TLS (tests only)")
    tls.add_argument("--credentials", type=Path, default=env("GNMI_CREDENTIALS"),
                     help="JSON file of users (username/password metadata); none: no auth")
    b = p.add_argument_group("behaviour")
    b.add_argument("--min-sample-interval", type=service.duration, default=1.0,
                   help="smallest SAMPLE interval accepted (sonic-gnmi: 1s)")
    b.add_argument("--on-change-poll", type=service.duration, default=0.1,
                   help="how often ON_CHANGE subscriptions look for changes")
    b.add_argument("--no-native-write", action="store_true",
                   help="refuse sonic-db Sets (sonic-gnmi without --gnmi_native_write)")
    b.add_argument("--set-delay", type=service.duration, default=0.0,
                   help="delay every Set by this much (to model a validating config updater)")
    b.add_argument("--max-connection-age", type=service.duration, default=None,
                   help="close connections (GOAWAY) after this long; streams end UNAVAILABLE")
    b.add_argument("--state-dir", type=Path, default=Path(env("GNMI_STATE_DIR", ".")),
                   help="where the OpenConfig write journal is kept")
    service.add_run_options(p, "GNMI_LOG_LEVEL")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    service.setup_logging(args.log_level)
    from alphad.sonic import db as sdb
    from alphad_vswitch_gnmi.auth import AuthError, Credentials, server_credentials
    from alphad_vswitch_gnmi.server import GnmiServer, ServerOptions

    if bool(args.tls_cert) != bool(args.tls_key):
        return service.error(PROG, "--tls-cert and --tls-key go together", 2)
    if not args.tls_cert and not args.insecure:
        return service.error(PROG, "give --tls-cert and --tls-key, or --insecure for plain TCP", 2)
    try:
        if args.database_config and args.database_config.exists():
            layout = sdb.layout_from_file(args.database_config)
        else:
            layout = sdb.DEFAULT_LAYOUT
        if args.redis:
            layout = layout.with_address(sdb.parse_address(args.redis))
        creds = Credentials(args.credentials)
        tls = (server_credentials(args.tls_cert, args.tls_key, args.ca_cert,
                                  args.require_client_cert) if args.tls_cert else None)
    except (sdb.LayoutError, AuthError) as e:
        return service.error(PROG, str(e), 2)
    opts = ServerOptions(address=args.listen, min_sample_interval=args.min_sample_interval,
                         on_change_poll=args.on_change_poll, native_write=not args.no_native_write,
                         set_delay=args.set_delay, max_connection_age=args.max_connection_age,
                         state_dir=args.state_dir)
    try:
        srv = GnmiServer(layout, opts, creds, tls).start()
    except (OSError, RuntimeError) as e:
        return service.error(PROG, f"cannot serve on {args.listen}: {e}", 1)
    if args.port_file:
        tmp = args.port_file.with_suffix(".tmp")
        tmp.write_text(f"{srv.port}\n")
        os.replace(tmp, args.port_file)
    log.info("gNMI on %s port %d (%s, %s), Redis %s", args.listen.rpartition(":")[0], srv.port,
             "TLS" if tls else "insecure", "auth" if creds.enabled else "no auth",
             layout["CONFIG_DB"].address)
    stopper = service.Stopper()
    stopper.event.wait(args.duration)
    srv.stop()
    return stopper.exit_code


if __name__ == "__main__":
    sys.exit(main())
