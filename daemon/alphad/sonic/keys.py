"""SONiC key and value syntax shared by the backend and the virtual switch.

- ``BUFFER_QUEUE|Ethernet0,Ethernet4|0-2``: a comma list of ports and a queue
  index or range (YANG sonic-buffer-queue: ``(1[0-5]|[0-9])(-(1[0-5]|[0-9]))?``).
- profile references: ``egress_lossy_profile`` (current releases) or the older
  ``[BUFFER_PROFILE|egress_lossy_profile]``.
- ``dynamic_th``: an integer n, alpha = 2^n (YANG range -8..7).
"""

from __future__ import annotations

import re

__all__ = [
    "DYNAMIC_TH_MAX",
    "DYNAMIC_TH_MIN",
    "SonicSyntaxError",
    "format_profile_ref",
    "format_queue_range",
    "natural_key",
    "parse_dynamic_th",
    "parse_ports",
    "parse_profile_ref",
    "parse_queue_range",
    "queue_runs",
]

DYNAMIC_TH_MIN = -8  # sonic-buffer-profile.yang: dynamic_th range "-8..7"
DYNAMIC_TH_MAX = 7
QUEUE_INDEX_MAX = 15  # sonic-buffer-queue.yang qindex pattern

_RANGE_RE = re.compile(r"^(\d+)(?:-(\d+))?$")
_REF_RE = re.compile(r"^\[BUFFER_PROFILE(?:_TABLE)?[|:]([^\]]+)\]$")
_NUM_RE = re.compile(r"(\d+)")


class SonicSyntaxError(ValueError):
    """A key or value does not follow SONiC's syntax."""


def natural_key(name: str) -> tuple[object, ...]:
    """Sort key putting Ethernet4 before Ethernet12."""
    return tuple(int(p) if p.isdigit() else p for p in _NUM_RE.split(name))


def parse_ports(text: str) -> list[str]:
    ports = [p.strip() for p in text.split(",")]
    if not text or any(not p for p in ports):
        raise SonicSyntaxError(f"bad port list {text!r}")
    if len(set(ports)) != len(ports):
        raise SonicSyntaxError(f"port list {text!r} names a port twice")
    return ports


def parse_queue_range(text: str) -> list[int]:
    m = _RANGE_RE.match(text.strip())
    if not m:
        raise SonicSyntaxError(f"bad queue index or range {text!r} (expected e.g. 3 or 0-2)")
    a = int(m.group(1))
    b = int(m.group(2)) if m.group(2) is not None else a
    if b < a:
        raise SonicSyntaxError(f"bad queue range {text!r} (end before start)")
    if b > QUEUE_INDEX_MAX:
        raise SonicSyntaxError(f"queue range {text!r} beyond queue {QUEUE_INDEX_MAX}")
    return list(range(a, b + 1))


def format_queue_range(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}-{b}"


def queue_runs(queues: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs of sorted queue indices: [0,1,2,5] -> [(0,2),(5,5)]."""
    runs: list[tuple[int, int]] = []
    for q in sorted(queues):
        if runs and q == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], q)
        else:
            runs.append((q, q))
    return runs


def parse_profile_ref(value: str) -> tuple[str, bool]:
    """(profile name, bracketed) of a BUFFER_QUEUE/BUFFER_PG ``profile`` value."""
    v = value.strip()
    m = _REF_RE.match(v)
    if m:
        return m.group(1), True
    if not v or "[" in v or "]" in v:
        raise SonicSyntaxError(f"bad profile reference {value!r}")
    return v, False


def format_profile_ref(name: str, bracketed: bool) -> str:
    return f"[BUFFER_PROFILE|{name}]" if bracketed else name


def parse_dynamic_th(value: str) -> int:
    try:
        n = int(value.strip())
    except (AttributeError, ValueError):
        raise SonicSyntaxError(f"dynamic_th {value!r} is not an integer") from None
    if not DYNAMIC_TH_MIN <= n <= DYNAMIC_TH_MAX:
        raise SonicSyntaxError(f"dynamic_th {n} outside {DYNAMIC_TH_MIN}..{DYNAMIC_TH_MAX}")
    return n
