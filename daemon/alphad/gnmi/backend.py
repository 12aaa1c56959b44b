"""The ``gnmi`` backend's implementation (configuration: :mod:`alphad.gnmi.config`).
See :mod:`alphad.backends.gnmi` and docs/gnmi.md for what it does."""

from __future__ import annotations

import logging
import math
from typing import Any

import grpc
import numpy as np

from alphad.backends.base import FatalBackendError, TransientBackendError, check_pow2
from alphad.gnmi.channel import Connection, GnmiCallError, TargetSpec
from alphad.gnmi.config import GnmiConfig
from alphad.gnmi.proto import make_path, pb
from alphad.gnmi.sonicdb import (
    OC_PREFIX,
    FileJournal,
    SetBuilder,
    get_value,
    oc_scaling_elems,
    read_table,
)
from alphad.gnmi.telemetry import QueueTable, TelemetryStream
from alphad.model import Changes, Sample, Topology
from alphad.sonic.actuate import FLEX_GROUPS, Actuator, clone_name
from alphad.sonic.discover import (
    CONFIG_TABLES,
    BufferRuntime,
    Discovery,
    DiscoveryError,
    discover_tables,
    strict_queues,
)
from alphad.sonic.journal import JournalError

__all__ = ["GnmiBackend", "poll_ms", "target_spec"]

log = logging.getLogger("alphad.gnmi")

# Set failures that say the switch refuses the request itself: retrying cannot help
_REFUSED = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
            grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNIMPLEMENTED,
            grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.OUT_OF_RANGE}


def target_spec(cfg: GnmiConfig) -> TargetSpec:
    return TargetSpec(cfg.address, cfg.insecure, cfg.tls.ca, cfg.tls.cert, cfg.tls.key,
                      cfg.tls.server_name, cfg.username, cfg.password, cfg.password_file)


def poll_ms(seconds: float) -> int:
    return min(max(math.ceil(seconds * 1000 - 1e-9), 100), 4294967295)  # YANG 100..2^32-1


