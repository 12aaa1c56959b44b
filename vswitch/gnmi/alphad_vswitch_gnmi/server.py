"""The gNMI service: Capabilities, Get, Set, Subscribe (ONCE, POLL, STREAM with SAMPLE,
ON_CHANGE and TARGET_DEFINED), over SONiC-native and OpenConfig paths.

Status codes follow the gNMI specification (3.3.3, 3.4.7, 3.5.2.4): a
syntactically wrong path is INVALID_ARGUMENT, a path this server does not
implement UNIMPLEMENTED, a Get of a path that does not exist NOT_FOUND (a
subscription to it stays open and reports it when it appears), an unsupported
encoding UNIMPLEMENTED, a sample interval below the server's minimum
INVALID_ARGUMENT, missing/wrong/expired credentials UNAUTHENTICATED.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import redis

from alphad.gnmi.proto import (
    ENCODING_NAMES,
    GNMI_VERSION,
    Elem,
    join,
    make_path,
    path_str,
    pb,
    typed_to_python,
    typed_value,
)
from alphad.gnmi.proto import pb_grpc as pbg
from alphad.sonic import db as sdb
from alphad_vswitch_gnmi import openconfig as oc
from alphad_vswitch_gnmi.auth import Credentials
from alphad_vswitch_gnmi.errors import GnmiError, invalid, not_found, unimplemented
from alphad_vswitch_gnmi.native import DATABASES, NativeDb, WriteOp

__all__ = ["GnmiServer", "ServerOptions"]

log = logging.getLogger("alphad.vswitch.gnmi")

ENCODINGS = (pb.JSON, pb.JSON_IETF)
MODELS = [pb.ModelData(name="openconfig-qos", organization="OpenConfig working group",
                       version="0.11.2"),
          pb.ModelData(name="sonic-db", organization="SONiC", version="0.1.0")]
Leaf = tuple[list[Elem], Any]  # full path elements, TypedValue


@dataclass
class ServerOptions:
    address: str = "127.0.0.1:0"  # host:port; port 0 picks a free one
    min_sample_interval: float = 1.0  # sonic-gnmi: MinSampleInterval = 1 s
    on_change_poll: float = 0.1  # how often ON_CHANGE subscriptions look for changes
    native_write: bool = True  # sonic-gnmi --gnmi_native_write (on in SONiC builds)
    set_delay: float = 0.0  # added to every Set (to model a validating config updater)
    max_connection_age: float | None = None  # seconds; then GOAWAY (streams end UNAVAILABLE)
    workers: int = 16
    state_dir: Path = Path(".")  # the OpenConfig actuation journal lives here


@dataclass
class Source:
    """Where a path's values come from."""

    read: Callable[[], list[Leaf]]
    counters: bool  # counter data (TARGET_DEFINED: SAMPLE) rather than configuration
    origin: str
    shown: str


@dataclass
class _Sub:
    src: Source
    mode: int
    period: float
    suppress: bool
    heartbeat: float
    next: float = 0.0
    next_hb: float = 0.0
    last: dict[tuple[Any, ...], tuple[bytes, list[Elem]]] = field(default_factory=dict)


def _key(elems: list[Elem]) -> tuple[Any, ...]:
    return tuple((n, tuple(sorted(k.items())) if k else ()) for n, k in elems)


