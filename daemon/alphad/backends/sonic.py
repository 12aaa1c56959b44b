"""Backend ``sonic``: a SONiC switch through its Redis databases.

Reads topology from CONFIG_DB/COUNTERS_DB (:mod:`alphad.sonic.discover`),
counters and shared watermarks from COUNTERS_DB in one round trip
(:mod:`alphad.sonic.counters`), writes per-queue alpha as ``dynamic_th`` of
per-queue profile clones (:mod:`alphad.sonic.actuate`) and journals every
original entry first (:mod:`alphad.sonic.journal`) so that ``restore``, in this
process or any later one, returns the switch to its exact configuration.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import redis
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from alphad.backends.base import (
    ConfigPath,
    FatalBackendError,
    TransientBackendError,
    check_pow2,
    host_key,
)
from alphad.config import Duration, parse_duration
from alphad.model import Changes, Sample, Topology
from alphad.sonic import db as sdb
from alphad.sonic.actuate import (
    FLEX_GROUPS,
    Actuator,
    ClonesMissing,
    ConfigChanged,
    clone_name,
    restore_from,
    set_flex_intervals,
)
from alphad.sonic.counters import CounterReader
from alphad.sonic.discover import Discovery, DiscoveryError, discover
from alphad.sonic.journal import Journal, JournalError
from alphad.sonic.native import NativeConfig
from alphad.sonic.reconcile import reconcile, undone_tables

__all__ = ["CONFIGS", "SonicBackend", "SonicConfig", "open_backend", "switch_identity"]

log = logging.getLogger("alphad.sonic")

POLL_MIN_MS = 100  # sonic-flex_counter.yang: poll_interval range 100..4294967295 (ms)
POLL_MAX_MS = 4294967295
DEFAULT_DB_CONFIG = "/var/run/redis/sonic-db/database_config.json"


class SonicConfig(BaseModel):
    """A SONiC switch: alphad runs in a container with /var/run/redis mounted."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["sonic"]
    # Redis address (unix:///path, /path, tcp://host:port). Default: the CONFIG_DB
    # instance of database_config, else /var/run/redis/redis.sock.
    redis: str | None = None
    database_config: ConfigPath = Path(DEFAULT_DB_CONFIG)  # used when the file exists
    # FLEX_COUNTER_TABLE QUEUE/QUEUE_WATERMARK poll interval. Unset: alphad's own interval
    # (the loop calls set_interval); set: this value, whatever the interval.
    poll_interval: Duration = 0.1
    manage_flex_counters: bool = True  # set (and restore) the flex counter poll intervals
    pool: Annotated[str | None, Field(min_length=1)] = None  # default: the busiest lossy pool
    pool_watermark: bool = True  # read BUFFER_POOL_WATERMARK (pool peak) too
    check_interval: Annotated[float, BeforeValidator(
        lambda v: 0.0 if v in (0, "0") else parse_duration(v)), Field(ge=0, le=3600, description=(
            "how often a sample checks that CONFIG_DB still holds the discovered buffer "
            "configuration (config reload, edits); 0: every sample. Writes are checked "
            "every time"))] = 1.0
    journal: ConfigPath = Path("/var/lib/alphad/sonic-journal.json")
    timeout: Duration = 1.0  # Redis socket timeout
    reader: Literal["lua", "pipeline"] = "lua"
    native_config: Annotated[bool, Field(description=(
        "read CONFIG_DB ALPHAD|global and ALPHAD_CLASS|<class> (YANG sonic-alphad), which "
        "override the YAML settings at the next interval, and publish STATE_DB "
        "ALPHAD_STATE|global"))] = True

    @field_validator("redis")
    @classmethod
    def _address(cls, v: str | None) -> str | None:
        if v is not None:
            sdb.parse_address(v)  # raises with a message naming the problem
        return v


CONFIGS: dict[str, type[BaseModel]] = {"sonic": SonicConfig}


