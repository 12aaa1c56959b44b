"""``alphad-vswitch``: run a virtual SONiC switch.

Exit codes: 0 done, 1 runtime failure (Redis, virtual ASIC), 2 bad input
(config_db.json, traffic file, arguments), 128+N stopped by signal N.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from alphad_vswitch import __version__, service

__all__ = ["main"]

log = logging.getLogger("alphad.vswitch")
PROG = "alphad-vswitch"


def build_parser() -> argparse.ArgumentParser:
    p = service.parser(PROG, __doc__, __version__)
    env = os.environ.get
    p.add_argument("--config-db", default=env("VSWITCH_CONFIG_DB"), required=not
                   env("VSWITCH_CONFIG_DB"), help="SONiC config_db.json to load into CONFIG_DB")
    p.add_argument("--traffic", default=env("VSWITCH_TRAFFIC"),
                   help="traffic file: vasic greedy/incast/onoff lines, ports by SONiC name")
    p.add_argument("--redis", default=env("VSWITCH_REDIS", "unix:///var/run/redis/redis.sock"),
                   help="Redis address (unix:///path or tcp://host:port)")
    p.add_argument("--spawn-redis", metavar="DIR", type=Path,
                   help="start a redis-server of our own in DIR (socket DIR/redis.sock)")
    p.add_argument("--database-config", type=Path, default=env("VSWITCH_DATABASE_CONFIG"),
                   help="write SONiC's database_config.json here for clients")
    p.add_argument("--tick", type=service.duration,
                   default=service.duration(env("VSWITCH_TICK", "10ms")),
                   help="ASIC read/advance period (default 10ms)")
    p.add_argument("--queues", type=int, default=8, help="egress queues per port (default 8)")
    p.add_argument("--step-ns", type=int, default=1000, help="model step of the virtual ASIC")
    p.add_argument("--pkt-bytes", type=int, default=int(env("VSWITCH_PKT_BYTES", "9000")),
                   help="packet size of the model (default 9000: jumbo frames, MTU 9100)")
    p.add_argument("--time-scale", type=float, default=float(env("VSWITCH_TIME_SCALE", "1")),
                   help="model seconds per wall second (below 1 if the machine cannot keep up)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-load", action="store_true",
                   help="keep CONFIG_DB as it is if it is already initialised")
    service.add_run_options(p, "VSWITCH_LOG_LEVEL")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    service.setup_logging(args.log_level)
    from alphad.sonic.db import LayoutError, parse_address
    from alphad_vswitch.asic import AsicError
    from alphad_vswitch.configdb import ConfigDbError
    from alphad_vswitch.redisproc import RedisServer, RedisServerError, write_database_config

    server = None
    try:
        if args.spawn_redis:
            server = RedisServer(args.spawn_redis, persist=True).start()
            args.redis = server.address
        addr = parse_address(args.redis)
        if args.database_config:
            write_database_config(args.database_config, addr.unix_socket,
                                  None if addr.unix_socket else addr.port)
        from alphad_vswitch.switch import VSwitch

        vs = VSwitch(Path(args.config_db), args.redis, Path(args.traffic) if args.traffic else
                     None, queues=args.queues, tick=args.tick, load=not args.no_load,
                     step_ns=args.step_ns, seed=args.seed, pkt_bytes=args.pkt_bytes,
                     time_scale=args.time_scale)
    except (ConfigDbError, AsicError, LayoutError) as e:
        if server:
            server.stop()
        return service.error(PROG, str(e), 2)
    except RedisServerError as e:
        return service.error(PROG, str(e), 1)

    stopper = service.Stopper(vs.stop_event)
    log.info("virtual switch: %d ports x %d queues at %d Mb/s, pool %s (%d bytes), Redis %s",
             len(vs.shape.ports), args.queues, vs.shape.speed_mbps, vs.shape.pool,
             vs.shape.pool_bytes, args.redis)
    try:
        vs.run(args.duration)
    finally:
        vs.close()
        if server:
            server.stop()
    return stopper.exit_code


if __name__ == "__main__":
    sys.exit(main())
