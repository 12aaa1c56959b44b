"""Queue telemetry over a gNMI STREAM subscription (SAMPLE mode).

:class:`TelemetryStream` keeps one subscription open in a thread. It hands every
notification to a callback, reconnects with exponential backoff (with jitter)
when the stream fails or the server closes it, and treats a stream that sends
nothing for ``stall_after`` seconds as dead: it cancels it and reconnects.
:class:`QueueTable` turns notifications into per-queue arrays for either path
family:

- SONiC: ``COUNTERS/Ethernet*/Queues`` (target COUNTERS_DB): one JSON object per
  sample, ``{"Ethernet0:3": {SAI_QUEUE_STAT_*...}, "Ethernet0:3:periodic": ...}``;
  the pool watermark from ``COUNTERS/<pool oid>``.
- OpenConfig: ``/qos/interfaces/interface/output/queues/queue/state`` leaves
  (transmit-octets, transmit-pkts, dropped-octets, dropped-pkts, max-queue-len).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import numpy as np

from alphad.gnmi.channel import Connection, GnmiCallError, describe
from alphad.gnmi.proto import elems_of, typed_to_python

__all__ = ["COLUMNS", "QueueTable", "TelemetryStream"]

log = logging.getLogger("alphad.gnmi")

# columns of QueueTable.values
COLUMNS = ("tx_bytes", "tx_packets", "drop_bytes", "drop_packets", "watermark")
SONIC_FIELDS = ("SAI_QUEUE_STAT_BYTES", "SAI_QUEUE_STAT_PACKETS", "SAI_QUEUE_STAT_DROPPED_BYTES",
                "SAI_QUEUE_STAT_DROPPED_PACKETS", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES")
OC_LEAVES = ("transmit-octets", "transmit-pkts", "dropped-octets", "dropped-pkts",
             "max-queue-len")
POOL_WM = "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"
_OC_COL = {leaf: c for c, leaf in enumerate(OC_LEAVES)}


class QueueTable:
    """Latest telemetry of every queue, updated from notifications (thread-safe)."""

    def __init__(self, queue_names: list[str], family: str, pool_oid: str | None = None) -> None:
        self.index = {n: i for i, n in enumerate(queue_names)}
        self.family = family
        self.pool_oid = pool_oid
        self.values = np.zeros((len(queue_names), len(COLUMNS)), dtype=np.uint64)
        self.seen = np.zeros((len(queue_names), len(COLUMNS)), dtype=bool)
        self.pool_watermark: float | None = None
        self.t = 0.0  # timestamp of the newest notification (s, server clock)
        self.seq = 0  # notifications applied
        self.bad_values = 0
        self.cond = threading.Condition()

    def _num(self, v: Any) -> int | None:
        try:
            n = int(v)
            if not 0 <= n < 2**64:  # a uint64 counter
                raise ValueError
            return n
        except (TypeError, ValueError, OverflowError):  # OverflowError: int(inf)
            self.bad_values += 1
            return None

    def apply(self, n: Any) -> None:
        pre = elems_of(n.prefix) if n.HasField("prefix") else []
        with self.cond:
            for u in n.update:
                if self.family != "sonic" and self._oc_fast(u):
                    continue
                elems = pre + elems_of(u.path)
                if self.family == "sonic":
                    self._sonic(elems, u.val)
                else:
                    self._oc(elems, u.val)
            if n.timestamp:
                self.t = n.timestamp / 1e9
            self.seq += 1
            self.cond.notify_all()

    def _sonic(self, elems: list[Any], val: Any) -> None:
        names = [e[0] for e in elems]
        try:
            doc = typed_to_python(val)
        except ValueError:
            self.bad_values += 1
            return
        if not isinstance(doc, dict):
            return
        if names and names[-1] == "Queues":
            for q, fields in doc.items():
                i = self.index.get(q)
                if i is None or not isinstance(fields, dict):
                    continue
                for c, f in enumerate(SONIC_FIELDS):
                    if f in fields:
                        v = self._num(fields[f])
                        if v is not None:
                            self.values[i, c] = v
                            self.seen[i, c] = True
        elif self.pool_oid is not None and names and names[-1] == self.pool_oid:
            if POOL_WM in doc:
                v = self._num(doc[POOL_WM])
                if v is not None:
                    self.pool_watermark = float(v)

    def _oc_fast(self, u: Any) -> bool:
        """The common shape: .../queue[name=E:q]/state/<leaf> with a uint_val."""
        el = u.path.elem
        if len(el) < 3 or u.val.WhichOneof("value") != "uint_val":
            return False
        i = self.index.get(el[-3].key.get("name", ""))
        c = _OC_COL.get(el[-1].name)
        if i is None or c is None or el[-2].name != "state":
            return False
        self.values[i, c] = u.val.uint_val
        self.seen[i, c] = True
        return True

    def _oc(self, elems: list[Any], val: Any) -> None:
        if len(elems) < 2:
            return
        leaf = elems[-1][0].split(":")[-1]
        if leaf not in OC_LEAVES:
            return
        q = next((k.get("name") for name, k in elems if name.split(":")[-1] == "queue"), None)
        i = self.index.get(q) if q is not None else None
        if i is None:
            return
        try:
            v = self._num(typed_to_python(val))
        except ValueError:
            self.bad_values += 1
            return
        if v is not None:
            c = OC_LEAVES.index(leaf)
            self.values[i, c] = v
            self.seen[i, c] = True

    def wait_newer(self, seq: int, timeout: float) -> int:
        """Block until a notification newer than ``seq`` was applied (or timeout)."""
        with self.cond:
            self.cond.wait_for(lambda: self.seq > seq, timeout=max(timeout, 0.0))
            return self.seq


class TelemetryStream:
    """One gNMI STREAM subscription, kept open: reconnection with backoff, stall
    detection. ``problem()`` says why no fresh data is available (None when fine)."""

    def __init__(self, connect: Callable[[], Connection], request: Any,
                 on_notification: Callable[[Any], None], stall_after: float,
                 backoff: tuple[float, float] = (0.5, 10.0), connect_timeout: float = 5.0,
                 on_connected: Callable[[], None] | None = None) -> None:
        self.connect = connect
        self.request = request
        self.on_notification = on_notification
        self.stall_after = stall_after
        self.backoff = backoff
        self.connect_timeout = connect_timeout
        self.on_connected = on_connected
        self.last_update = 0.0  # monotonic time of the last notification (0: none yet)
        self.synced = False
        self.connected = False
        self.last_error: str | None = None
        self.attempt = 0
        self.reconnects = 0
        self.stalls = 0
        self._stop = threading.Event()
        self._call: Any = None
        self._since = time.monotonic()  # start of the current connection
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True, name="gnmi-telemetry")
        self._watch = threading.Thread(target=self._watchdog, daemon=True, name="gnmi-watchdog")

    def start(self) -> TelemetryStream:
        self._thread.start()
        self._watch.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            if self._call is not None:
                self._call.cancel()
        self._thread.join(5)
        self._watch.join(2)

    def age(self) -> float:
        return time.monotonic() - self.last_update if self.last_update else float("inf")

    def problem(self) -> str | None:
        if self.last_update and self.age() <= self.stall_after:
            return None
        if self.last_error:
            return self.last_error
        if not self.last_update:
            return "no telemetry received yet"
        return (f"gNMI telemetry stalled: no update for {self.age():.1f} s (limit "
                f"{self.stall_after:g} s)")

    # -- thread --------------------------------------------------------------------
    def _requests(self, done: threading.Event) -> Iterator[Any]:
        yield self.request
        done.wait()  # keep the request side open until the call ends

    def _run(self) -> None:
        while not self._stop.is_set():
            done = threading.Event()
            conn: Connection | None = None
            stalled = False
            try:
                conn = self.connect()
                conn.wait_ready(self.connect_timeout)
                call = conn.stub.Subscribe(self._requests(done), metadata=conn.metadata)
                with self._lock:
                    self._call = call
                    self._since = time.monotonic()
                self.connected = True
                got = False
                for resp in call:
                    kind = resp.WhichOneof("response")
                    if kind == "update":
                        self.on_notification(resp.update)
                        self.last_update = time.monotonic()
                        if not got:
                            got = True
                            self.attempt = 0
                            if self.last_error:
                                log.info("gNMI telemetry flowing again (after: %s)",
                                         self.last_error)
                            self.last_error = None
                    elif kind == "sync_response":
                        self.synced = True
                        if self.on_connected is not None:
                            self.on_connected()
                if not self._stop.is_set():
                    self.last_error = "the switch closed the telemetry stream"
            except grpc.RpcError as e:
                with self._lock:
                    stalled = self._call is None and not self._stop.is_set()
                if not stalled and not self._stop.is_set():
                    self.last_error = str(describe(e, "gNMI telemetry stream", conn.spec
                                                   if conn else None))  # type: ignore[arg-type]
            except GnmiCallError as e:
                self.last_error = str(e)
            except Exception as e:  # a notification we cannot use: reconnect, never die
                self.last_error = f"gNMI telemetry: {type(e).__name__}: {e}"
                log.exception("gNMI telemetry stream failed")
            finally:
                done.set()
                with self._lock:
                    self._call = None
                self.connected = False
                self.synced = False
                if conn is not None:
                    conn.close()
            if self._stop.is_set():
                return
            self.attempt += 1
            self.reconnects += 1
            lo, hi = self.backoff
            delay = min(hi, lo * 2 ** (self.attempt - 1)) * random.uniform(0.8, 1.2)
            log.warning("%s; reconnecting in %.1f s (attempt %d)", self.last_error, delay,
                        self.attempt)
            self._stop.wait(delay)

    def _watchdog(self) -> None:
        step = min(0.1, self.stall_after / 4)
        while not self._stop.wait(step):
            with self._lock:
                call = self._call
                since = max(self.last_update, self._since)
                if call is None or time.monotonic() - since <= self.stall_after:
                    continue
                self._call = None  # tells _run the cancellation is ours
            self.stalls += 1
            self.last_error = (f"gNMI telemetry stream stalled: no update for "
                               f"{time.monotonic() - since:.1f} s (limit {self.stall_after:g} s)")
            call.cancel()
