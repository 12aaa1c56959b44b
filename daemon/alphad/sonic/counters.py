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

import warnings
from dataclasses import dataclass

import numpy as np
import redis
from redis.exceptions import NoScriptError

__all__ = [
    "QUEUE_FIELDS",
    "CounterReader",
    "Counters",
    "NonNumericCounter",
    "parse_values",
]

QUEUE_FIELDS = (
    "SAI_QUEUE_STAT_BYTES",
    "SAI_QUEUE_STAT_PACKETS",
    "SAI_QUEUE_STAT_DROPPED_BYTES",
    "SAI_QUEUE_STAT_DROPPED_PACKETS",
    "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES",
)
POOL_FIELD = "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"

# KEYS: queue hashes, then optionally the pool hash. ARGV[1]: number of queue keys.
# Returns {values joined by ' ' in QUEUE_FIELDS order (missing -> 0), missing counter
# fields, missing watermarks, pool watermark or false}. The fields are spelled out so
# that each queue costs one HMGET and no table unpacking.
_READ_LUA = """
local call = redis.call
local n = tonumber(ARGV[1])
local out = {}
local miss_c, miss_w = 0, 0
for i = 1, n do
  local v = call('HMGET', KEYS[i], 'F1', 'F2', 'F3', 'F4', 'F5')
  local a, b, c, d, w = v[1], v[2], v[3], v[4], v[5]
  if not (a and b and c and d) then
    miss_c = miss_c + (a and 0 or 1) + (b and 0 or 1) + (c and 0 or 1) + (d and 0 or 1)
    a, b, c, d = a or '0', b or '0', c or '0', d or '0'
  end
  if not w then
    miss_w = miss_w + 1
    w = '0'
  end
  out[i] = a .. ' ' .. b .. ' ' .. c .. ' ' .. d .. ' ' .. w
end
local pool = false
if #KEYS > n then
  pool = call('HGET', KEYS[n + 1], 'POOL')
end
return {table.concat(out, ' '), miss_c, miss_w, pool}
"""
for _i, _f in enumerate(QUEUE_FIELDS, 1):
    _READ_LUA = _READ_LUA.replace(f"'F{_i}'", repr(_f))
_READ_LUA = _READ_LUA.replace("'POOL'", repr(POOL_FIELD))


@dataclass
class Counters:
    values: np.ndarray  # uint64 [n, 5] in QUEUE_FIELDS order
    missing_counters: int  # queue counter fields absent (QUEUE group not published yet)
    missing_watermarks: int  # watermark fields absent (QUEUE_WATERMARK disabled?)
    pool_watermark: float | None
    non_numeric: int = 0  # values that were not numbers (read as 0)


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
        self._args = [str(self.n)]
        self._sha: str | None = None
        self._run_id: str | None = None
        # Set when the reader sees that Redis restarted since the previous read (its
        # script cache was empty, or its run_id changed); the owner clears it.
        self.restarted = False

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
            self.restarted = True
            self.load_script()
            res = self.r.evalsha(self._sha, len(self._all_keys), *self._all_keys, *self._args)
        text, miss_c, miss_w, pool = res
        try:
            vals, bad = _parse(text, self.n * len(QUEUE_FIELDS))
        except MisalignedCounters:  # a value with a space or an empty one: read field by field
            return self._read_pipeline()
        return Counters(vals.reshape(self.n, len(QUEUE_FIELDS)), int(miss_c), int(miss_w),
                        _pool(pool), bad)

    def _read_pipeline(self) -> Counters:
        pipe = self.r.pipeline(transaction=False)
        for k in self.keys:
            pipe.hmget(k, QUEUE_FIELDS)
        if self.pool_key:
            pipe.hget(self.pool_key, POOL_FIELD)
        pipe.info("server")
        res = pipe.execute()
        run_id = str(res.pop()["run_id"])
        if self._run_id is not None and run_id != self._run_id:
            self.restarted = True
        self._run_id = run_id
        rows = res[: self.n]
        flat = [x for row in rows for x in row]
        miss_w = sum(1 for row in rows if row[-1] is None)
        miss_c = sum(1 for x in flat if x is None) - miss_w
        vals, bad = _parse(" ".join(map(_token, flat)), self.n * len(QUEUE_FIELDS))
        pool = res[self.n] if self.pool_key else None
        return Counters(vals.reshape(self.n, len(QUEUE_FIELDS)), miss_c, miss_w, _pool(pool),
                        bad)


def parse_values(text: str, count: int) -> np.ndarray:
    """Space-separated unsigned integers -> uint64 [count]. A value that is not a
    number (a corrupt counter) reads as 0; NonNumericCounter says how many."""
    if count == 0:
        return np.zeros(0, dtype=np.uint64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            vals = np.fromstring(text, dtype=np.uint64, sep=" ")
        except ValueError:
            vals = np.zeros(0, dtype=np.uint64)
    # One space between values: an empty value or one holding a space changes the count
    # (and would shift every later value onto the next field).
    if (len(vals) == count and text.count(" ") == count - 1
            and not (vals == _U64_MAX).any()):  # saturated: maybe >= 2^64
        return vals
    tokens = text.split(" ")
    if len(tokens) != count:
        raise MisalignedCounters(f"{len(tokens)} counter values where {count} were expected")
    out = np.zeros(count, dtype=np.uint64)
    bad = 0
    for i, tok in enumerate(tokens):
        if tok.isascii() and tok.isdigit() and int(tok) < 2**64:
            out[i] = int(tok)
        else:
            bad += 1
    if not bad:  # every value was good (one of them the largest uint64)
        return out
    raise NonNumericCounter(out, bad)


_U64_MAX = np.uint64(2**64 - 1)


def _token(x: str | None) -> str:
    """One field as a token of the space-separated text: missing -> 0, not a number -> x."""
    if x is None:
        return "0"
    return x if x.isascii() and x.isdigit() else "x"


class MisalignedCounters(ValueError):
    """The joined values do not split into one token per field (a value held a space or
    was empty): the values cannot be attributed to queues."""


def _parse(text: str, count: int) -> tuple[np.ndarray, int]:
    try:
        return parse_values(text, count), 0
    except NonNumericCounter as e:
        return e.values, e.bad


class NonNumericCounter(ValueError):
    """Some counter values are not numbers; ``values`` holds the rest (bad ones as 0)."""

    def __init__(self, values: np.ndarray, bad: int) -> None:
        super().__init__(f"{bad} counter values in COUNTERS_DB are not numbers (read as 0)")
        self.values = values
        self.bad = bad


def _pool(v: object) -> float | None:
    if v is None or v is False:
        return None
    try:
        return float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
