"""Per-queue alpha on SONiC: profile clones, BUFFER_QUEUE splitting, dynamic_th writes.

Alpha belongs to a buffer profile, which many queues share. The first time
alphad changes a queue's alpha it clones the queue's profile into
``BUFFER_PROFILE|alphad_<port>_<queue>`` (every field copied: same pool, size
and threshold mode; dynamic_th set to the new value) and repoints the queue.
The first clone in a ``BUFFER_QUEUE`` entry (``Ethernet0,Ethernet4|0-2``) splits
the entry into one key per (port, queue) (``Ethernet0|0``, ``Ethernet0|1``, ...),
all on the original profile but the cloned queue; every later clone in that
entry only changes the ``profile`` field of its existing key. So each original
entry is removed once, and no queue is ever detached from its profile after
that. Later changes of a queue write only its clone's ``dynamic_th``. Every key
is journaled before its first change; restore writes the originals back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import redis

from alphad.sonic.discover import Discovery, QueueEntry
from alphad.sonic.journal import Journal, Original
from alphad.sonic.keys import SonicSyntaxError, format_profile_ref, parse_profile_ref

__all__ = [
    "FLEX_GROUPS",
    "Actuator",
    "ClonesMissing",
    "ConfigChanged",
    "Plan",
    "clone_name",
    "layout",
    "restore_from",
    "set_flex_intervals",
]

# KEYS: the managed pool, then profile hashes; ARGV: dynamic_th values (profile order).
# Atomic, one round trip. Nothing is written when the pool is gone (CONFIG_DB flushed:
# `config reload`, an empty restart): returns -1. A profile that does not exist (Redis
# lost it) is not left behind: HSET reports a new field only for a hash without
# dynamic_th, which is then deleted again within the same atomic script. Returns how
# many were missing. One call per profile in the normal case.
_SET_TH_LUA = """
local call = redis.call
if call('EXISTS', KEYS[1]) == 0 then
  return -1
end
local missing = 0
for i = 2, #KEYS do
  if call('HSET', KEYS[i], 'dynamic_th', ARGV[i - 1]) == 1 then
    call('DEL', KEYS[i])
    missing = missing + 1
  end
