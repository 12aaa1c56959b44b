"""The journal against CONFIG_DB as it is now, after a reconnection or at start.

CONFIG_DB can change under alphad: ``config reload`` (FLUSHDB, then the saved
configuration a few seconds later), a Redis restart without its data, an operator's
edit. A journaled original may then be stale: writing it back would put keys into a
switch that no longer has them, or undo the operator's new configuration.

Each journal entry is classified against the key's current content:

- *settled*: the key holds its original content (or is absent, as it was);
- *ours*: the key holds what alphad wrote (a clone on an existing pool, a
  ``BUFFER_QUEUE`` key on an ``alphad_`` clone or on a journaled original's fields,
  a key alphad deleted while the profile it referenced still exists, a flex counter
  group that differs from its original only in its poll interval and status);
- *stale*: anything else; the entry is dropped, never written back.

Entries alphad wrote are restored as before (one exact write-back); settled entries
need no write and are forgotten; stale entries are logged and forgotten.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import redis

from alphad.sonic.discover import CONFIG_TABLES, read_table
from alphad.sonic.journal import Journal, Original
from alphad.sonic.keys import (
    SonicSyntaxError,
    parse_ports,
    parse_profile_ref,
    parse_queue_range,
)

__all__ = ["CLONE_PREFIX", "Reconciled", "reconcile", "undone_tables"]

log = logging.getLogger("alphad.sonic")

CLONE_PREFIX = "alphad_"
_FLEX_OWN = {"POLL_INTERVAL", "FLEX_COUNTER_STATUS"}


@dataclass
class Reconciled:
    settled: list[str] = field(default_factory=list)
    ours: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)


def _pool_name(ref: str) -> str:
    if ref.startswith("[") and ref.endswith("]"):
        return ref[1:-1].split("|", 1)[-1]
    return ref


def _profile(fields: dict[str, str] | None) -> str | None:
    if not fields or "profile" not in fields:
        return None
    try:
        return parse_profile_ref(fields["profile"])[0]
    except SonicSyntaxError:
        return None


def _without(f: dict[str, str] | None, keys: set[str]) -> dict[str, str]:
    return {k: v for k, v in (f or {}).items() if k not in keys}


def _covered(suffix: str) -> set[tuple[str, int]]:
    """(port, queue) pairs of a ``BUFFER_QUEUE`` key suffix ``<ports>|<range>``."""
    ports, _, rng = suffix.rpartition("|")
    try:
        return {(p, q) for p in parse_ports(ports) for q in parse_queue_range(rng)}
    except SonicSyntaxError:
        return set()


def classify(entries: dict[str, Original], current: dict[str, Original], pools: set[str],
             profiles: set[str], sep: str = "|") -> Reconciled:
    """Pure classification (see the module docstring)."""
    out = Reconciled()
    pprefix, qprefix = f"BUFFER_PROFILE{sep}", f"BUFFER_QUEUE{sep}"
    queue_fields = [_without(o, {"profile"}) for k, o in entries.items()
                    if k.startswith(qprefix) and o]
    # queues of original entries that are back as they were (a reload): a per-queue key
    # alphad created for one of them cannot be alphad's any more
    back: set[tuple[str, int]] = set()
    for k, o in entries.items():
        if k.startswith(qprefix) and o is not None and (current.get(k) or None) == o:
            back |= _covered(k[len(qprefix):])
    for k, orig in entries.items():
        cur = current.get(k) or None
        if cur == orig:
            out.settled.append(k)
            continue
        ours = False
        if k.startswith(pprefix + CLONE_PREFIX):
            ours = (orig is None and cur is not None and "dynamic_th" in cur
                    and _pool_name(cur.get("pool", "")) in pools)
        elif k.startswith(qprefix):
            if cur is None:  # deleted by alphad when it split the entry: its split is there
                mine = _covered(k[len(qprefix):])
                ours = orig is not None and _profile(orig) in profiles and any(
                    o2 is None and current.get(k2) and k2.startswith(qprefix)
                    and _covered(k2[len(qprefix):]) <= mine for k2, o2 in entries.items())
            else:
                prof = _profile(cur)
                clone = prof is not None and prof.startswith(CLONE_PREFIX)
                base = _without(cur, {"profile"})
                if orig is not None:
                    ours = clone and base == _without(orig, {"profile"})
                else:
                    ours = ((clone or prof in profiles) and base in queue_fields
                            and not _covered(k[len(qprefix):]) & back)
        elif k.startswith(f"FLEX_COUNTER_TABLE{sep}"):
            ours = cur is not None and _without(cur, _FLEX_OWN) == _without(orig, _FLEX_OWN)
        else:
            ours = True  # not a key alphad knows how to judge: keep the original
        (out.ours if ours else out.stale).append(k)
    return out


def reconcile(r: redis.Redis, journal: Journal, state_db: redis.Redis, sep: str = "|",
              why: str = "") -> Reconciled:
    """Classify the journal against CONFIG_DB now, drop (and log) the stale entries."""
    res = Reconciled()
    if not len(journal):
        return res
    keys = list(journal.entries)
    pipe = r.pipeline(transaction=False)
    for k in keys:
        pipe.hgetall(k)
    current = {k: (v or None) for k, v in zip(keys, pipe.execute(), strict=True)}
    pools = {k.split(sep, 1)[1] for k in r.scan_iter(match=f"BUFFER_POOL{sep}*", count=1000)}
    profiles = {k.split(sep, 1)[1]
                for k in r.scan_iter(match=f"BUFFER_PROFILE{sep}*", count=1000)}
    res = classify(journal.entries, current, pools, profiles, sep)
    journal.discard(res.stale + res.settled, state_db)  # settled: nothing to write back
    if res.stale:
        shown = ", ".join(sorted(res.stale)[:4]) + (" ..." if len(res.stale) > 4 else "")
        log.warning("CONFIG_DB was reconfigured%s: %d journal entries no longer match it "
                    "and are dropped, not written back (%s); %d kept", why, len(res.stale),
                    shown, len(journal))
    return res


def undone_tables(r: redis.Redis, journal: Journal,
                  sep: str = "|") -> dict[str, dict[str, dict[str, str]]]:
    """CONFIG_DB's discovery tables as they would be with every journaled original
    written back: the switch's own configuration, whatever alphad changed in it."""
    tables = {t: read_table(r, t, sep) for t in CONFIG_TABLES}
    for k, orig in journal.entries.items():
        table, _, suffix = k.partition(sep)
        if table not in tables:
            continue
        if orig is None:
            tables[table].pop(suffix, None)
        else:
            tables[table][suffix] = dict(orig)
    return tables
