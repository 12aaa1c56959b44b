"""Write-ahead journal of the CONFIG_DB entries alphad changes.

Before alphad changes a CONFIG_DB key for the first time it records the key's
original content (its fields, or absent) here. The record lives in two places:
a local JSON file (written atomically: temp file, fsync, rename, fsync of the
directory) and the STATE_DB hash ``ALPHAD_JOURNAL|<name>`` (field = CONFIG_DB
key, value = JSON of the original fields or ``null``). Restore writes every
recorded original back, which returns the switch to its exact configuration
whatever happened in between (crash, SIGKILL, Redis restart).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import redis

__all__ = ["Journal", "JournalError", "Original"]

log = logging.getLogger("alphad.sonic")

Original = dict[str, str] | None  # fields of a key, or None when the key did not exist

FORMAT_VERSION = 1


class JournalError(ValueError):
    """The journal file cannot be read or written (message names the file)."""


def _check_original(where: str, key: Any, v: Any) -> Original:
    if not isinstance(key, str):
        raise JournalError(f"{where}: key {key!r} is not a string")
    if v is None:
        return None
    if not isinstance(v, dict) or not all(isinstance(a, str) and isinstance(b, str)
                                          for a, b in v.items()):
        raise JournalError(f"{where}: entry {key!r} is not an object of strings or null")
    return dict(v)


class Journal:
    """Originals by CONFIG_DB key (``BUFFER_QUEUE|Ethernet0|3``...)."""

    def __init__(self, path: Path, state_key: str) -> None:
        self.path = path
        self.state_key = state_key  # STATE_DB hash, e.g. ALPHAD_JOURNAL|config_db
        self.entries: dict[str, Original] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    # -- file ----------------------------------------------------------------------
    def check_writable(self) -> None:
        """Fail early (at open) if the journal cannot be written where configured."""
        d = self.path.parent
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise JournalError(f"journal {self.path}: cannot create {d}: {e.strerror or e}") \
                from None
        if not os.access(d, os.W_OK | os.X_OK):
            raise JournalError(f"journal {self.path}: directory {d} is not writable")

    def read_file(self) -> dict[str, Original]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as e:
            raise JournalError(f"journal {self.path}: cannot read: {e.strerror or e}") from None
        try:
            raw = json.loads(text)
        except ValueError as e:
            raise JournalError(f"journal {self.path}: not valid JSON: {e}") from None
        if not isinstance(raw, dict) or not isinstance(raw.get("entries"), dict):
            raise JournalError(f"journal {self.path}: expected an object with 'entries'")
        where = f"journal {self.path}"
        return {k: _check_original(where, k, v) for k, v in raw["entries"].items()}

    def _write_file(self) -> None:
        d = self.path.parent
        try:
            d.mkdir(parents=True, exist_ok=True)
            body = json.dumps({"version": FORMAT_VERSION, "entries": self.entries},
                              sort_keys=True, indent=1)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=d)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(body)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            dfd = os.open(d, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError as e:
            raise JournalError(f"journal {self.path}: cannot write: {e.strerror or e}") from None

    # -- STATE_DB ------------------------------------------------------------------
    def read_state(self, state_db: redis.Redis) -> dict[str, Original]:
        raw = state_db.hgetall(self.state_key)
        out: dict[str, Original] = {}
        for k, v in raw.items():
            try:
                out[k] = _check_original(f"STATE_DB {self.state_key}", k, json.loads(v))
            except (ValueError, JournalError) as e:
                log.error("STATE_DB %s: entry %s unreadable (%s); ignored", self.state_key, k, e)
        return out

    def push_state(self, state_db: redis.Redis, keys: list[str] | None = None) -> None:
        """Write entries (all, or ``keys``) to STATE_DB."""
        items = self.entries if keys is None else {k: self.entries[k] for k in keys}
        if items:
            state_db.hset(self.state_key, mapping={k: json.dumps(v, sort_keys=True)
                                                   for k, v in items.items()})

    # -- operations ----------------------------------------------------------------
    def load(self, state_db: redis.Redis) -> None:
        """Merge the file and STATE_DB. On a conflict the file wins (it is written first)."""
        from_file = self.read_file()
        from_state = self.read_state(state_db)
        for k, v in from_state.items():
            if k in from_file and from_file[k] != v:
                log.warning("journal: %s differs between %s and STATE_DB; using the file",
                            k, self.path)
        self.entries = {**from_state, **from_file}

    def record(self, originals: dict[str, Original], state_db: redis.Redis) -> list[str]:
        """Add originals of keys not yet journaled: file first (durable), then STATE_DB.
        Returns the keys added."""
        new = [k for k in originals if k not in self.entries]
        if not new:
            return []
        for k in new:
            self.entries[k] = originals[k]
        try:
            self._write_file()
        except JournalError:
            for k in new:
                del self.entries[k]
            raise
        self.push_state(state_db, new)
        return new

    def discard(self, keys: list[str], state_db: redis.Redis) -> None:
        """Forget ``keys`` (stale: the switch was reconfigured since they were recorded):
        file first, then STATE_DB."""
        gone = [k for k in keys if k in self.entries]
        if not gone:
            return
        for k in gone:
            del self.entries[k]
        if self.entries:
            self._write_file()
        else:
            try:
                self.path.unlink(missing_ok=True)
            except OSError as e:
                raise JournalError(f"journal {self.path}: cannot remove: {e.strerror or e}") \
                    from None
        state_db.hdel(self.state_key, *gone)

    def resync_state(self, state_db: redis.Redis) -> int:
        """After a reconnection: put back into STATE_DB what it lost. Returns the count."""
        have = state_db.hkeys(self.state_key)
        missing = [k for k in self.entries if k not in set(have)]
        self.push_state(state_db, missing)
        return len(missing)

    def clear(self, state_db: redis.Redis) -> None:
        state_db.delete(self.state_key)
        self.entries = {}
        try:
            self.path.unlink(missing_ok=True)
        except OSError as e:
            raise JournalError(f"journal {self.path}: cannot remove: {e.strerror or e}") from None