class GnmiBackend:
    name = "gnmi"

    def __init__(self, cfg: GnmiConfig) -> None:
        self.cfg = cfg
        self.spec = target_spec(cfg)
        self._warned: set[str] = set()
        self._uncertain = False
        self.journal = FileJournal(cfg.journal)
        try:
            self.conn = Connection(self.spec, cfg.timeout)
            self.conn.wait_ready()
            caps = self.conn.call("Capabilities", pb.CapabilityRequest())
            if pb.JSON_IETF not in caps.supported_encodings:
                raise GnmiCallError(f"gNMI {cfg.address}: JSON_IETF encoding not supported")
            self.journal.load(None)
            if len(self.journal):
                n = self._restore_journal()
                log.warning("restored %d entries left by a previous run (journal %s)", n,
                            cfg.journal)
        except (GnmiCallError, JournalError) as e:
            raise FatalBackendError(str(e), backend=self.name, op="open") from None
        try:
            self.disc = self._discover()
        except (GnmiCallError, DiscoveryError) as e:
            err = FatalBackendError(str(e), backend=self.name, op="open")
            err.restored = True  # type: ignore[attr-defined]  # read by `alphad restore`
            raise err from None
        d = self.disc
        self.topo: Topology = d.topology()
        self.original_k = np.array([q.dynamic_th for q in d.queues], dtype=np.int8)
        self._k = self.original_k.copy()
        self._qkeys = [(q.port, q.queue) for q in d.queues]
        self.act = Actuator(d, "|")
        names = [f"{p}:{q}" for p, q in self._qkeys]
        pool_oid = d.pool_oid if cfg.pool_watermark and cfg.telemetry == "sonic" else None
        self.table = QueueTable(names, cfg.telemetry, pool_oid)
        if cfg.manage_flex_counters:
            self._set_flex(pool_oid is not None)
        self.stream = TelemetryStream(
            lambda: Connection(self.spec, cfg.timeout), self._subscribe_request(pool_oid),
            self.table.apply, stall_after=cfg.stall_intervals * cfg.sample_interval,
            backoff=(cfg.backoff_initial, cfg.backoff_max), connect_timeout=cfg.timeout,
            on_connected=self._on_connected).start()
        self._seq = 0
        if self.table.wait_newer(0, cfg.timeout + 2 * cfg.sample_interval) == 0:
            why = self.stream.problem()
            self.close()
            raise FatalBackendError(f"gNMI {cfg.address}: no telemetry within "
                                    f"{cfg.timeout + 2 * cfg.sample_interval:g} s: {why}",
                                    backend=self.name, op="open")
        log.info("gnmi: %s at %s, %d queues on %d ports (%d managed), pool %s (%d bytes); "
                 "telemetry %s every %g s, actuation %s", d.switch, cfg.address, self.topo.n,
                 self.topo.n_ports, int(np.count_nonzero(self.topo.managed)), d.pool.name,
                 d.pool.size, cfg.telemetry, cfg.sample_interval, cfg.actuation)

    # -- setup -----------------------------------------------------------------------
    def _discover(self) -> Discovery:
        tables = {t: read_table(self.conn, "CONFIG_DB", t) for t in CONFIG_TABLES}
        meta = get_value(self.conn, "CONFIG_DB", ["DEVICE_METADATA", "localhost"]) or {}
        qmap = get_value(self.conn, "COUNTERS_DB", ["COUNTERS_QUEUE_NAME_MAP"]) or {}
        pmap = get_value(self.conn, "COUNTERS_DB", ["COUNTERS_BUFFER_POOL_NAME_MAP"]) or {}
        if not tables["PORT"]:
            raise DiscoveryError("CONFIG_DB has no PORT table (gNMI Get CONFIG_DB/PORT)")
        if not isinstance(qmap, dict) or not qmap:
            raise DiscoveryError("COUNTERS_DB has no COUNTERS_QUEUE_NAME_MAP (is the QUEUE flex "
                                 "counter group enabled?)")
        host = meta.get("hostname", "switch") if isinstance(meta, dict) else "switch"
        d = discover_tables(tables, {str(k): str(v) for k, v in qmap.items()},
                            {str(k): str(v) for k, v in (pmap or {}).items()},
                            self.cfg.pool, str(host), self._runtime(meta, tables))
        d.strict = strict_queues(read_table(self.conn, "CONFIG_DB", "QUEUE"),
                                 read_table(self.conn, "CONFIG_DB", "SCHEDULER"))
        return d

    def _runtime(self, meta: Any, tables: dict[str, dict[str, dict[str, str]]]
                 ) -> BufferRuntime:
        """Pool sizes and generated profiles buffermgrd publishes in STATE_DB (dynamic
        buffer model), read only when a pool has no size in CONFIG_DB."""
        model = str(meta.get("buffer_model", "traditional")) if isinstance(meta, dict) \
            else "traditional"
        if all("size" in f for f in tables["BUFFER_POOL"].values()):
            return BufferRuntime(model)
        sizes: dict[str, tuple[int, str]] = {}
        names: set[str] = set()
        try:
            for name, f in read_table(self.conn, "STATE_DB", "BUFFER_POOL_TABLE").items():
                if f.get("size", "").isdigit() and int(f["size"]) > 0:
                    sizes[name] = (int(f["size"]), f"STATE_DB BUFFER_POOL_TABLE|{name}")
            names = set(read_table(self.conn, "STATE_DB", "BUFFER_PROFILE_TABLE"))
        except GnmiCallError as e:
            log.warning("gNMI Get STATE_DB buffer tables: %s (pool sizes of the dynamic "
                        "buffer model unknown)", e)
        return BufferRuntime(model, sizes, frozenset(names))

    def _subscribe_request(self, pool_oid: str | None) -> Any:
        iv = int(self.cfg.sample_interval * 1e9)
        if self.cfg.telemetry == "sonic":
            prefix = pb.Path(target="COUNTERS_DB")
            paths = [make_path(["COUNTERS", "Ethernet*", "Queues"])]
            if pool_oid is not None:
                paths.append(make_path(["COUNTERS", pool_oid]))
        else:
            prefix = pb.Path()
            paths = [make_path(["qos", "interfaces", "interface", "output", "queues", "queue",
                                "state"])]
        subs = [pb.Subscription(path=p, mode=pb.SAMPLE, sample_interval=iv) for p in paths]
        return pb.SubscribeRequest(subscribe=pb.SubscriptionList(
            prefix=prefix, subscription=subs, mode=pb.SubscriptionList.STREAM,
            encoding=pb.JSON_IETF))

    def _set_flex(self, pool: bool) -> None:
        ms = str(poll_ms(self.cfg.poll_interval or self.cfg.sample_interval))
        groups = [g for g in FLEX_GROUPS if g != "BUFFER_POOL_WATERMARK" or pool]
        try:
            cur = read_table(self.conn, "CONFIG_DB", "FLEX_COUNTER_TABLE")
            want = {g: {**cur.get(g, {}), "POLL_INTERVAL": ms, "FLEX_COUNTER_STATUS": "enable"}
                    for g in groups}
            changed = [g for g in groups if want[g] != cur.get(g)]
            if not changed:
                return
            self.journal.record({f"FLEX_COUNTER_TABLE|{g}": cur.get(g) for g in changed}, None)
            sb = SetBuilder()
            for g in changed:
                sb.update_key(f"FLEX_COUNTER_TABLE|{g}", want[g])
            self.conn.call("Set", sb.req, timeout=self.cfg.set_timeout)
            log.info("flex counters %s: poll interval %s ms", ", ".join(changed), ms)
        except GnmiCallError as e:
            log.warning("cannot set the flex counter poll interval (%s); telemetry is as fresh "
                        "as the switch polls it", e)

    def _on_connected(self) -> None:
        if self.stream.reconnects:
            self._uncertain = True  # the switch may have restarted: re-learn what it has

    # -- Backend protocol ------------------------------------------------------------
    def topology(self) -> Topology:
        return self.topo

    def strict_queues(self) -> np.ndarray:
        """Per queue of the topology, whether CONFIG_DB's QUEUE and SCHEDULER tables (read
        at discovery) put it on a STRICT scheduler."""
        s = self.disc.strict
        return np.array([(q.port, q.queue) in s for q in self.disc.queues], dtype=bool)

    @property
    def telemetry_period(self) -> float:
        """Seconds between two samples the switch streams (the SAMPLE interval; fixed by
        the configuration: changing it means a new subscription)."""
        return float(self.cfg.sample_interval)

    def sample(self) -> Sample:
        why = self.stream.problem()
        if why is not None:
            raise TransientBackendError(why, backend=self.name, op="sample")
        self._resync_if_needed("sample")
        t = self.table
        if t.seq == self._seq:  # wait a little for the next sample of the switch
            t.wait_newer(self._seq, 0.5 * self.cfg.sample_interval)
        with t.cond:
            self._seq = t.seq
            v = t.values.copy()
            missing = int((~t.seen).sum())
            ts, pool_wm = t.t, t.pool_watermark
        if missing:
            self._warn_once("missing", "%d queue counter values not in the telemetry yet "
                            "(flex counter group not polled?)", missing)
        if t.bad_values:
            self._warn_once("bad", "%d telemetry values are not numbers; ignored", t.bad_values)
        return Sample(t=ts, watermark=v[:, 4].astype(np.float64),
                      tx_bytes=np.ascontiguousarray(v[:, 0]),
                      tx_packets=np.ascontiguousarray(v[:, 1]),
                      drop_bytes=np.ascontiguousarray(v[:, 2]),
                      drop_packets=np.ascontiguousarray(v[:, 3]),
                      alpha=np.exp2(self._k.astype(np.float64)), pool_watermark=pool_wm)

    def apply(self, changes: Changes) -> None:
        if not len(changes):
            return
        idx, ks = check_pow2(changes, self.topo, self._qkeys, backend=self.name, switch="gNMI")
        self._resync_if_needed("apply")
        items = [(*self._qkeys[i], k) for i, k in zip(idx.tolist(), ks.tolist(), strict=True)]
        sb = SetBuilder()
        try:
            if self.cfg.actuation == "openconfig":
                fresh = {f"{OC_PREFIX}{p}:{q}": {"dynamic_th": str(self.original_k[i])}
                         for (p, q, _k), i in zip(items, idx.tolist(), strict=True)
                         if f"{OC_PREFIX}{p}:{q}" not in self.journal}
                if fresh:
                    self.journal.record(fresh, None)
                for p, q, k in items:
                    sb.oc_set(p, q, k)
                self._set(sb, "apply")
            else:
                plan = self.act.plan(items)
                if plan.structural:
                    new = [k for k in plan.touched() if k not in self.journal]
                    if new:
                        self.journal.record(self._originals(new), None)
                for k, f in plan.profiles.items():
                    sb.replace_key(k, f)
                for k in plan.queue_del:
                    sb.delete_key(k)
                for k, f in plan.queue_set.items():
                    sb.replace_key(k, f)
                for k, th in plan.th.items():
                    sb.update_field(k, "dynamic_th", str(th))
                self._set(sb, "apply")
                if plan.new:
                    self.act.resync(self.act.cloned | set(plan.new))
        except JournalError as e:
            raise FatalBackendError(str(e), backend=self.name, op="apply") from None
        self._k[idx] = ks

    def restore(self) -> None:
        try:
            n = self._restore_journal()
        except GnmiCallError as e:
            raise self._error(e, "restore") from None
        except JournalError as e:
            raise FatalBackendError(str(e), backend=self.name, op="restore") from None
        self.act.forget()
        self._k[:] = self.original_k
        if n:
            log.info("restored %d entries to their original content", n)

    def close(self) -> None:
        stream = getattr(self, "stream", None)
        if stream is not None:
            stream.stop()
        self.conn.close()

    # -- helpers ---------------------------------------------------------------------
    def _originals(self, keys: list[str]) -> dict[str, dict[str, str] | None]:
        tables: dict[str, dict[str, dict[str, str]]] = {}
        out: dict[str, dict[str, str] | None] = {}
        for k in keys:  # one Get per table, not per key
            table, _, key = k.partition("|")
            if table not in tables:
                tables[table] = read_table(self.conn, "CONFIG_DB", table)
            out[k] = tables[table].get(key)
        return out

    def _error(self, e: GnmiCallError, op: str) -> Exception:
        if e.code in _REFUSED:
            return FatalBackendError(f"the switch refused the change: {e}", backend=self.name,
                                     op=op)
        return TransientBackendError(str(e), backend=self.name, op=op)

    def _set(self, sb: SetBuilder, op: str) -> None:
        if not len(sb):
            return
        try:
            self.conn.call("Set", sb.req, timeout=self.cfg.set_timeout)
        except GnmiCallError as e:
            if e.code not in _REFUSED:
                self._uncertain = True  # a timed-out Set may still have been applied
            raise self._error(e, op) from None

    def _resync_if_needed(self, op: str) -> None:
        """After an uncertain Set or a reconnection: learn what the switch has."""
        if not self._uncertain:
            return
        try:
            if self.cfg.actuation == "openconfig":
                for i, (p, q) in enumerate(self._qkeys):
                    if f"{OC_PREFIX}{p}:{q}" in self.journal:
                        v = get_value(self.conn, "", oc_scaling_elems(p, q))
                        self._k[i] = int(v) if v is not None else self.original_k[i]
            else:
                profiles = read_table(self.conn, "CONFIG_DB", "BUFFER_PROFILE")
                cloned = {pq for pq in self._qkeys if clone_name(*pq) in profiles
                          and f"BUFFER_PROFILE|{clone_name(*pq)}" in self.journal}
                self.act.resync(cloned)
                for i, pq in enumerate(self._qkeys):
                    th = profiles.get(clone_name(*pq), {}).get("dynamic_th") if pq in cloned \
                        else None
                    self._k[i] = int(th) if th is not None else self.original_k[i]
        except (GnmiCallError, ValueError) as e:
            raise TransientBackendError(f"re-reading the switch's alphas: {e}", backend=self.name,
                                        op=op) from None
        self._uncertain = False
        log.info("gnmi: re-read the alphas in force (%d queues cloned)", len(self.act.cloned))

    def _restore_journal(self) -> int:
        entries = dict(self.journal.entries)
        if not entries:
            return 0
        oc = SetBuilder()
        native = SetBuilder()
        for k, orig in sorted(entries.items()):
            if k.startswith(OC_PREFIX):
                port, _, q = k[len(OC_PREFIX):].rpartition(":")
                oc.oc_delete(port, int(q))
            elif orig is None:
                native.delete_key(k)
            else:
                native.replace_key(k, orig)
        for sb in (oc, native):
            if len(sb):
                self.conn.call("Set", sb.req, timeout=self.cfg.set_timeout)
        self._verify(entries)
        self.journal.clear()
        return len(entries)

    def _verify(self, entries: dict[str, dict[str, str] | None]) -> None:
        """Read back what restore wrote; a difference keeps the journal (and says so)."""
        tables: dict[str, dict[str, dict[str, str]]] = {}
        for k, orig in entries.items():
            if k.startswith(OC_PREFIX):
                continue
            table, _, key = k.partition("|")
            if table not in tables:
                tables[table] = read_table(self.conn, "CONFIG_DB", table)
            have = tables[table].get(key)
            if (have or None) != orig:
                raise GnmiCallError(f"restore: CONFIG_DB {k} reads back as {have}, expected "
                                    f"{orig}; journal {self.cfg.journal} kept")

    def _warn_once(self, tag: str, msg: str, *args: Any) -> None:
        if tag not in self._warned:
            self._warned.add(tag)
            log.warning(msg, *args)
