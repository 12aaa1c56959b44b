"""SONiC-native configuration and status (YANG model ``sonic-alphad``).

- CONFIG_DB ``ALPHAD|global`` (``enabled``, ``interval`` in ms, ``scheme``) and
  ``ALPHAD_CLASS|<name>`` (``alpha``, ``allow_lower``) override the YAML
  configuration, which stays the source of defaults: a field or key removed from
  CONFIG_DB gives the YAML value back. alphad watches both tables through keyspace
  notifications (without them it reads ALPHAD|global and the configured classes' keys
  every interval, one round trip) and hands a change to the loop, which
  applies it at the next interval, as ``PUT /v1/config`` does. An invalid value is
  refused with one log line naming the field and ``config_status`` in STATE_DB; the
  previous configuration stays in effect.
- ``enabled: false`` puts every managed queue back on the switch's own alpha
  (scheme ``dt`` on the switch's alphas) until it is true again.
- STATE_DB ``ALPHAD_STATE|global``: scheme, interval (ms), fail-safe, last cycle,
  queues managed, where the configuration comes from and its status.
"""

from __future__ import annotations

import logging
import math
import time
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import numpy as np
import redis

if TYPE_CHECKING:
    from alphad.config import Config
    from alphad.loop import Daemon

__all__ = ["NativeConfig", "overrides"]

log = logging.getLogger("alphad.sonic")

GLOBAL = "ALPHAD"
CLASS = "ALPHAD_CLASS"
STATE = "ALPHAD_STATE"
PUBLISH_EVERY = 1.0  # s between two ALPHAD_STATE writes when nothing else changed


def _bool(where: str, v: str) -> bool:
    if v in ("true", "false"):
        return v == "true"
    raise ValueError(f"{where}: {v!r} is not true or false")


def overrides(base: Config, glob: dict[str, str], classes: dict[str, dict[str, str]],
              sep: str = "|") -> Config:
    """``base`` (the YAML configuration) with CONFIG_DB's values. ValueError names the
    CONFIG_DB key and field of the first invalid value."""
    from alphad import schemes
    from alphad.checks import check_scheme

    update: dict[str, Any] = {}
    g = f"{GLOBAL}{sep}global"
    enabled = _bool(f"{g} enabled", glob["enabled"]) if "enabled" in glob else True
    if "interval" in glob:
        v = glob["interval"]
        if not v.isdigit() or not 1 <= int(v) <= 3_600_000:
            raise ValueError(f"{g} interval: {v!r} is not a number of milliseconds in "
                             "1..3600000")
        update["interval"] = int(v) / 1000.0
    if "scheme" in glob:
        if not schemes.registered(glob["scheme"]):
            raise ValueError(f"{g} scheme: unknown scheme {glob['scheme']!r} (known: "
                             f"{', '.join(schemes.known())})")
        update["scheme"] = glob["scheme"]
    names = [p.name for p in base.priorities]
    unknown = sorted(set(classes) - set(names))
    if unknown:
        raise ValueError(f"{CLASS}{sep}{unknown[0]}: no class named {unknown[0]!r} in the "
                         f"configuration (known: {', '.join(names)})")
    lo, hi = 2.0 ** base.quantize.kmin, 2.0 ** base.quantize.kmax
    prios = []
    for p in base.priorities:
        f = classes.get(p.name, {})
        up: dict[str, Any] = {}
        where = f"{CLASS}{sep}{p.name}"
        if "alpha" in f:
            try:
                a = float(Decimal(f["alpha"]))
            except InvalidOperation:
                raise ValueError(f"{where} alpha: {f['alpha']!r} is not a number") from None
            if not math.isfinite(a) or not lo <= a <= hi:
                raise ValueError(f"{where} alpha: {f['alpha']} is outside [{lo:g}, {hi:g}] "
                                 "(quantize.kmin..kmax)")
            up["alpha"] = a
        if "allow_lower" in f:
            up["allow_lower"] = _bool(f"{where} allow_lower", f["allow_lower"])
        prios.append(p.model_copy(update=up) if up else p)
    update["priorities"] = prios
    if not enabled:  # the switch's own alphas, held
        update["scheme"] = "dt"
        update["priorities"] = [p.model_copy(update={"alpha": None}) for p in prios]
    cfg = base.model_copy(update=update)
    problem = check_scheme(cfg)
    if problem:
        raise ValueError(f"{g}: {problem}")
    return cfg


