"""The virtual SONiC switch: Redis databases around the virtual ASIC.

Every tick it advances the ASIC model by the wall time that passed, reads the
ASIC, publishes the flex counter groups that are due, and applies the buffer
configuration changes it was notified of (CONFIG_DB keyspace notifications).
It survives Redis restarts: it reconnects, reloads config_db.json when
CONFIG_DB comes back empty (as SONiC does at boot), republishes the counter
maps and re-applies the buffer configuration.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import redis

from alphad.sonic import db as sdb
from alphad_vswitch.asic import (
    SwitchShape,
    VirtualAsic,
    read_traffic,
    scenario_text,
    switch_shape,
)
from alphad_vswitch.buffers import BufferManager
from alphad_vswitch.configdb import INIT_FLAG, load_config_db, write_config_db
from alphad_vswitch.flex import FlexCounters

__all__ = ["READY_KEY", "VSwitch"]

log = logging.getLogger("alphad.vswitch")

READY_KEY = "VSWITCH|state"  # STATE_DB: status=ready once CONFIG_DB, maps and ASIC agree
CLEAR_CHANNEL = "WATERMARK_CLEAR_REQUEST"  # APPL_DB, published by watermarkstat -c
_BUFFER_TABLES = ("BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_QUEUE")


class VSwitch:
    def __init__(self, config_db: Path, redis_address: str, traffic: Path | None = None,
                 queues: int = 8, tick: float = 0.01, load: bool = True, step_ns: int = 1000,
                 seed: int = 1, th_min: int = -8, th_max: int = 7, pkt_bytes: int = 9000,
                 time_scale: float = 1.0, shim_path: str | None = None,
                 libsai: str | None = None) -> None:
        self.config_db_path = Path(config_db)
        self.cfg = load_config_db(self.config_db_path)
        self.shape: SwitchShape = switch_shape(self.cfg, queues)
        text, name = read_traffic(traffic)
        self.scenario = scenario_text(self.shape, text, name, th_min=th_min, th_max=th_max,
                                      step_ns=step_ns, seed=seed, pkt_bytes=pkt_bytes)
        self.asic = VirtualAsic(self.scenario, shim_path, libsai)
        self.buffers = BufferManager(self.asic, self.shape.ports, self.shape.pool,
                                     th_min=th_min, th_max=th_max)
        self.flex = FlexCounters(self.asic, self.shape.ports, self.shape.pool)
        self.tick = tick
        self.time_scale = time_scale  # model seconds per wall second
        self.lag_warned = False
        self.busy_avg = 0.0  # seconds per tick, moving average
        self.load = load
        layout = sdb.DEFAULT_LAYOUT.with_address(sdb.parse_address(redis_address))
        self.layout = layout
        self.r = {n: sdb.connect(layout[n], timeout=2.0) for n in
                  ("APPL_DB", "COUNTERS_DB", "CONFIG_DB", "STATE_DB")}
        self._pubsub: Any = None
        self._clear_sub: Any = None  # APPL_DB WATERMARK_CLEAR_REQUEST
        self.clears = 0
        self._ready = False
        self._dirty_buffers = True
        self._dirty_flex = True
        self._last_wall: float | None = None
        self._down_since: float | None = None
        self.stop_event = threading.Event()
        self.ticks = 0
        self.reconciles = 0
        self.setups = 0
        self._run_id: str | None = None
        self._run_id_checked = 0.0

    # -- setup ---------------------------------------------------------------------
    def setup(self) -> None:
        """(Re)connect: load CONFIG_DB if needed, maps, notifications, full reconcile."""
        cfg_db = self.r["CONFIG_DB"]
        self._run_id = str(cfg_db.info("server")["run_id"])
        first = self._last_wall is None
        if (first and self.load) or not cfg_db.exists(INIT_FLAG):
            n = write_config_db(cfg_db, self.cfg)
            log.info("CONFIG_DB: loaded %d entries from %s", n, self.config_db_path)
        try:
            cfg_db.config_set("notify-keyspace-events", "AKE")
        except redis.ResponseError:
            log.warning("cannot enable keyspace notifications; polling the buffer tables")
        self.flex.publish_maps(self.r["COUNTERS_DB"])
        self.flex.reset_script()
        if self._pubsub is not None:
            try:
                self._pubsub.close()
            except redis.RedisError:
                pass
        ps = cfg_db.pubsub()  # subscribe confirmations are read and skipped in _drain
        dbid = self.layout["CONFIG_DB"].id
        ps.psubscribe(*[f"__keyspace@{dbid}__:{t}|*" for t in
                        (*_BUFFER_TABLES, "FLEX_COUNTER_TABLE", "WATERMARK_TABLE")])
        self._pubsub = ps
        if self._clear_sub is not None:
            try:
                self._clear_sub.close()
            except redis.RedisError:
                pass
        self._clear_sub = self.r["APPL_DB"].pubsub(ignore_subscribe_messages=True)
        self._clear_sub.subscribe(CLEAR_CHANNEL)
        self._dirty_buffers = self._dirty_flex = True
        self._apply_config()
        self.r["STATE_DB"].hset(READY_KEY, mapping={
            "status": "ready", "ports": str(len(self.shape.ports)), "queues": str(self.asic.n),
            "pool": self.shape.pool})
        self._ready = True
        self.setups += 1

    def _drain_clears(self) -> None:
        while True:
            m = self._clear_sub.get_message(timeout=0)
            if m is None:
                return
            if m.get("type") != "message":
                continue
            try:
                op, data = json.loads(m["data"])[:2]
            except (ValueError, TypeError):
                log.warning("WATERMARK_CLEAR_REQUEST %r is not [op, data]; ignored", m["data"])
                continue
            if self.flex.clear(self.r["COUNTERS_DB"], str(op), str(data)):
                self.clears += 1
            else:
                log.warning("unknown watermark clear request op %s data %s", op, data)

    def _drain(self) -> None:
        self._drain_clears()
        while True:
            m = self._pubsub.get_message(timeout=0)
            if m is None:
                return
            if m.get("type") != "pmessage":
                continue
            ch = m.get("channel", "")
            key = ch.split(":", 1)[1] if ":" in ch else ""
            if key.startswith(("FLEX_COUNTER_TABLE", "WATERMARK_TABLE")):
                self._dirty_flex = True
            else:
                self._dirty_buffers = True

    def _apply_config(self) -> None:
        if self._dirty_flex:
            self._dirty_flex = False
            self.flex.configure(self.r["CONFIG_DB"])
        if self._dirty_buffers:
            self._dirty_buffers = False
            res = self.buffers.reconcile(self.r["CONFIG_DB"], self.r["APPL_DB"],
                                         self.r["STATE_DB"])
            self.reconciles += 1
            if res.applied:
                log.debug("applied dynamic_th on %d queues", len(res.applied))

    # -- ticks ---------------------------------------------------------------------
    def step(self, advance_ns: int | None = None, now: float | None = None) -> None:
        """One tick. ``advance_ns`` defaults to the wall time since the previous tick."""
        now = time.monotonic() if now is None else now
        if self._ready and now - self._run_id_checked >= 0.5:
            # The clients reconnect by themselves: a restarted Redis (maybe empty) is
            # noticed by its new run_id, and everything is set up again.
            self._run_id_checked = now
            if str(self.r["CONFIG_DB"].info("server")["run_id"]) != self._run_id:
                log.warning("Redis restarted; setting the switch up again")
                self._ready = False
        if not self._ready:
            self.setup()
        self._drain()
        self._apply_config()
        if advance_ns is None:
            last = self._last_wall if self._last_wall is not None else now
            advance_ns = int(min(max(now - last, 0.0), 1.0) * self.time_scale * 1e9)
        self._last_wall = now
        self.asic.advance(advance_ns)
        stats, _occ, pool_wm, _t = self.asic.read()
        self.flex.observe(stats, pool_wm)
        self.flex.poll(self.r["COUNTERS_DB"], now)
        self.ticks += 1

    def run(self, duration: float | None = None) -> None:
        start = deadline = time.monotonic()
        while not self.stop_event.is_set():
            try:
                t0 = time.monotonic()
                self.step()
                # sustained, not one slow tick (e.g. many profile changes at once)
                self.busy_avg += 0.02 * (time.monotonic() - t0 - self.busy_avg)
                if self.ticks > 200 and self.busy_avg > self.tick and not self.lag_warned:
                    self.lag_warned = True
                    log.warning("ticks take %.0f ms on average (tick %.0f ms): the model runs "
                                "slower than real time; lower the traffic, raise --pkt-bytes "
                                "or set --time-scale below 1", self.busy_avg * 1e3,
                                self.tick * 1e3)
                if self._down_since is not None:
                    log.info("Redis is back after %.1f s", time.monotonic() - self._down_since)
                    self._down_since = None
            except redis.RedisError as e:
                if self._down_since is None:
                    self._down_since = time.monotonic()
                    log.warning("Redis unavailable (%s); retrying", e)
                self._ready = False
            deadline += self.tick
            now = time.monotonic()
            if duration is not None and now - start >= duration:
                break
            if now > deadline:
                deadline = now
            self.stop_event.wait(max(deadline - now, 0.0))

    def close(self) -> None:
        for ps in (self._pubsub, self._clear_sub):
            if ps is not None:
                try:
                    ps.close()
                except redis.RedisError:
                    pass
        for r in self.r.values():
            r.close()
        self.asic.close()
