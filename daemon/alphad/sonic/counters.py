"""Reading every queue's counters and watermark from COUNTERS_DB in one round trip.

SONiC's flex counters write ``COUNTERS:<queue oid>`` hashes: the QUEUE group
the cumulative ``SAI_QUEUE_STAT_{BYTES,PACKETS,DROPPED_BYTES,DROPPED_PACKETS}``,
the QUEUE_WATERMARK group ``SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES``, read from
the ASIC with READ_AND_CLEAR at every poll: the peak shared occupancy of the
last poll interval, which is what alphad needs (the USER/PERIODIC/PERSISTENT
watermark tables are max-merged over minutes and would hide the present).

Two readers: one server-side Lua script (EVALSHA; SONiC's own flex-counter
plugins are Lua run inside Redis) returning all values as one string, and a
pipeline of HMGET for comparison (``bench/sonic``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import redis
from redis.exceptions import NoScriptError

__all__ = ["QUEUE_FIELDS", "CounterReader", "Counters"]

QUEUE_FIELDS = (
    "SAI_QUEUE_STAT_BYTES",
    "SAI_QUEUE_STAT_PACKETS",
    "SAI_QUEUE_STAT_DROPPED_BYTES",
    "SAI_QUEUE_STAT_DROPPED_PACKETS",
    "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES",
)
POOL_FIELD = "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"

# KEYS: queue hashes, then optionally the pool hash. ARGV[1]: number of queue keys,
# ARGV[2..]: queue fields. Returns {values joined by ' ' (missing -> 0),
# missing counters (first four fields), missing watermarks, pool watermark or false}.
_READ_LUA = """
local n = tonumber(ARGV[1])
local nf = #ARGV - 1
local fields = {}
for j = 1, nf do fields[j] = ARGV[j + 1] end
local out = {}
local miss_c, miss_w = 0, 0
local k = 0
for i = 1, n do
  local v = redis.call('HMGET', KEYS[i], unpack(fields))
  for j = 1, nf do
    k = k + 1
    local x = v[j]
    if not x then
      x = '0'
      if j == nf then miss_w = miss_w + 1 else miss_c = miss_c + 1 end
    end
    out[k] = x
  end
end
local pool = false
if #KEYS > n then
  pool = redis.call('HGET', KEYS[n + 1], ARGV_POOL)
end
return {table.concat(out, ' '), miss_c, miss_w, pool}
""".replace("ARGV_POOL", repr(POOL_FIELD))


@dataclass
class Counters:
    values: np.ndarray  # uint64 [n, 5] in QUEUE_FIELDS order
    missing_counters: int  # queue counter fields absent (QUEUE group not published yet)
    missing_watermarks: int  # watermark fields absent (QUEUE_WATERMARK disabled?)
    pool_watermark: float | None


class CounterReader:
    """Reads a fixed list of queues (and optionally one pool) from COUNTERS_DB."""

    def __init__(self, counters_db: redis.Redis, sep: str, queue_oids: list[str],
                 pool_oid: str | None = None, method: str = "lua") -> None:
        if method not in ("lua", "pipeline"):
            raise ValueError(f"unknown counter reader {method!r}")
        self.r = counters_db
        self.method = method
        self.n = len(queue_oids)
        self.keys = [f"COUNTERS{sep}{oid}" for oid in queue_oids]
        self.pool_key = f"COUNTERS{sep}{pool_oid}" if pool_oid else None
        self._all_keys = self.keys + ([self.pool_key] if self.pool_key else [])
        self._args = [str(self.n), *QUEUE_FIELDS]
        self._sha: str | None = None

    def load_script(self) -> None:
        self._sha = str(self.r.script_load(_READ_LUA))

    def read(self) -> Counters:
        return self._read_lua() if self.method == "lua" else self._read_pipeline()

    def _read_lua(self) -> Counters:
        if self._sha is None:
            self.load_script()
        try:
            res = self.r.evalsha(self._sha, len(self._all_keys), *self._all_keys, *self._args)
        except NoScriptError:  # Redis restarted: its script cache is empty
            self.load_script()
            res = self.r.evalsha(self._sha, len(self._all_keys), *self._all_keys, *self._args)
        text, miss_c, miss_w, pool = res
        if self.n:
            vals = np.array(text.split(" "), dtype=np.uint64)
        else:
            vals = np.zeros(0, dtype=np.uint64)
        return Counters(vals.reshape(self.n, len(QUEUE_FIELDS)), int(miss_c), int(miss_w),
                        _pool(pool))

    def _read_pipeline(self) -> Counters:
        pipe = self.r.pipeline(transaction=False)
        for k in self.keys:
            pipe.hmget(k, QUEUE_FIELDS)
        if self.pool_key:
            pipe.hget(self.pool_key, POOL_FIELD)
        res = pipe.execute()
        rows = res[: self.n]
        flat = [x for row in rows for x in row]
        miss_w = sum(1 for row in rows if row[-1] is None)
        miss_c = sum(1 for x in flat if x is None) - miss_w
        vals = np.array([x if x is not None else "0" for x in flat], dtype=np.uint64)
        pool = res[self.n] if self.pool_key else None
        return Counters(vals.reshape(self.n, len(QUEUE_FIELDS)), miss_c, miss_w, _pool(pool))


def _pool(v: object) -> float | None:
    if v is None or v is False:
        return None
    try:
        return float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
