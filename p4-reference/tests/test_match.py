"""P4 match semantics of the model's tables and schema validation of entries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from p4ref.entries import Exact, Lpm, TableEntry, Ternary
from p4ref.match import AmbiguousMatch, TableImage
from p4ref.schema import SchemaError, check_entry


def _cls(value: int, mask: int, queue: int, prio: int) -> TableEntry:
    return TableEntry("Ingress.classify", "Ingress.set_class",
                      {"diffserv": Ternary(value, mask)}, {"queue": queue, "unsched": 0}, prio)


def test_ternary_lowest_priority_value_wins_and_miss_runs_default() -> None:
    img = TableImage("Ingress.classify", [_cls(0x00, 0x00, 1, 10), _cls(0xB8, 0xFC, 5, 1)])
    assert img.apply(diffserv=0xB8)[2]["queue"] == 5          # both match, priority 1 wins
    assert img.apply(diffserv=0x01)[2]["queue"] == 1
    empty = TableImage("Ingress.classify")
    hit, action, params = empty.apply(diffserv=7)
    assert (hit, action, params) == (False, "Ingress.set_class", {"queue": 0, "unsched": 0})


def test_equal_priority_overlap_is_rejected() -> None:
    img = TableImage("Ingress.classify", [_cls(0x00, 0x00, 1, 3), _cls(0xB8, 0xFC, 5, 3)])
    with pytest.raises(AmbiguousMatch):
        img.apply(diffserv=0xB8)
    with pytest.raises(AmbiguousMatch):
        img.lookup_array(np.array([0xB8], dtype=np.uint64))
    assert img.apply(diffserv=0x10)[2]["queue"] == 1          # only one matches: fine


def test_lpm_longest_prefix_wins() -> None:
    def route(net: int, plen: int, port: int) -> TableEntry:
        return TableEntry("Ingress.fwd", "Ingress.set_port", {"dst_addr": Lpm(net, plen)},
                          {"port": port})
    img = TableImage("Ingress.fwd", [route(0x0A000000, 8, 1), route(0x0A000100, 24, 2)])
    assert img.apply(dst_addr=0x0A000105)[2]["port"] == 2
    assert img.apply(dst_addr=0x0A020105)[2]["port"] == 1
    assert img.apply(dst_addr=0x0B000000)[1] == "Ingress.drop_packet"


def test_multi_field_exact_key() -> None:
    e = TableEntry("Ingress.alpha_tbl", "Ingress.set_alpha",
                   {"aidx": Exact(3), "unsched": Exact(1)}, {"l": 1536})
    img = TableImage("Ingress.alpha_tbl", [e])
    assert img.apply(aidx=3, unsched=1)[2]["l"] == 1536
    assert img.apply(aidx=3, unsched=0)[0] is False


@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255)), min_size=1, max_size=12,
                unique_by=lambda t: t[0] & t[1]),
       st.lists(st.integers(0, 255), min_size=1, max_size=50))
def test_scalar_and_vector_lookup_agree(rows: list[tuple[int, int]], keys: list[int]) -> None:
    entries = [_cls(v & m, m, i % 32, i) for i, (v, m) in enumerate(rows)]
    img = TableImage("Ingress.classify", entries)
    vec = img.lookup_array(np.array(keys, dtype=np.uint64))
    for k, r in zip(keys, vec, strict=True):
        assert img.lookup(k) == r
        if r >= 0:
            v, m = rows[r]
            assert k & m == v & m


@pytest.mark.parametrize(("entry", "message"), [
    (TableEntry("Ingress.nope", "Ingress.set_l_np", {}, {}), "unknown table Ingress.nope"),
    (TableEntry("Ingress.log_np", "Ingress.set_l_np", {"n": Ternary(1, 1)}, {"l": 0}, 1),
     "key fields"),
    (TableEntry("Ingress.log_np", "Ingress.set_l_np", {"np": Ternary(1 << 16, 1)}, {"l": 0}, 1),
     "Ingress.log_np.np: value 65536 exceeds 16 bits"),
    (TableEntry("Ingress.log_np", "Ingress.set_l_np", {"np": Ternary(1, 1)}, {"l": 0}),
     "ternary entries need a priority"),
    (TableEntry("Ingress.log_np", "Ingress.set_l_np", {"np": Exact(1)}, {"l": 0}, 1),
     "expected a ternary match"),
    (TableEntry("Ingress.log_np", "Ingress.set_l_np", {"np": Ternary(1, 1)}, {"l": 1 << 16}, 1),
     "l=65536 exceeds 16 bits"),
    (TableEntry("Ingress.log_np", "Ingress.set_thr", {"np": Ternary(1, 1)}, {"l": 0}, 1),
     "has no action Ingress.set_thr"),
])
def test_schema_errors_name_the_field(entry: TableEntry, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        check_entry(entry)