class NativeConfig:
    """Watches CONFIG_DB's ALPHAD tables and publishes ALPHAD_STATE for one daemon."""

    def __init__(self, config_db: redis.Redis, state_db: redis.Redis, config_id: int,
                 sep: str = "|", state_sep: str = "|") -> None:
        self.config_db = config_db
        self.state_db = state_db
        self.sep = sep
        self.state_key = f"{STATE}{state_sep}global"
        self.daemon: Daemon | None = None
        self.base: Config | None = None
        self._pubsub: Any = None
        self._channels = [f"__keyspace@{config_id}__:{t}{sep}*" for t in (GLOBAL, CLASS)]
        self._seen: tuple[Any, ...] | None = None  # CONFIG_DB content last handled
        self.status = "ok"
        self.source = "yaml"
        self._published = 0.0
        self._last: dict[str, str] = {}

    def attach(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.base = daemon.cfg
        self._subscribe()
        self.poll(force=True)

    def _subscribe(self) -> None:
        """Keyspace notifications when the server sends them; else every interval."""
        self.close()
        try:
            flags = str(self.config_db.config_get("notify-keyspace-events")
                        .get("notify-keyspace-events", ""))
        except redis.RedisError:
            flags = ""
        if "K" not in flags or not ({"A", "h", "g"} & set(flags)):
            return
        ps = self.config_db.pubsub()
        ps.psubscribe(*self._channels)
        confirmed, deadline = 0, time.monotonic() + 1.0
        while confirmed < len(self._channels) and time.monotonic() < deadline:
            m = ps.get_message(timeout=0.1)  # the server has subscribed once it confirms
            if m is not None and m.get("type") == "psubscribe":
                confirmed += 1
        self._pubsub = ps

    def close(self) -> None:
        if self._pubsub is not None:
            try:
                self._pubsub.close()
            except redis.RedisError:
                pass
            self._pubsub = None

    def _changed(self) -> bool:
        if self._pubsub is None:
            return True  # no notifications: read every interval
        hit = False
        while True:
            m = self._pubsub.get_message(timeout=0)
            if m is None:
                return hit
            hit = hit or m.get("type") == "pmessage"

    def read(self, full: bool = True) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
        """ALPHAD|global and the ALPHAD_CLASS entries: all of them (a SCAN of CONFIG_DB)
        when ``full``, else those of the configured classes (one round trip)."""
        from alphad.sonic.discover import read_table

        glob_key = f"{GLOBAL}{self.sep}global"
        if full:
            return self.config_db.hgetall(glob_key), read_table(self.config_db, CLASS,
                                                                 self.sep)
        names = [p.name for p in self.base.priorities] if self.base is not None else []
        pipe = self.config_db.pipeline(transaction=False)
        pipe.hgetall(glob_key)
        for n in names:
            pipe.hgetall(f"{CLASS}{self.sep}{n}")
        res = pipe.execute()
        return res[0], {n: f for n, f in zip(names, res[1:], strict=True) if f}

    def poll(self, force: bool = False) -> None:
        """Called once per interval (from the backend's sample): hand a change of the
        ALPHAD tables to the loop; publish ALPHAD_STATE."""
        d, base = self.daemon, self.base
        if d is None or base is None:
            return
        if force or self._changed():
            # with notifications: everything (an unknown class is refused); polling every
            # interval: the keys of the configured classes only, one round trip
            glob, classes = self.read(full=force or self._pubsub is not None)
            seen = (tuple(sorted(glob.items())),
                    tuple(sorted((k, tuple(sorted(v.items()))) for k, v in classes.items())))
            if seen != self._seen:
                self._seen = seen
                self._apply(d, base, glob, classes)
        self.publish()

    def _apply(self, d: Daemon, base: Config, glob: dict[str, str],
               classes: dict[str, dict[str, str]]) -> None:
        try:
            cfg = overrides(base, glob, classes, self.sep)
            lowered = d.check_baseline(cfg)
            if lowered:
                raise ValueError(f"{CLASS}: " + "; ".join(lowered))
        except ValueError as e:
            self.status = f"invalid: {e}"
            log.error("CONFIG_DB %s refused: %s; the previous configuration stays in effect",
                      GLOBAL, e)
            self.publish(now=True)
            return
        self.status = "ok"
        self.source = "config_db" if glob or classes else "yaml"
        if cfg != d.cfg:
            d.request_config(cfg)
            log.info("CONFIG_DB %s: interval %g ms, scheme %s%s (at the next interval)",
                     GLOBAL, cfg.interval * 1e3, cfg.scheme,
                     "" if glob.get("enabled", "true") == "true" else ", disabled")
        self.publish(now=True)

    def publish(self, now: bool = False) -> None:
        d = self.daemon
        if d is None:
            return
        t = time.monotonic()
        last = ""
        if d.last_cycle is not None:
            last = f"{time.time() - (t - d.last_cycle):.3f}"
        cfg = d.cfg
        managed = int(np.count_nonzero(d.controller.managed))
        fields = {
            "scheme": cfg.scheme, "interval": f"{cfg.interval * 1000:g}",
            "failsafe": "true" if d.failsafe else "false",
            "failsafe_reason": d.failsafe_reason, "last_cycle": last,
            "queues_managed": str(managed), "config_source": self.source,
            "config_status": self.status,
        }
        same = {k: v for k, v in fields.items() if k != "last_cycle"} == \
            {k: v for k, v in self._last.items() if k != "last_cycle"} \
            and bool(last) == bool(self._last.get("last_cycle"))
        if same and not now and t - self._published < PUBLISH_EVERY:
            return
        self._published = t
        try:
            self.state_db.hset(self.state_key, mapping=fields)
        except redis.RedisError as e:  # status only: never stops a cycle
            log.debug("STATE_DB %s not written: %s", self.state_key, e)
        self._last = fields