end
return missing
"""


# KEYS: PORT hashes. The speed of each, space-separated ("-" when missing): one string
# for any number of ports.
_SPEEDS_LUA = """
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('HGET', KEYS[i], 'speed') or '-'
end
return table.concat(out, ' ')
"""


class ClonesMissing(RuntimeError):
    """Clone profiles alphad created are gone from CONFIG_DB (Redis lost them)."""


class ConfigChanged(RuntimeError):
    """CONFIG_DB's buffer configuration is not the one discovered and journaled
    (flushed, reloaded or edited): nothing was written."""

FLEX_GROUPS = ("QUEUE", "QUEUE_WATERMARK", "BUFFER_POOL_WATERMARK")


def clone_name(port: str, queue: int) -> str:
    return f"alphad_{port}_{queue}"


def layout(e: QueueEntry, cloned: set[tuple[str, int]]) -> dict[str, dict[str, str]]:
    """BUFFER_QUEUE keys (without the table name) that express entry ``e`` when the
    queues in ``cloned`` have their own profile. ``layout(e, set()) == {e.key: e.fields}``;
    once one queue of ``e`` is cloned, ``e`` is laid out as one key per (port, queue),
    so that later clones only change the ``profile`` field of an existing key (no key
    of the entry is removed again, and orchagent never detaches the other queues)."""
    if not any((p, q) in cloned for p in e.ports for q in e.queues):
        return {e.key: dict(e.fields)}
    out: dict[str, dict[str, str]] = {}
    for p in e.ports:
        for q in e.queues:
            f = dict(e.fields)
            if (p, q) in cloned:
                f["profile"] = format_profile_ref(clone_name(p, q), e.bracketed)
            out[f"{p}|{q}"] = f
    return out


@dataclass
class Plan:
    """CONFIG_DB writes of one apply: new clones and layouts, then dynamic_th updates."""

    profiles: dict[str, dict[str, str]] = field(default_factory=dict)  # full key -> fields
    queue_new: dict[str, dict[str, str]] = field(default_factory=dict)  # new keys -> fields
    queue_set: dict[str, dict[str, str]] = field(default_factory=dict)  # existing -> fields
    queue_del: list[str] = field(default_factory=list)  # full keys
    th: dict[str, int] = field(default_factory=dict)  # full profile key -> dynamic_th
    new: list[tuple[str, int]] = field(default_factory=list)  # queues cloned by this plan
    # what CONFIG_DB must hold for the plan to apply (None: the key must exist)
    expect: dict[str, dict[str, str] | None] = field(default_factory=dict)

    @property
    def structural(self) -> bool:
        return bool(self.profiles or self.queue_new or self.queue_set or self.queue_del)

    def touched(self) -> list[str]:
        return [*self.profiles, *self.queue_new, *self.queue_set, *self.queue_del]


class Actuator:
    """Tracks which queues are cloned and turns alpha changes into CONFIG_DB writes."""

    def __init__(self, disc: Discovery, sep: str = "|") -> None:
        self.d = disc
        self.sep = sep
        self.cloned: set[tuple[str, int]] = set()
        self._layout: dict[str, dict[str, dict[str, str]]] = {
            k: layout(e, set()) for k, e in disc.entries.items()}
        self._th_sha: str | None = None
        self._speeds: str | None = None  # sha of _SPEEDS_LUA

    @property
    def pool_key(self) -> str:
        return f"BUFFER_POOL{self.sep}{self.d.pool.name}"

    def qkey(self, suffix: str) -> str:
        return f"BUFFER_QUEUE{self.sep}{suffix}"

    def pkey(self, name: str) -> str:
        return f"BUFFER_PROFILE{self.sep}{name}"

    def plan(self, queues: list[tuple[str, int, int]]) -> Plan:
        """Writes that give each ``(port, queue, k)`` the dynamic_th k."""
        plan = Plan()
        new = [(p, q, k) for p, q, k in queues if (p, q) not in self.cloned]
        for p, q, k in queues:
            if (p, q) in self.cloned:
                plan.th[self.pkey(clone_name(p, q))] = k
        if not new:
            return plan
        info = {(x.port, x.queue): x for x in self.d.queues}
        cloned = self.cloned | {(p, q) for p, q, _ in new}
        plan.expect[self.pool_key] = None
        for p, q, k in new:
            plan.new.append((p, q))
            prof = self.d.profiles[info[(p, q)].profile]
            plan.profiles[self.pkey(clone_name(p, q))] = {**prof.fields, "dynamic_th": str(k)}
            plan.expect[self.pkey(prof.name)] = prof.fields
        for ekey in sorted({info[(p, q)].entry for p, q, _ in new}):
            old = self._layout[ekey]
            plan.expect.update({self.qkey(s): f for s, f in old.items()})
            nl = layout(self.d.entries[ekey], cloned)
            plan.queue_del += [self.qkey(s) for s in old if s not in nl]
            plan.queue_new.update({self.qkey(s): f for s, f in nl.items() if s not in old})
            plan.queue_set.update({self.qkey(s): f for s, f in nl.items()
                                   if s in old and old[s] != f})
        return plan

    def originals(self, r: redis.Redis, keys: list[str]) -> dict[str, Original]:
        """Current content of ``keys`` (what the journal must remember)."""
        pipe = r.pipeline(transaction=False)
        for k in keys:
            pipe.hgetall(k)
        return {k: (v or None) for k, v in zip(keys, pipe.execute(), strict=True)}

    def execute(self, r: redis.Redis, plan: Plan, journal: Journal,
                state_db: redis.Redis) -> None:
        """Check that CONFIG_DB holds what the plan starts from, journal what it touches
        for the first time, then write it in one transaction (WATCH: a change of the
        checked keys in between writes nothing). ConfigChanged: nothing written."""
        if plan.structural:
            with r.pipeline(transaction=True) as pipe:
                guard = list(plan.expect)
                pipe.watch(*guard)
                now = {k: pipe.hgetall(k) for k in guard}  # immediate mode under WATCH
                bad = [k for k, want in plan.expect.items() if not self._holds(k, now[k], want)]
                if bad:
                    raise ConfigChanged(
                        f"CONFIG_DB no longer holds the buffer configuration alphad discovered "
                        f"({len(bad)} keys differ or are gone, e.g. {sorted(bad)[0]}); "
                        "nothing written")
                fresh = [k for k in plan.touched() if k not in journal]
                if fresh:
                    journal.record(self.originals(r, fresh), state_db)
                pipe.multi()
                self._write_structure(pipe, plan)
                try:
                    pipe.execute()
                except redis.WatchError:
                    raise ConfigChanged("CONFIG_DB's buffer configuration changed while "
                                        "alphad wrote to it; nothing written") from None
            self._commit_structure(plan)
        if plan.th:
            self.set_th(r, plan.th)

    def check(self, r: redis.Redis) -> str | None:
        """None while CONFIG_DB holds the configuration alphad discovered (the pool, the
        managed queues' profiles, each BUFFER_QUEUE entry as alphad laid it out: split
        entries absent, the ports' speeds), else the first key that differs. One round
        trip."""
        exp: list[tuple[str, dict[str, str] | bool | None]] = [(self.pool_key, True)]
        exp += [(self.pkey(n), self.d.profiles[n].fields)
                for n in sorted({q.profile for q in self.d.queues if q.managed})]
        exp += [(self.qkey(k), self._layout[k].get(k)) for k in sorted(self.d.entries)]
        ports = sorted({q.port for q in self.d.queues})
        pkeys = [f"PORT{self.sep}{p}" for p in ports]
        if self._speeds is None:
            self._speeds = str(r.script_load(_SPEEDS_LUA))
        pipe = r.pipeline(transaction=False)
        for k, _ in exp:
            pipe.hgetall(k)
        pipe.evalsha(self._speeds, len(pkeys), *pkeys)
        try:
            res = pipe.execute()
        except redis.exceptions.NoScriptError:  # Redis restarted: load it again
            self._speeds = None
            return self.check(r)
        speeds = str(res.pop()).split(" ")
        for (k, want), got in zip(exp, res, strict=True):
            if want is True:
                ok = bool(got)
            elif want is None or want is False:
                ok = not got
            else:
                ok = self._holds(k, got, want)
            if not ok:
                return f"{k} {'is gone' if not got else 'differs'}"
        for port, speed in zip(ports, speeds, strict=True):
            if speed != str(self.d.ports[port]):
                return f"PORT{self.sep}{port} speed {speed!r} (was {self.d.ports[port]})"
        return None

    def _holds(self, key: str, now: dict[str, str], want: dict[str, str] | None) -> bool:
        """CONFIG_DB's ``now`` is what alphad expects (a queue key may already point at
        its clone: a clone lost behind alphad's back is made again)."""
        if not now or want is None or now == want:
            return bool(now)
        if not key.startswith(self.qkey("")):
            return False
        try:
            prof = parse_profile_ref(now.get("profile", ""))[0]
        except SonicSyntaxError:
            return False
        rest = {k: v for k, v in now.items() if k != "profile"}
        return prof.startswith("alphad_") and rest == {k: v for k, v in want.items()
                                                         if k != "profile"}

    def _write_structure(self, pipe: redis.client.Pipeline, plan: Plan) -> None:
        for k, f in plan.profiles.items():
            pipe.delete(k)
            pipe.hset(k, mapping=f)
        for k in plan.queue_del:
            pipe.delete(k)
        for k, f in plan.queue_new.items():
            pipe.delete(k)
            pipe.hset(k, mapping=f)
        for k, f in plan.queue_set.items():  # same fields: overwrite, never remove
            pipe.hset(k, mapping=f)

    def set_th(self, r: redis.Redis, th: dict[str, int]) -> None:
        keys = [self.pool_key, *th]
        args = [str(v) for v in th.values()]
        if self._th_sha is None:
            self._th_sha = str(r.script_load(_SET_TH_LUA))
        try:
            missing = r.evalsha(self._th_sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:
            self._th_sha = str(r.script_load(_SET_TH_LUA))
            missing = r.evalsha(self._th_sha, len(keys), *keys, *args)
        if int(missing) < 0:
            raise ConfigChanged(f"pool {self.d.pool.name!r} is gone from CONFIG_DB (flushed: "
                                "config reload or a restart?); nothing written")
        if int(missing):
            raise ClonesMissing(f"{int(missing)} of {len(th)} per-queue profiles are missing "
                                "from CONFIG_DB (Redis restarted without them?)")

    def _commit_structure(self, plan: Plan) -> None:
        self.cloned.update(plan.new)
        for ekey, e in self.d.entries.items():
            if any((p, q) in self.cloned for p in e.ports for q in e.queues):
                self._layout[ekey] = layout(e, self.cloned)

    def resync(self, cloned: set[tuple[str, int]]) -> None:
        """Take ``cloned`` as the queues whose clone exists (after a reconnection)."""
        self.cloned = set(cloned)
        self._layout = {k: layout(e, self.cloned) for k, e in self.d.entries.items()}

    def forget(self) -> None:
        """After a restore: no queue is cloned any more."""
        self.cloned.clear()
        self._layout = {k: layout(e, set()) for k, e in self.d.entries.items()}

    def read_clone_th(self, r: redis.Redis) -> dict[tuple[str, int], int | None]:
        """dynamic_th of every clone as CONFIG_DB has it (None: clone missing)."""
        items = sorted(self.cloned)
        pipe = r.pipeline(transaction=False)
        for p, q in items:
            pipe.hget(self.pkey(clone_name(p, q)), "dynamic_th")
        out: dict[tuple[str, int], int | None] = {}
        for pq, v in zip(items, pipe.execute(), strict=True):
            try:
                out[pq] = int(v) if v is not None else None
            except ValueError:
                out[pq] = None
        return out


def flex_originals(r: redis.Redis, sep: str, groups: tuple[str, ...]) -> dict[str, Original]:
    pipe = r.pipeline(transaction=False)
    keys = [f"FLEX_COUNTER_TABLE{sep}{g}" for g in groups]
    for k in keys:
        pipe.hgetall(k)
    return {k: (v or None) for k, v in zip(keys, pipe.execute(), strict=True)}


def set_flex_intervals(r: redis.Redis, sep: str, groups: tuple[str, ...], interval_ms: int,
                       journal: Journal, state_db: redis.Redis,
                       guard: str | None = None) -> list[str]:
    """Poll ``groups`` every ``interval_ms`` (and enable them), journaling the originals.
    Returns the keys changed. ``guard``: a key that must exist (the managed pool), else
    ConfigChanged and nothing written (CONFIG_DB flushed)."""
    keys = [f"FLEX_COUNTER_TABLE{sep}{g}" for g in groups]
    with r.pipeline(transaction=True) as pipe:
        pipe.watch(*keys, *([guard] if guard else []))
        if guard is not None and not pipe.exists(guard):
            raise ConfigChanged(f"{guard} is gone from CONFIG_DB (flushed: config reload or a "
                                "restart?); flex counters not changed")
        cur = {k: (pipe.hgetall(k) or None) for k in keys}
        want = {k: {**(v or {}), "POLL_INTERVAL": str(interval_ms),
                    "FLEX_COUNTER_STATUS": "enable"} for k, v in cur.items()}
        changed = [k for k in cur if want[k] != (cur[k] or {})]
        if not changed:
            return []
        journal.record({k: cur[k] for k in changed}, state_db)
        pipe.multi()
        for k in changed:
            pipe.hset(k, mapping=want[k])
        try:
            pipe.execute()
        except redis.WatchError:
            raise ConfigChanged("CONFIG_DB changed while alphad set the flex counters; "
                                "nothing written") from None
    return changed


def restore_from(r: redis.Redis, journal: Journal, state_db: redis.Redis, sep: str = "|") -> int:
    """Write every journaled original back (queues and flex counters first, then remove
    the clones), then clear the journal. Returns the number of keys restored."""
    entries = dict(journal.entries)
    if not entries:
        journal.clear(state_db)
        return 0
    profiles = sorted(k for k in entries if k.startswith(f"BUFFER_PROFILE{sep}"))
    others = sorted(k for k in entries if k not in set(profiles))
    for group in (others, profiles):
        if not group:
            continue
        pipe = r.pipeline(transaction=True)
        for k in group:
            pipe.delete(k)
            orig = entries[k]
            if orig:
                pipe.hset(k, mapping=orig)
        pipe.execute()
    journal.clear(state_db)
    return len(entries)
