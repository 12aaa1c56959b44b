"""Flex counters of the virtual switch: COUNTERS_DB as syncd's FlexCounter writes it.

Groups (CONFIG_DB ``FLEX_COUNTER_TABLE|<group>``, ``POLL_INTERVAL`` in ms,
``FLEX_COUNTER_STATUS`` enable/disable):
- ``QUEUE`` (default 10000 ms): ``COUNTERS:<queue oid>``
  ``SAI_QUEUE_STAT_{PACKETS,BYTES,DROPPED_PACKETS,DROPPED_BYTES}``, cumulative;
- ``QUEUE_WATERMARK`` (default 60000 ms): ``SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES``,
  read-and-clear: the peak of the last poll interval; then SONiC's
  watermark_queue.lua plugin max-merges it into ``USER_WATERMARKS``,
  ``PERSISTENT_WATERMARKS`` and ``PERIODIC_WATERMARKS`` (the last cleared every
  ``WATERMARK_TABLE|TELEMETRY_INTERVAL`` seconds, default 120); a
  ``WATERMARK_CLEAR_REQUEST`` on APPL_DB zeroes USER or PERSISTENT (:meth:`clear`);
- ``BUFFER_POOL_WATERMARK`` (default 60000 ms): ``COUNTERS:<pool oid>``
  ``SAI_BUFFER_POOL_STAT_WATERMARK_BYTES``, read-and-clear, and the same tables.

The ASIC is read every tick of the switch (its watermarks are read-and-clear);
the switch keeps the peak since each group's last poll and publishes when the
group is due.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import redis

from alphad_vswitch.asic import VirtualAsic

__all__ = ["DEFAULT_POLL_MS", "FlexCounters", "GroupState"]

DEFAULT_POLL_MS = {"QUEUE": 10000, "QUEUE_WATERMARK": 60000, "BUFFER_POOL_WATERMARK": 60000}
WATERMARK_TABLES = ("USER_WATERMARKS", "PERSISTENT_WATERMARKS", "PERIODIC_WATERMARKS")
QUEUE_WM = "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"
POOL_WM = "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"
POOL_OID = "oid:0x18000000000001"  # SAI_OBJECT_TYPE_BUFFER_POOL (0x18)

# watermark plugin: KEYS = object oids, ARGV[1] = field. Max-merge COUNTERS:<oid> into the
# three watermark tables (as sonic-swss orchagent/watermark_*.lua).
_WM_PLUGIN = """
local field = ARGV[1]
for i = 1, #KEYS do
  local wm = redis.call('HGET', 'COUNTERS:' .. KEYS[i], field)
  if wm then
    wm = tonumber(wm)
    for _, t in ipairs({'USER_WATERMARKS', 'PERSISTENT_WATERMARKS', 'PERIODIC_WATERMARKS'}) do
      local last = redis.call('HGET', t .. ':' .. KEYS[i], field)
      if (not last) or wm > tonumber(last) then
        redis.call('HSET', t .. ':' .. KEYS[i], field, wm)
      end
    end
  end