def resolve_layout(cfg: SonicConfig) -> sdb.DbLayout:
    """database_config.json when present, else SONiC's defaults; ``redis:`` overrides the
    instance address."""
    if cfg.database_config.exists():
        layout = sdb.layout_from_file(cfg.database_config)
    else:
        layout = sdb.DEFAULT_LAYOUT
    if cfg.redis is not None:
        layout = layout.with_address(sdb.parse_address(cfg.redis))
    return layout


def poll_interval_ms(seconds: float) -> int:
    """alphad's interval as a flex counter POLL_INTERVAL, within SONiC's allowed range."""
    ms = math.ceil(seconds * 1000 - 1e-9)
    return min(max(ms, POLL_MIN_MS), POLL_MAX_MS)


class SonicBackend:
    name = "sonic"

    def __init__(self, cfg: SonicConfig) -> None:
        self.cfg = cfg
        try:
            self.layout = resolve_layout(cfg)
        except sdb.LayoutError as e:
            raise FatalBackendError(str(e), backend=self.name, op="open") from None
        L = self.layout
        self.cfg_sep = L["CONFIG_DB"].separator
        self.config_db = sdb.connect(L["CONFIG_DB"], cfg.timeout)
        self.counters_db = sdb.connect(L["COUNTERS_DB"], cfg.timeout)
        self.state_db = sdb.connect(L["STATE_DB"], cfg.timeout)
        self.appl_db = sdb.connect(L["APPL_DB"], cfg.timeout)  # read only: pool sizes
        self.native = NativeConfig(self.config_db, self.state_db, L["CONFIG_DB"].id,
                                   self.cfg_sep, L["STATE_DB"].separator)
        self.journal = Journal(cfg.journal, f"ALPHAD_JOURNAL{L['STATE_DB'].separator}config_db")
        self._down = False
        self._flex_done = not cfg.manage_flex_counters
        self._flex_ms: int | None = None  # the poll interval this process last wrote
        self._checked = -math.inf  # time.monotonic() of the last CONFIG_DB check
        self._warned: set[str] = set()
        self.poll_ms = poll_interval_ms(cfg.poll_interval)
        if self.poll_ms != round(cfg.poll_interval * 1000):
            log.warning("flex counter poll interval %g ms outside SONiC's range; using %d ms",
                        cfg.poll_interval * 1000, self.poll_ms)
        where = f"SONiC Redis {L['CONFIG_DB'].address} ({L.source})"
        restored = False
        try:
            self.journal.check_writable()
            self.config_db.ping()
            self.journal.load(self.state_db)
            if len(self.journal):
                reconcile(self.config_db, self.journal, self.state_db, self.cfg_sep,
                          " since the previous run wrote the journal")
                n = restore_from(self.config_db, self.journal, self.state_db, self.cfg_sep)
                if n:
                    log.warning("restored %d CONFIG_DB entries left by a previous run "
                                "(journal %s)", n, cfg.journal)
            restored = True  # the switch holds no change of alphad's any more
            self.disc: Discovery = self._discover()
        except redis.RedisError as e:
            raise FatalBackendError(f"{where}: {e}", backend=self.name, op="open") from None
        except (DiscoveryError, JournalError) as e:
            err = FatalBackendError(str(e), backend=self.name, op="open")
            err.restored = restored  # type: ignore[attr-defined]  # read by `alphad restore`
            raise err from None
        d = self.disc
        self.topo: Topology = d.topology()
        self.original_k = np.array([q.dynamic_th for q in d.queues], dtype=np.int8)
        self._k = self.original_k.copy()
        self._qkeys = [(q.port, q.queue) for q in d.queues]
        self._clone_keys = [f"BUFFER_PROFILE{self.cfg_sep}{clone_name(q.port, q.queue)}"
                            for q in d.queues]
        self.act = Actuator(d, self.cfg_sep)
        pool_oid = d.pool_oid if cfg.pool_watermark else None
        if cfg.pool_watermark and d.pool_oid is None:
            log.warning("pool %s is not in COUNTERS_BUFFER_POOL_NAME_MAP: no pool watermark; "
                        "the free buffer is estimated from the queue watermarks", d.pool.name)
        self.reader = CounterReader(self.counters_db, L["COUNTERS_DB"].separator,
                                    [q.oid for q in d.queues], pool_oid, cfg.reader)
        self.groups = tuple(g for g in FLEX_GROUPS
                            if g != "BUFFER_POOL_WATERMARK" or pool_oid is not None)
        log.info("sonic: %s, %d queues on %d ports (%d managed), pool %s (%d bytes, from %s), "
                 "%d entries skipped", d.switch, self.topo.n, self.topo.n_ports,
                 sum(q.managed for q in d.queues), d.pool.name, d.pool.size, d.pool.size_from,
                 len(d.skipped))

    # -- connection ----------------------------------------------------------------
    @contextmanager
    def _guard(self, op: str) -> Iterator[None]:
        try:
            yield
        except redis.RedisError as e:
            self._down = True
            raise TransientBackendError(f"redis: {e}", backend=self.name, op=op) from None
        except (ClonesMissing, ConfigChanged) as e:
            self._down = True  # the next call checks CONFIG_DB and re-learns the clones
            raise TransientBackendError(str(e), backend=self.name, op=op) from None
        except JournalError as e:
            raise FatalBackendError(str(e), backend=self.name, op=op) from None

    def _ensure(self, op: str) -> None:
        if self._down:
            with self._guard(op):
                self._recover()
            self._down = False

    def _recover(self) -> None:
        """Back after a lost connection, a Redis restart or a refused write: check the
        journal against CONFIG_DB (stale entries dropped), rediscover on the switch's own
        configuration, re-publish the journal in STATE_DB, and re-learn which clones
        exist and their dynamic_th. ConfigChanged while CONFIG_DB has no usable buffer
        configuration (flushed, reload in progress): nothing is written meanwhile."""
        self.config_db.ping()
        reconcile(self.config_db, self.journal, self.state_db, self.cfg_sep,
                  " while alphad ran (config reload, or Redis restarted without its data?)")
        try:
            d = self._discover(undone_tables(self.config_db, self.journal, self.cfg_sep))
        except DiscoveryError as e:
            raise ConfigChanged(f"CONFIG_DB has no usable buffer configuration now ({e}); "
                                "config reload in progress? nothing is written until it is "
                                "back") from None
        self._adopt(d)
        n = self.journal.resync_state(self.state_db)
        if n:
            log.warning("journal: %d entries were missing from STATE_DB; written again", n)
        pref = f"BUFFER_PROFILE{self.cfg_sep}"
        names = {k[len(pref):] for k in self.config_db.scan_iter(match=f"{pref}alphad_*",
                                                                  count=1000)}
        self.act.resync({pq for pq in self._qkeys if clone_name(*pq) in names
                         and f"{pref}{clone_name(*pq)}" in self.journal})
        th = self.act.read_clone_th(self.config_db)
        for i, pq in enumerate(self._qkeys):
            v = th.get(pq)
            self._k[i] = v if v is not None else self.original_k[i]
        self.reader.load_script()
        self._flex_done = not self.cfg.manage_flex_counters
        if self.native.daemon is not None:
            self.native._subscribe()  # the notification connection did not survive
        log.info("reconnected to SONiC Redis (%d queues cloned, journal of %d entries)",
                 len(self.act.cloned), len(self.journal))

    def _keep_operator_polls(self) -> None:
        """A flex counter group whose poll interval someone else changed after alphad set
        it (``counterpoll watermark interval 10000``) keeps that setting at restore."""
        pref = f"FLEX_COUNTER_TABLE{self.cfg_sep}"
        keys = [k for k in self.journal.entries if k.startswith(pref)]
        if not keys or self._flex_ms is None:  # not set by this process: restore them
            return
        pipe = self.config_db.pipeline(transaction=False)
        for k in keys:
            pipe.hget(k, "POLL_INTERVAL")
        theirs = [k for k, v in zip(keys, pipe.execute(), strict=True)
                  if v is not None and v != str(self._flex_ms)]
        if theirs:
            self.journal.discard(theirs, self.state_db)
            log.warning("%s: poll interval changed by someone else while alphad ran; kept "
                        "as it is", ", ".join(theirs))

    def _discover(self, tables: dict[str, dict[str, dict[str, str]]] | None = None
                  ) -> Discovery:
        L = self.layout
        return discover(self.config_db, self.counters_db, self.cfg_sep, self.cfg.pool, tables,
                        self.appl_db, self.state_db, L["APPL_DB"].separator,
                        L["STATE_DB"].separator)

    def _adopt(self, d: Discovery) -> None:
        """Take a rediscovery: the same queues on the same originals go on (new counter
        oids are followed); anything else is a switch alphad must be restarted on."""
        old = self.disc
        if _shape(d) != _shape(old):
            raise FatalBackendError(
                "the switch was reconfigured while alphad ran (its managed queues, their "
                f"profiles' dynamic_th or pool {old.pool.name!r} differ from what alphad "
                "discovered at start); alphad stops so that a restart manages the new "
                "configuration", backend=self.name, op="recover")
        if [q.oid for q in d.queues] != [q.oid for q in old.queues] or \
                d.pool_oid != old.pool_oid:
            log.warning("COUNTERS_DB has new object ids for the same queues (syncd restarted); "
                        "reading those")
            pool_oid = d.pool_oid if self.cfg.pool_watermark else None
            self.reader = CounterReader(self.counters_db, self.layout["COUNTERS_DB"].separator,
                                        [q.oid for q in d.queues], pool_oid, self.cfg.reader)
        self.disc = d
        self.act = Actuator(d, self.cfg_sep)

    # -- Backend protocol ------------------------------------------------------------
    def attach(self, daemon: Any) -> None:
        """The loop that runs on this backend: CONFIG_DB's ALPHAD tables are handed to
        it, and its state published in STATE_DB (``native_config``)."""
        if self.cfg.native_config:
            try:
                self.native.attach(daemon)
            except redis.RedisError as e:  # read again at the next sample
                log.warning("CONFIG_DB ALPHAD not read yet: %s", e)

    def topology(self) -> Topology:
        return self.topo

    def strict_queues(self) -> np.ndarray:
        """Per queue of the topology, whether CONFIG_DB's QUEUE and SCHEDULER tables put it
        on a STRICT scheduler."""
        s = self.disc.strict
        return np.array([(q.port, q.queue) in s for q in self.disc.queues], dtype=bool)

    def set_interval(self, seconds: float) -> None:
        """alphad's control interval: the flex counters poll at it (within SONiC's range)
        unless ``poll_interval`` is set in the configuration. Applied at the next read."""
        if "poll_interval" in self.cfg.model_fields_set:
            return
        ms = poll_interval_ms(seconds)
        if ms != self.poll_ms:
            self.poll_ms = ms
            self._flex_done = not self.cfg.manage_flex_counters

    @property
    def telemetry_period(self) -> float:
        """Seconds between two flex counter polls: how fresh COUNTERS_DB can be."""
        return self.poll_ms / 1000.0

    def sample(self) -> Sample:
        self._ensure("sample")
        with self._guard("sample"):
            now = time.monotonic()
            diff = None
            if now - self._checked >= self.cfg.check_interval:
                self._checked = now
                diff = self.act.check(self.config_db)
            if diff:  # config reload, an operator's edit: nothing written until checked
                log.warning("CONFIG_DB diff under alphad (%s); checking the journal and "
                            "rediscovering", diff)
                self._down = True
                self._recover()
                self._down = False
            if not self._flex_done:
                changed = set_flex_intervals(self.config_db, self.cfg_sep, self.groups,
                                             self.poll_ms, self.journal, self.state_db,
                                             guard=self.act.pool_key)
                if changed:
                    log.info("flex counters %s: poll interval %d ms", ", ".join(self.groups),
                             self.poll_ms)
                self._flex_done = True
                self._flex_ms = self.poll_ms
            self.native.poll()
            c = self.reader.read()
            if self.reader.restarted:
                # Redis restarted between two reads without a failed call in between
                self.reader.restarted = False
                log.warning("SONiC Redis restarted; re-checking the journal and the clones")
                self._recover()
        t = time.monotonic()
        if c.missing_watermarks:
            self._warn_once("wm", "%d queues have no SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES in "
                            "COUNTERS_DB (QUEUE_WATERMARK group not polled yet?)",
                            c.missing_watermarks)
        if c.non_numeric:
            self._warn_once("nan", "%d counter values in COUNTERS_DB are not numbers; read as 0",
                            c.non_numeric)
        if c.missing_counters:
            self._warn_once("ctr", "%d queue counter fields missing in COUNTERS_DB (QUEUE group "
                            "not polled yet?)", c.missing_counters)
        v = c.values
        return Sample(
            t=t,
            watermark=v[:, 4].astype(np.float64),
            tx_bytes=np.ascontiguousarray(v[:, 0]),
            tx_packets=np.ascontiguousarray(v[:, 1]),
            drop_bytes=np.ascontiguousarray(v[:, 2]),
            drop_packets=np.ascontiguousarray(v[:, 3]),
            alpha=np.exp2(self._k.astype(np.float64)),
            pool_watermark=c.pool_watermark,
        )

    def apply(self, changes: Changes) -> None:
        if not len(changes):
            return
        idx, ks = check_pow2(changes, self.topo, self._qkeys, backend=self.name, switch="SONiC")
        self._ensure("apply")
        il, kl = idx.tolist(), ks.tolist()
        cloned = self.act.cloned
        with self._guard("apply"):
            if all(self._qkeys[i] in cloned for i in il):
                # steady state: every queue has its clone; one script call sets dynamic_th
                self.act.set_th(self.config_db, dict(zip([self._clone_keys[i] for i in il], kl,
                                                         strict=True)))
            else:
                plan = self.act.plan([(*self._qkeys[i], k) for i, k in zip(il, kl, strict=True)])
                self.act.execute(self.config_db, plan, self.journal, self.state_db)
        self._k[idx] = ks

    def restore(self) -> None:
        """Write back every journaled original that CONFIG_DB still holds alphad's change
        of; entries the switch has reconfigured since are dropped (logged), never written."""
        with self._guard("restore"):
            self.config_db.ping()
            reconcile(self.config_db, self.journal, self.state_db, self.cfg_sep,
                      " while alphad ran (config reload, or Redis restarted without its data?)")
            self._keep_operator_polls()
            n = restore_from(self.config_db, self.journal, self.state_db, self.cfg_sep)
        self._down = False
        self.act.forget()
        self._k[:] = self.original_k
        self._flex_done = not self.cfg.manage_flex_counters
        if n:
            log.info("restored %d CONFIG_DB entries to their original content", n)

    def close(self) -> None:
        self.native.close()
        for r in (self.config_db, self.counters_db, self.state_db, self.appl_db):
            try:
                r.close()
            except redis.RedisError:
                pass

    # -- internals -----------------------------------------------------------------
    def _warn_once(self, tag: str, msg: str, *args: Any) -> None:
        if tag not in self._warned:
            self._warned.add(tag)
            log.warning(msg, *args)


def _shape(d: Discovery) -> tuple[Any, ...]:
    """What must not change for alphad to go on with the topology it was started on."""
    return ([(q.port, q.queue, q.dynamic_th, q.managed) for q in d.queues], d.pool.name,
            d.pool.size, sorted((p, d.ports[p]) for p in {q.port for q in d.queues}))


def open_backend(cfg: Any) -> SonicBackend:
    return SonicBackend(cfg)


def switch_identity(cfg: SonicConfig) -> str:
    """The Redis instance and CONFIG_DB id (after ``database_config.json``)."""
    try:
        db = resolve_layout(cfg)["CONFIG_DB"]
    except (sdb.LayoutError, KeyError):
        db = None
    if db is None:  # the backend will refuse the layout with a clear message
        return f"sonic:{cfg.redis or cfg.database_config}"
    a = db.address
    where = (f"unix:{os.path.realpath(a.unix_socket)}" if a.unix_socket
             else f"tcp:{host_key(a.host)}:{a.port}")
    return f"sonic:{where}/{db.id}"
