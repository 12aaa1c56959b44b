"""gNMI messages: paths, typed values, encodings, status codes.

Paths are built from ``PathElem`` lists (``elem``); the deprecated string
``element`` field is read when a client sends only that (openconfig's Go client
fills both). ``path_str`` renders a path the way gNMI path strings are written:
``origin:/a/b[k=v]/c``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2 as pb
from pygnmi.spec.v080 import gnmi_pb2_grpc as pb_grpc

__all__ = [
    "ENCODING_NAMES",
    "GNMI_VERSION",
    "Elem",
    "elems_of",
    "join",
    "make_path",
    "path_str",
    "pb",
    "pb_grpc",
    "status_name",
    "typed_to_python",
    "typed_value",
]

GNMI_VERSION = "0.8.0"  # gnmi.proto of pygnmi.spec.v080 (gnmi.proto option gnmi_service 0.8.0)

ENCODING_NAMES = {v: k for k, v in pb.Encoding.items()}  # 0 -> "JSON", 4 -> "JSON_IETF"

Elem = tuple[str, dict[str, str]]


def make_path(elems: Iterable[str | Elem] = (), origin: str = "", target: str = "") -> Any:
    """A ``gnmi.Path``; each element is a name or ``(name, {key: value})``."""
    p = pb.Path(origin=origin, target=target)
    for e in elems:
        if isinstance(e, str):
            p.elem.add(name=e)
        else:
            p.elem.add(name=e[0], key=dict(e[1]))
    return p


def elems_of(p: Any) -> list[Elem]:
    """(name, keys) of every element; the deprecated ``element`` strings when ``elem``
    is empty."""
    if len(p.elem):
        return [(e.name, dict(e.key)) for e in p.elem]
    return [(s, {}) for s in p.element]


def join(prefix: Any | None, path: Any) -> tuple[str, str, list[Elem]]:
    """(origin, target, elements) of prefix + path (gNMI 2.4.1)."""
    if prefix is None:
        return path.origin, path.target, elems_of(path)
    origin = prefix.origin or path.origin
    return origin, prefix.target, elems_of(prefix) + elems_of(path)


def _esc(s: str, chars: str) -> str:
    for c in "\\" + chars:
        s = s.replace(c, "\\" + c)
    return s


def path_str(p: Any, prefix: Any | None = None) -> str:
    origin, target, elems = join(prefix, p)
    parts = []
    for name, keys in elems:
        parts.append(_esc(name, "/[") + "".join(
            f"[{k}={_esc(v, ']')}]" for k, v in sorted(keys.items())))
    s = "/" + "/".join(parts)
    if origin:
        s = f"{origin}:{s}"
    if target:
        s = f"{s} (target {target})"
    return s


def typed_value(v: Any, encoding: int = pb.JSON_IETF) -> Any:
    """A TypedValue: str -> string_val, bool, int (signed/unsigned), float, and
    dict/list -> JSON (``json_ietf_val`` or ``json_val`` as ``encoding`` says)."""
    if isinstance(v, bool):
        return pb.TypedValue(bool_val=v)
    if isinstance(v, int):
        return pb.TypedValue(uint_val=v) if v >= 0 else pb.TypedValue(int_val=v)
    if isinstance(v, float):
        return pb.TypedValue(double_val=v)
    if isinstance(v, str):
        return pb.TypedValue(string_val=v)
    body = json.dumps(v, sort_keys=True, separators=(",", ":")).encode()
    if encoding == pb.JSON:
        return pb.TypedValue(json_val=body)
    return pb.TypedValue(json_ietf_val=body)


def typed_to_python(tv: Any) -> Any:
    """The Python value of a TypedValue (JSON is decoded). ValueError if the JSON does
    not parse or the value is empty."""
    kind = tv.WhichOneof("value")
    if kind is None:
        raise ValueError("empty TypedValue")
    if kind in ("json_val", "json_ietf_val"):
        raw = getattr(tv, kind)
        try:
            return json.loads(raw)
        except ValueError as e:
            raise ValueError(f"{kind} is not valid JSON: {e}") from None
    if kind == "decimal_val":
        d = tv.decimal_val
        return d.digits / (10 ** d.precision)
    if kind == "leaflist_val":
        return [typed_to_python(e) for e in tv.leaflist_val.element]
    if kind in ("any_val",):
        raise ValueError("any_val is not supported")
    return getattr(tv, kind)


def status_name(code: grpc.StatusCode | None) -> str:
    return code.name if code is not None else "UNKNOWN"


def as_mapping(v: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise ValueError(f"{what}: expected a JSON object, got {type(v).__name__}")
    return v
