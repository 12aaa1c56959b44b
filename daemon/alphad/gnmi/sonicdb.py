"""SONiC over gNMI: table reads (target = database), CONFIG_DB writes with origin
``sonic-db`` (``CONFIG_DB/localhost/<TABLE>/<KEY>[/<FIELD>]``, JSON_IETF values),
the OpenConfig scaling-factor leaf, and a file journal of original entries.

A CONFIG_DB key is written as one path element (``BUFFER_QUEUE/Ethernet0|3``),
as SONiC's generic config updater addresses it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc

from alphad.gnmi.channel import Connection, GnmiCallError
from alphad.gnmi.proto import make_path, pb, typed_to_python
from alphad.sonic.journal import Journal

__all__ = [
    "OC_PREFIX",
    "FileJournal",
    "SetBuilder",
    "get_value",
    "oc_scaling_elems",
    "oc_scaling_path",
    "read_table",
]

OC_PREFIX = "OC|"  # journal keys of OpenConfig leaves: OC|Ethernet0:3
NAMESPACE = "localhost"
SCALING = "dynamic-limit-scaling-factor"


class FileJournal(Journal):
    """alphad's write-ahead journal kept in a local file only (written atomically); a
    gNMI switch offers no place of ours in its databases."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "")

    def read_state(self, state_db: Any) -> dict[str, Any]:
        return {}

    def push_state(self, state_db: Any, keys: list[str] | None = None) -> None:
        return None

    def resync_state(self, state_db: Any) -> int:
        return 0

    def clear(self, state_db: Any = None) -> None:
        self.entries = {}
        try:
            self.path.unlink(missing_ok=True)
        except OSError as e:
            from alphad.sonic.journal import JournalError

            raise JournalError(f"journal {self.path}: cannot remove: {e.strerror or e}") from None


def get_value(conn: Connection, target: str, elems: list[Any], origin: str = "") -> Any | None:
    """The decoded value at a path, None when the switch says NOT_FOUND."""
    req = pb.GetRequest(prefix=pb.Path(target=target, origin=origin), path=[make_path(elems)],
                        encoding=pb.JSON_IETF)
    try:
        resp = conn.call("Get", req)
    except GnmiCallError as e:
        if e.code == grpc.StatusCode.NOT_FOUND:
            return None
        raise
    for n in resp.notification:
        for u in n.update:
            return typed_to_python(u.val)
    return None


def read_table(conn: Connection, db: str, table: str) -> dict[str, dict[str, str]]:
    """Every entry of a table: key -> fields ({} when the table is empty)."""
    v = get_value(conn, db, [table])
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise GnmiCallError(f"gNMI Get {db}/{table}: expected a JSON object, got "
                            f"{type(v).__name__}")
    return {str(k): {str(f): str(x) for f, x in fs.items()} for k, fs in v.items()
            if isinstance(fs, dict)}


def native_path(table: str, key: str | None = None, field: str | None = None) -> Any:
    elems = ["CONFIG_DB", NAMESPACE, table] + [e for e in (key, field) if e is not None]
    return make_path(elems, origin="sonic-db")


def oc_scaling_elems(port: str, queue: int) -> list[Any]:
    return ["qos", "buffer-allocation-profiles", ("buffer-allocation-profile", {"name": port}),
            "queues", ("queue", {"name": f"{port}:{queue}"}), "config", SCALING]


def oc_scaling_path(port: str, queue: int) -> Any:
    return make_path(oc_scaling_elems(port, queue))


def _json(v: Any) -> Any:
    return pb.TypedValue(json_ietf_val=json.dumps(v, sort_keys=True).encode())


class SetBuilder:
    """The operations of one SetRequest (applied by the switch as one transaction)."""

    def __init__(self) -> None:
        self.req = pb.SetRequest()

    def __len__(self) -> int:
        return len(self.req.delete) + len(self.req.replace) + len(self.req.update)

    def delete_key(self, full_key: str, sep: str = "|") -> None:
        table, _, key = full_key.partition(sep)
        self.req.delete.append(native_path(table, key))

    def replace_key(self, full_key: str, fields: dict[str, str], sep: str = "|") -> None:
        table, _, key = full_key.partition(sep)
        self.req.replace.add(path=native_path(table, key), val=_json(fields))

    def update_key(self, full_key: str, fields: dict[str, str], sep: str = "|") -> None:
        table, _, key = full_key.partition(sep)
        self.req.update.add(path=native_path(table, key), val=_json(fields))

    def update_field(self, full_key: str, field: str, value: str, sep: str = "|") -> None:
        table, _, key = full_key.partition(sep)
        self.req.update.add(path=native_path(table, key, field), val=_json(value))

    def oc_set(self, port: str, queue: int, k: int) -> None:
        self.req.update.add(path=oc_scaling_path(port, queue), val=_json(k))

    def oc_delete(self, port: str, queue: int) -> None:
        self.req.delete.append(oc_scaling_path(port, queue))