end
return #KEYS
"""


@dataclass
class GroupState:
    enabled: bool
    poll_ms: int
    last: float = 0.0  # monotonic time of the last poll


class FlexCounters:
    def __init__(self, asic: VirtualAsic, ports: tuple[str, ...], pool: str) -> None:
        self.asic = asic
        self.ports = ports
        self.pool = pool
        self.n = asic.n
        self.oids = [asic.queue_oid(i) for i in range(self.n)]
        self.groups = {g: GroupState(False, ms) for g, ms in DEFAULT_POLL_MS.items()}
        self.telemetry_interval = 120.0
        self._periodic_cleared = time.monotonic()
        self.wm_peak = np.zeros(self.n, dtype=np.uint64)
        self.pool_peak = 0
        self.stats = np.zeros((self.n, 6), dtype=np.uint64)
        self._sha: str | None = None
        self.polls = {g: 0 for g in DEFAULT_POLL_MS}

    # -- configuration -----------------------------------------------------------------
    def configure(self, config_db: redis.Redis, sep: str = "|") -> None:
        """Read FLEX_COUNTER_TABLE and WATERMARK_TABLE|TELEMETRY_INTERVAL."""
        pipe = config_db.pipeline(transaction=False)
        for g in self.groups:
            pipe.hgetall(f"FLEX_COUNTER_TABLE{sep}{g}")
        pipe.hget(f"WATERMARK_TABLE{sep}TELEMETRY_INTERVAL", "interval")
        res = pipe.execute()
        for (g, st), f in zip(self.groups.items(), res[:-1], strict=True):
            st.enabled = f.get("FLEX_COUNTER_STATUS") == "enable"
            try:
                ms = int(f.get("POLL_INTERVAL", DEFAULT_POLL_MS[g]))
                st.poll_ms = ms if ms > 0 else DEFAULT_POLL_MS[g]
            except ValueError:
                st.poll_ms = DEFAULT_POLL_MS[g]
        try:
            self.telemetry_interval = max(1.0, float(res[-1])) if res[-1] else 120.0
        except ValueError:
            self.telemetry_interval = 120.0

    def publish_maps(self, counters_db: redis.Redis) -> None:
        """The name maps orchagent creates for the queue and buffer pool counters."""
        name, port_map, index, typ, port_names = {}, {}, {}, {}, {}
        for i, q in enumerate(self.asic.queues):
            port = self.ports[int(q.port_index)]
            oid = self.oids[i]
            name[f"{port}:{int(q.queue_index)}"] = oid
            port_map[oid] = self.asic.port_oid(i)
            index[oid] = str(int(q.queue_index))
            typ[oid] = "SAI_QUEUE_TYPE_UNICAST"
            port_names[port] = self.asic.port_oid(i)
        pipe = counters_db.pipeline(transaction=True)
        for key, m in (("COUNTERS_QUEUE_NAME_MAP", name), ("COUNTERS_QUEUE_PORT_MAP", port_map),
                       ("COUNTERS_QUEUE_INDEX_MAP", index), ("COUNTERS_QUEUE_TYPE_MAP", typ),
                       ("COUNTERS_PORT_NAME_MAP", port_names),
                       ("COUNTERS_BUFFER_POOL_NAME_MAP", {self.pool: POOL_OID})):
            pipe.delete(key)
            if m:
                pipe.hset(key, mapping=m)
        pipe.execute()

    # -- every tick ----------------------------------------------------------------
    def observe(self, stats: np.ndarray, pool_wm: int) -> None:
        """One ASIC read: keep the cumulative counters and the peaks since the polls."""
        self.stats = stats
        np.maximum(self.wm_peak, stats[:, 1], out=self.wm_peak)
        self.pool_peak = max(self.pool_peak, pool_wm)

    def due(self, now: float) -> list[str]:
        return [g for g, st in self.groups.items()
                if st.enabled and now - st.last >= st.poll_ms / 1000.0 - 1e-4]

    def poll(self, counters_db: redis.Redis, now: float) -> list[str]:
        """Publish every group that is due. Returns the groups published."""
        groups = self.due(now)
        if not groups and now - self._periodic_cleared < self.telemetry_interval:
            return []
        pipe = counters_db.pipeline(transaction=False)
        s = self.stats
        if "QUEUE" in groups:
            cols = s[:, 2:6].tolist()
            for oid, (b, p, dp, db) in zip(self.oids, cols, strict=True):
                pipe.hset(f"COUNTERS:{oid}", mapping={
                    "SAI_QUEUE_STAT_BYTES": b, "SAI_QUEUE_STAT_PACKETS": p,
                    "SAI_QUEUE_STAT_DROPPED_PACKETS": dp, "SAI_QUEUE_STAT_DROPPED_BYTES": db})
        if "QUEUE_WATERMARK" in groups:
            for oid, w in zip(self.oids, self.wm_peak.tolist(), strict=True):
                pipe.hset(f"COUNTERS:{oid}", QUEUE_WM, w)
            self.wm_peak[:] = 0
        if "BUFFER_POOL_WATERMARK" in groups:
            pipe.hset(f"COUNTERS:{POOL_OID}", POOL_WM, self.pool_peak)
            self.pool_peak = 0
        if now - self._periodic_cleared >= self.telemetry_interval:
            for oid in [*self.oids, POOL_OID]:
                pipe.delete(f"PERIODIC_WATERMARKS:{oid}")
            self._periodic_cleared = now
        pipe.execute()
        if self._sha is None:
            self._sha = str(counters_db.script_load(_WM_PLUGIN))
        try:
            self._plugins(counters_db, groups)
        except redis.exceptions.NoScriptError:
            self._sha = str(counters_db.script_load(_WM_PLUGIN))
            self._plugins(counters_db, groups)
        for g in groups:
            self.groups[g].last = now
            self.polls[g] += 1
        return groups

    def _plugins(self, counters_db: redis.Redis, groups: list[str]) -> None:
        if "QUEUE_WATERMARK" in groups:
            counters_db.evalsha(self._sha, len(self.oids), *self.oids, QUEUE_WM)
        if "BUFFER_POOL_WATERMARK" in groups:
            counters_db.evalsha(self._sha, 1, POOL_OID, POOL_WM)

    def clear(self, counters_db: redis.Redis, op: str, data: str) -> bool:
        """A ``WATERMARK_CLEAR_REQUEST`` (``sonic-clear queue watermark``,
        ``... persistent-watermark``, ``sonic-clear buffer_pool watermark``), as
        orchagent's WatermarkOrch handles it: the field is set to 0 in USER_WATERMARKS or
        PERSISTENT_WATERMARKS; COUNTERS and PERIODIC_WATERMARKS are not touched."""
        table = {"USER": "USER_WATERMARKS", "PERSISTENT": "PERSISTENT_WATERMARKS"}.get(op)
        if table is None:
            return False
        if data in ("Q_SHARED_UNI", "Q_SHARED_ALL"):  # every queue published is unicast
            keys, field = self.oids, QUEUE_WM
        elif data == "BUFFER_POOL":
            keys, field = [POOL_OID], POOL_WM
        else:
            return data in ("Q_SHARED_MULTI", "PG_SHARED", "PG_HEADROOM", "HEADROOM_POOL")
        pipe = counters_db.pipeline(transaction=False)
        for oid in keys:
            pipe.hset(f"{table}:{oid}", field, "0")
        pipe.execute()
        return True

    def reset_script(self) -> None:
        self._sha = None