class GnmiService(pbg.gNMIServicer):  # type: ignore[misc]
    def __init__(self, layout: sdb.DbLayout, creds: Credentials, opts: ServerOptions) -> None:
        self.opts = opts
        self.creds = creds
        self.native = NativeDb(layout)
        n = self.native
        self.oc = oc.OpenConfig(n.r["CONFIG_DB"], n.r["COUNTERS_DB"], n.sep["CONFIG_DB"],
                                n.sep["COUNTERS_DB"])
        self.oc_act = oc.OcActuator(n.r["CONFIG_DB"], n.r["COUNTERS_DB"], n.r["STATE_DB"],
                                    n.sep["CONFIG_DB"], opts.state_dir / "oc-journal.json")
        self.write_lock = threading.Lock()
        self.stats = {"get": 0, "set": 0, "subscribe": 0, "notifications": 0}

    # -- helpers -------------------------------------------------------------------
    def _auth(self, context: grpc.ServicerContext) -> str:
        try:
            return self.creds.check(context.invocation_metadata())
        except GnmiError as e:
            context.abort(e.code, e.message)
            raise  # not reached

    @staticmethod
    def _encoding(enc: int) -> None:
        if enc not in ENCODINGS:
            name = ENCODING_NAMES.get(enc, str(enc))
            raise unimplemented(f"encoding {name} is not supported (JSON, JSON_IETF)")

    def source(self, prefix: Any, path: Any, encoding: int) -> Source:
        origin, target, elems = join(prefix, path)
        shown = path_str(path, prefix)
        if origin == "sonic-db":
            dbname, rest = NativeDb.split_sonic_db(elems, shown)
            rd = self.native.reader(dbname, rest, shown)
            return Source(self._native_leaves(rd, elems, encoding), dbname == "COUNTERS_DB",
                          origin, shown)
        if origin not in ("", "openconfig", "openconfig-qos"):
            raise unimplemented(f"{shown}: origin {origin!r} is not supported (sonic-db, "
                                "openconfig)")
        if target in DATABASES:
            rd = self.native.reader(target, elems, shown)
            return Source(self._native_leaves(rd, elems, encoding), target == "COUNTERS_DB",
                          origin, shown)
        if target:
            raise not_found(f"{shown}: unknown target {target!r} (databases: "
                            f"{', '.join(DATABASES)}; OpenConfig paths take no target)")
        sel = oc.select(elems, shown)
        return Source(lambda: self.oc.read(sel), sel.kind == "state", origin, shown)

    @staticmethod
    def _native_leaves(rd: Callable[[], Any], elems: list[Elem], encoding: int
                       ) -> Callable[[], list[Leaf]]:
        def read() -> list[Leaf]:
            v = rd()
            if v is None:
                return []
            return [(elems, typed_value(v, encoding))]
        return read

    def _notification(self, leaves: list[Leaf], prefix: Any, origin: str, ts: int,
                      deletes: list[list[Elem]] = ()) -> Any:  # type: ignore[assignment]
        n = pb.Notification(timestamp=ts, prefix=pb.Path(origin=origin, target=prefix.target
                                                          if prefix is not None else ""))
        for elems, tv in leaves:
            n.update.add(path=make_path(elems), val=tv)
        for elems in deletes:
            n.delete.append(make_path(elems))
        return n

    # -- Capabilities ----------------------------------------------------------------
    def Capabilities(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._auth(context)
        return pb.CapabilityResponse(supported_models=MODELS, supported_encodings=list(ENCODINGS),
                                     gNMI_version=GNMI_VERSION)

    # -- Get -----------------------------------------------------------------------
    def Get(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._auth(context)
        self.stats["get"] += 1
        try:
            self._encoding(request.encoding)
            if request.type not in (pb.GetRequest.ALL, pb.GetRequest.CONFIG, pb.GetRequest.STATE,
                                    pb.GetRequest.OPERATIONAL):
                raise unimplemented(f"Get type {request.type} is not supported")
            prefix = request.prefix if request.HasField("prefix") else None
            paths = list(request.path) or [pb.Path()]
            out = []
            for p in paths:
                src = self.source(prefix, p, request.encoding)
                leaves = src.read()
                if not leaves:
                    raise not_found(f"{src.shown}: no such data")
                out.append(self._notification(leaves, prefix, src.origin, time.time_ns()))
            return pb.GetResponse(notification=out)
        except GnmiError as e:
            context.abort(e.code, e.message)
        except redis.RedisError as e:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"switch database: {e}")

    # -- Set -----------------------------------------------------------------------
    def Set(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._auth(context)
        self.stats["set"] += 1
        prefix = request.prefix if request.HasField("prefix") else None
        try:
            if "union_replace" in request.DESCRIPTOR.fields_by_name and len(request.union_replace):
                raise unimplemented("union_replace is not supported")
            ops: list[tuple[str, Any, Any]] = [("delete", p, None) for p in request.delete]
            ops += [("replace", u.path, u.val) for u in request.replace]
            ops += [("update", u.path, u.val) for u in request.update]
            if not ops:
                raise invalid("empty SetRequest")
            kinds = {join(prefix, p)[0] == "sonic-db" for _, p, _ in ops}
            if len(kinds) > 1:
                raise unimplemented("a SetRequest mixing sonic-db and OpenConfig paths is not "
                                    "supported; send two")
            with self.write_lock:
                if kinds == {True}:
                    self._set_native(prefix, ops)
                else:
                    self._set_oc(prefix, ops)
            if self.opts.set_delay > 0:
                time.sleep(self.opts.set_delay)
        except GnmiError as e:
            context.abort(e.code, e.message)
        except redis.RedisError as e:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"switch database: {e}")
        opname = {"delete": pb.UpdateResult.DELETE, "replace": pb.UpdateResult.REPLACE,
                  "update": pb.UpdateResult.UPDATE}
        return pb.SetResponse(prefix=prefix, timestamp=time.time_ns(),
                              response=[pb.UpdateResult(path=p, op=opname[o]) for o, p, _ in ops])

    def _set_native(self, prefix: Any, ops: list[tuple[str, Any, Any]]) -> None:
        if not self.opts.native_write:
            raise unimplemented("GNMI native write is disabled")
        wops = []
        for op, p, val in ops:
            shown = path_str(p, prefix)
            _o, _t, elems = join(prefix, p)
            dbname, rest = NativeDb.split_sonic_db(elems, shown)
            if dbname != "CONFIG_DB":
                raise GnmiError(grpc.StatusCode.PERMISSION_DENIED,
                                f"{shown}: only CONFIG_DB is writable")
            names = [n for n, _k in rest]
            value = None
            if op != "delete":
                kind = val.WhichOneof("value")
                if kind not in ("json_ietf_val", "json_val", "string_val", "int_val", "uint_val",
                                "bool_val", "double_val"):
                    raise unimplemented(f"{shown}: value encoding {kind} is not supported "
                                        "(JSON_IETF)")
                try:
                    value = typed_to_python(val)
                except ValueError as e:
                    raise invalid(f"{shown}: {e}") from None
            wops.append(WriteOp(op, names, value, shown))
        self.native.write(wops)

    def _set_oc(self, prefix: Any, ops: list[tuple[str, Any, Any]]) -> None:
        sets: list[tuple[str, int, int]] = []
        reverts: list[tuple[str, int]] = []
        for op, p, val in ops:
            shown = path_str(p, prefix)
            origin, target, elems = join(prefix, p)
            if origin not in ("", "openconfig", "openconfig-qos"):
                raise unimplemented(f"{shown}: origin {origin!r} is not supported for Set")
            if target:
                raise not_found(f"{shown}: OpenConfig paths take no target")
            sel = oc.select(elems, shown)
            if sel.kind != "profile":
                raise invalid(f"{shown}: state is read-only; write "
                              f"{oc.SCALING} under buffer-allocation-profiles")
            if op == "delete":
                orig = self.oc_act.original()
                reverts += [(pq[0], pq[1]) for pq in orig
                            if (sel.interface in (None, pq[0]))
                            and (sel.queue in (None, f"{pq[0]}:{pq[1]}"))]
                continue
            if sel.containers != ("config",) or sel.interface is None or sel.queue is None:
                raise invalid(f"{shown}: write {oc.SCALING} of one queue: buffer-allocation-"
                              "profile[name=E]/queues/queue[name=E:q]/config/...")
            port, q = oc.parse_queue_name(sel.queue, shown)
            if port != sel.interface:
                raise not_found(f"{shown}: queue {sel.queue} is not in the buffer allocation "
                                f"profile of {sel.interface}")
            sets.append((port, q, oc.scaling_value(val, shown)))
        if sets:
            self.oc_act.set(sets, "Set")
        if reverts:
            self.oc_act.revert(reverts)

    # -- Subscribe -----------------------------------------------------------------
    def Subscribe(self, request_iterator: Iterator[Any], context: grpc.ServicerContext
                  ) -> Iterator[Any]:
        user = self._auth(context)
        self.stats["subscribe"] += 1
        reqs: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()
        context.add_callback(stop.set)

        def pump() -> None:
            try:
                for r in request_iterator:
                    reqs.put(r)
            except Exception:  # the client went away
                pass
            reqs.put(None)

        threading.Thread(target=pump, daemon=True, name="gnmi-sub-reader").start()
        try:
            first = reqs.get(timeout=30)
        except queue.Empty:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "no SubscribeRequest within 30 s")
        if first is None:
            return
        try:
            yield from self._subscribe(first, reqs, stop, context, user)
        except GnmiError as e:
            context.abort(e.code, e.message)
        except redis.RedisError as e:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"switch database: {e}")

    def _make_subs(self, sl: Any) -> list[_Sub]:
        self._encoding(sl.encoding)
        if not len(sl.subscription):
            raise invalid("SubscriptionList without subscriptions")
        prefix = sl.prefix if sl.HasField("prefix") else None
        mn = self.opts.min_sample_interval
        subs = []
        for s in sl.subscription:
            src = self.source(prefix, s.path, sl.encoding)
            mode = s.mode
            period = s.sample_interval / 1e9
            if sl.mode == pb.SubscriptionList.STREAM:
                if mode == pb.TARGET_DEFINED:
                    if s.sample_interval:
                        raise invalid(f"{src.shown}: TARGET_DEFINED takes no sample_interval")
                    mode = pb.SAMPLE if src.counters else pb.ON_CHANGE
                    period = 0.0
                if mode == pb.SAMPLE:
                    if period == 0:
                        period = mn
                    elif period < mn - 1e-9:
                        raise invalid(f"{src.shown}: sample_interval {period * 1e3:g} ms is below "
                                      f"this switch's minimum of {mn * 1e3:g} ms")
                elif mode != pb.ON_CHANGE:
                    raise invalid(f"{src.shown}: unknown subscription mode {mode}")
            subs.append(_Sub(src, mode, period, s.suppress_redundant,
                             s.heartbeat_interval / 1e9))
        return subs

    def _emit(self, sub: _Sub, prefix: Any, force: bool) -> Any | None:
        leaves = sub.src.read()
        ts = time.time_ns()
        deletes: list[list[Elem]] = []
        on_change = sub.mode == pb.ON_CHANGE
        if not (on_change or sub.suppress):  # plain SAMPLE: nothing to compare
            if not leaves:
                return None
            self.stats["notifications"] += 1
            return pb.SubscribeResponse(update=self._notification(leaves, prefix,
                                                                  sub.src.origin, ts))
        now = {_key(e): (tv.SerializeToString(), e) for e, tv in leaves}
        if not force:
            leaves = [(e, tv) for e, tv in leaves
                      if sub.last.get(_key(e), (b"",))[0] != now[_key(e)][0]]
        if on_change and not force:
            deletes = [e for k, (_b, e) in sub.last.items() if k not in now]
        sub.last = now
        if not leaves and not deletes:
            return None
        self.stats["notifications"] += 1
        return pb.SubscribeResponse(update=self._notification(leaves, prefix, sub.src.origin, ts,
                                                              deletes))

    def _subscribe(self, first: Any, reqs: queue.Queue[Any], stop: threading.Event,
                   context: grpc.ServicerContext, user: str) -> Iterator[Any]:
        if not first.HasField("subscribe"):
            raise invalid("the first SubscribeRequest must carry a SubscriptionList")
        sl = first.subscribe
        subs = self._make_subs(sl)
        prefix = sl.prefix if sl.HasField("prefix") else None
        sync = pb.SubscribeResponse(sync_response=True)
        mode = sl.mode

        def snapshot(force: bool = True) -> Iterator[Any]:
            for s in subs:
                m = self._emit(s, prefix, force)
                if m is not None:
                    yield m

        if mode == pb.SubscriptionList.ONCE:
            if not sl.updates_only:
                yield from snapshot()
            yield sync
            return
        if mode == pb.SubscriptionList.POLL:
            if not sl.updates_only:
                yield from snapshot()
            yield sync
            while not stop.is_set():
                try:
                    r = reqs.get(timeout=0.5)
                except queue.Empty:
                    self.creds.still_valid(user)
                    continue
                if r is None:
                    return
                self.creds.still_valid(user)
                if r.HasField("subscribe"):
                    raise invalid("a Subscribe RPC takes one SubscriptionList")
                if r.HasField("poll"):
                    yield from snapshot()
                    yield sync
            return
        # STREAM
        t0 = time.monotonic()
        for s in subs:
            if sl.updates_only:
                s.last = {_key(e): (tv.SerializeToString(), e) for e, tv in s.src.read()}
            else:
                m = self._emit(s, prefix, True)
                if m is not None:
                    yield m
            step = s.period if s.mode == pb.SAMPLE else self.opts.on_change_poll
            s.next = t0 + step
            s.next_hb = t0 + s.heartbeat if s.heartbeat else float("inf")
        yield sync
        half_closed = False
        while not stop.is_set():
            now = time.monotonic()
            for s in subs:
                if now >= s.next:
                    step = s.period if s.mode == pb.SAMPLE else self.opts.on_change_poll
                    s.next += step
                    if s.next <= now:  # fell behind: skip the missed samples
                        s.next = now + step
                    hb = now >= s.next_hb
                    if hb:
                        s.next_hb = now + s.heartbeat
                    m = self._emit(s, prefix, force=hb or (s.mode == pb.SAMPLE
                                                           and not s.suppress))
                    if m is not None:
                        yield m
            self.creds.still_valid(user)
            wait = max(0.0, min(min(s.next for s in subs), min(s.next_hb for s in subs))
                       - time.monotonic())
            if half_closed:  # the client sends nothing more; it ends the RPC by cancelling
                stop.wait(min(wait, 0.5))
                continue
            try:
                r = reqs.get(timeout=min(wait, 0.5))
            except queue.Empty:
                continue
            if r is None:
                half_closed = True
                continue
            if r.HasField("subscribe"):
                raise invalid("a Subscribe RPC takes one SubscriptionList")


class GnmiServer:
    """A running gRPC server with the gNMI service."""

    def __init__(self, layout: sdb.DbLayout, opts: ServerOptions, creds: Credentials,
                 tls: grpc.ServerCredentials | None) -> None:
        self.opts = opts
        self.service = GnmiService(layout, creds, opts)
        options: list[tuple[str, Any]] = [("grpc.so_reuseport", 0)]
        if opts.max_connection_age:
            options += [("grpc.max_connection_age_ms", int(opts.max_connection_age * 1000)),
                        ("grpc.max_connection_age_grace_ms", 500)]
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=opts.workers,
                                                             thread_name_prefix="gnmi"),
                                  options=options)
        pbg.add_gNMIServicer_to_server(self.service, self.server)
        if tls is None:
            self.port = self.server.add_insecure_port(opts.address)
        else:
            self.port = self.server.add_secure_port(opts.address, tls)
        if self.port == 0:
            raise OSError(f"cannot listen on {opts.address}")

    def start(self) -> GnmiServer:
        self.server.start()
        return self

    def stop(self, grace: float = 1.0) -> None:
        self.server.stop(grace).wait(grace + 1)
        self.service.native.close()
