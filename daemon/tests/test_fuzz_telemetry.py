"""Telemetry decoding fuzzed with hypothesis, backend by backend: counter values that
are empty, negative, non-numeric, fractional, huge, with spaces or exotic digits.

- sonic: the parser of COUNTERS_DB values, then whole samples read from a real
  redis-server by the real backend (both readers) and fed to the daemon's loop;
- gnmi: telemetry notifications (SONiC JSON and OpenConfig typed values) applied to
  the backend's queue table.

Always a value, a logged skip or a clear error; never another exception, and never a
write outside [2^kmin, 2^kmax] or, while the fail-safe holds, off the baseline."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from alphad_vswitch import configdb, redisproc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphad.backends.base import TransientBackendError
from alphad.backends.sonic import SonicBackend
from alphad.config import parse_config
from alphad.gnmi.proto import pb
from alphad.gnmi.telemetry import OC_LEAVES, SONIC_FIELDS, QueueTable
from alphad.loop import Daemon
from alphad.sonic.counters import (
    QUEUE_FIELDS,
    MisalignedCounters,
    NonNumericCounter,
    parse_values,
)

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DB_JSON = ROOT / "configs" / "sonic" / "config_db.json"
FUZZ = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# What a broken or hostile counter source may hold
odd = st.sampled_from(["", " ", "-1", "-0", "+5", "1e5", "1.5", "nan", "inf", "-inf", "0x1f",
                       "18446744073709551615", "18446744073709551616", "9" * 30, "١٢",
                       "²", "12 34", "null", "true", "[1]", "{}", "\x00", "\n7"])
counter_text = (st.integers(0, 2**64 - 1).map(str) | st.integers(-2**70, 2**70).map(str)
                | odd | st.text(max_size=6))


@given(tokens=st.lists(counter_text, min_size=1, max_size=12))
@settings(max_examples=400, deadline=None, derandomize=True)
def test_counters_db_value_parser(tokens: list[str]) -> None:
    text = " ".join(tokens)
    try:
        v = parse_values(text, len(tokens))
    except NonNumericCounter as e:
        v = e.values
        assert 0 < e.bad <= len(tokens)
    except MisalignedCounters:
        assert any(t == "" or " " in t or not t.isascii() or t != t.strip() for t in tokens) \
            or len(text.split(" ")) != len(tokens)
        return
    assert v.dtype == np.uint64 and len(v) == len(tokens)
    for tok, x in zip(tokens, v.tolist(), strict=True):
        if tok.isascii() and tok.isdigit() and int(tok) < 2**64:
            assert x == int(tok)  # a good value is never altered
        elif tok.strip().isascii() and tok.strip().isdigit() and int(tok.strip()) < 2**64:
            assert x in (0, int(tok.strip()))  # around a number: tabs, newlines
        else:
            assert x == 0  # a bad one reads as 0 (and is counted)


# -- sonic: real redis-server, real backend, the daemon's loop ------------------------------

@pytest.fixture(scope="module")
def sonic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, SonicBackend, Any]]:
    tmp = tmp_path_factory.mktemp("fuzz-sonic")
    srv = redisproc.RedisServer(tmp / "redis").start()
    c4, c2 = srv.client(4), srv.client(2)
    cfg_db = configdb.load_config_db(CONFIG_DB_JSON)
    configdb.write_config_db(c4, cfg_db)
    ports = sorted(cfg_db["PORT"], key=lambda p: int(p[8:]))
    c2.hset("COUNTERS_QUEUE_NAME_MAP", mapping={
        f"{p}:{q}": f"oid:0x15{i:06x}{q:08x}" for i, p in enumerate(ports) for q in range(8)})
    text = (f"interval: 20ms\nscheme: abm\n"
            "priorities:\n  - {name: bulk, queues: [0, 1, 2, 5, 6], alpha: 0.5, "
            "allow_lower: true}\n"
            "quantize: {kmin: -6, kmax: 2}\n"
            f"backend:\n  type: sonic\n  redis: '{srv.address}'\n"
            f"  database_config: {tmp}/absent.json\n  journal: {tmp}/journal.json\n"
            "metrics: {enabled: false}\n")
    cfg = parse_config(text, "fuzz", tmp)
    be = SonicBackend(cfg.backend)
    try:
        yield srv, be, cfg
    finally:
        be.restore()
        be.close()
        srv.stop()


@given(values=st.lists(st.tuples(st.integers(0, 7), st.sampled_from(QUEUE_FIELDS),
                                 counter_text), min_size=1, max_size=10),
       reader=st.sampled_from(["lua", "pipeline"]))
@FUZZ
def test_sonic_samples_and_cycles(sonic: tuple[Any, SonicBackend, Any],
                                  values: list[tuple[int, str, str]], reader: str,
                                  caplog: pytest.LogCaptureFixture) -> None:
    srv, be, cfg = sonic
    be.reader.method = reader
    c2, c4 = srv.client(2), srv.client(4)
    oids = [q.oid for q in be.disc.queues]
    good = {f: "1000" for f in QUEUE_FIELDS}
    pipe = c2.pipeline()
    for oid in oids[:8]:
        pipe.hset(f"COUNTERS:{oid}", mapping=good)
    for i, field, v in values:
        pipe.hset(f"COUNTERS:{oids[i]}", field, v)
    pipe.execute()
    with caplog.at_level(logging.WARNING):
        try:
            s = be.sample()
        except TransientBackendError:
            s = None
        if s is not None:
            for a in (s.tx_bytes, s.tx_packets, s.drop_bytes, s.drop_packets):
                assert a.dtype == np.uint64 and len(a) == be.topo.n
            assert np.isfinite(s.watermark).all() and (s.watermark >= 0).all()
            # queues the example did not touch keep their exact values
            touched = {i for i, _, _ in values}
            for j in set(range(8)) - touched:
                assert s.tx_bytes[j] == 1000 and s.watermark[j] == 1000.0
        d = Daemon(cfg, be)
        for _ in range(3):
            d.cycle()
            ks = [int(c4.hget(k, "dynamic_th"))
                  for k in c4.scan_iter(match="BUFFER_PROFILE|alphad_*")]
            if d.failsafe:
                assert set(ks) <= {3}  # the baseline: egress_lossy_profile's dynamic_th
            else:  # the scheme's range, or the baseline an earlier fail-safe wrote
                assert all(-6 <= k <= 2 or k == 3 for k in ks)
    assert "Traceback" not in caplog.text


# -- gnmi: notifications into the backend's queue table --------------------------------------

NAMES = [f"Ethernet{4 * p}:{q}" for p in range(2) for q in range(4)]
json_value = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats()
              | counter_text | st.lists(st.integers(), max_size=2)
              | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def _check_table(t: QueueTable) -> None:
    assert t.values.dtype == np.uint64 and t.values.shape == (len(NAMES), 5)


@given(doc=st.dictionaries(st.sampled_from([*NAMES, "Ethernet99:1", ""]),
                           st.dictionaries(st.sampled_from([*SONIC_FIELDS, "x"]), json_value,
                                           max_size=5) | json_value, max_size=5),
       as_ietf=st.booleans(), ts=st.integers(-2**63, 2**63 - 1))
@settings(max_examples=300, deadline=None, derandomize=True)
def test_gnmi_sonic_notifications(doc: Any, as_ietf: bool, ts: int) -> None:
    t = QueueTable(NAMES, "sonic", pool_oid="oid:0x18")
    body = json.dumps(doc).encode()
    tv = pb.TypedValue(json_ietf_val=body) if as_ietf else pb.TypedValue(json_val=body)
    path = pb.Path(elem=[pb.PathElem(name="COUNTERS"), pb.PathElem(name="Ethernet*"),
                         pb.PathElem(name="Queues")])
    t.apply(pb.Notification(timestamp=ts, update=[pb.Update(path=path, val=tv)]))
    _check_table(t)
    for q, fields in doc.items():
        if q in NAMES and isinstance(fields, dict):
            for c, f in enumerate(SONIC_FIELDS):
                v = fields.get(f)
                if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**64:
                    assert t.values[NAMES.index(q), c] == v
    # malformed JSON is a counted bad value
    t.apply(pb.Notification(update=[pb.Update(path=path, val=pb.TypedValue(
        json_ietf_val=body[:-1] + b"\xff"))]))
    assert t.bad_values >= 1


typed = st.one_of(
    st.integers(0, 2**64 - 1).map(lambda v: pb.TypedValue(uint_val=v)),
    st.integers(-2**63, 2**63 - 1).map(lambda v: pb.TypedValue(int_val=v)),
    st.floats(width=64).map(lambda v: pb.TypedValue(double_val=v)),
    counter_text.map(lambda v: pb.TypedValue(string_val=v)),
    st.booleans().map(lambda v: pb.TypedValue(bool_val=v)),
    st.binary(max_size=8).map(lambda v: pb.TypedValue(json_val=v)),
    st.tuples(st.integers(-2**63, 2**63 - 1), st.integers(0, 40)).map(
        lambda d: pb.TypedValue(decimal_val=pb.Decimal64(digits=d[0], precision=d[1]))),
    st.just(pb.TypedValue()),
)


@given(updates=st.lists(st.tuples(st.sampled_from([*NAMES, "nope"]),
                                  st.sampled_from([*OC_LEAVES, "other"]), typed,
                                  st.booleans()), max_size=8))
@settings(max_examples=300, deadline=None, derandomize=True)
def test_gnmi_openconfig_notifications(updates: list[tuple[str, str, Any, bool]]) -> None:
    t = QueueTable(NAMES, "openconfig")
    ups = []
    for name, leaf, val, with_state in updates:
        port = name.split(":")[0]
        elems = [pb.PathElem(name="qos"), pb.PathElem(name="interfaces"),
                 pb.PathElem(name="interface", key={"interface-id": port}),
                 pb.PathElem(name="output"), pb.PathElem(name="queues"),
                 pb.PathElem(name="queue", key={"name": name})]
        if with_state:
            elems.append(pb.PathElem(name="state"))
        elems.append(pb.PathElem(name=leaf))
        ups.append(pb.Update(path=pb.Path(elem=elems), val=val))
    t.apply(pb.Notification(update=ups))
    _check_table(t)


# -- sim: records of the ns-3 co-simulation ----------------------------------------------------

row_value = (st.integers(0, 2**64 - 1).map(str) | st.floats().map(repr) | odd
             | st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=5))


@given(rows=st.lists(st.lists(row_value, min_size=3, max_size=5), min_size=7, max_size=7),
       head=st.lists(row_value, min_size=0, max_size=4), cut=st.integers(0, 12))
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_sim_records(tmp_path_factory: pytest.TempPathFactory, rows: list[list[str]],
                     head: list[str], cut: int) -> None:
    from alphad.backends.base import FatalBackendError
    from alphad.backends.sim import CosimSession

    names = ("wm", "len", "txb", "txp", "drb", "drp", "alpha")
    lines = ["HELLO alphad-ns3-cosim 1", "SWITCH leaf0 2 2 100000 1e10 1e10", "READY 1 80000",
             " ".join(["SNAP", "1", *head, "leaf0", "10", "20"][:6])]
    lines += [" ".join([n, *r]) for n, r in zip(names, rows, strict=True)]
    lines += ["TICK 1"]
    lines = lines[:len(lines) - cut % 3]  # sometimes the peer stops early
    rec = tmp_path_factory.mktemp("sim") / "records"
    rec.write_text("\n".join(lines) + "\n")
    try:
        s = CosimSession(["/bin/cat", str(rec)])
    except FatalBackendError as e:
        assert str(e)
        return
    try:
        samples = s.read_interval()
    except FatalBackendError as e:
        assert str(e)  # a clear error, never a traceback
    else:
        sm = samples["leaf0"]
        assert sm.tx_bytes.dtype == np.uint64 and len(sm.tx_bytes) == 4
        assert sm.watermark.dtype == np.float64
    finally:
        s.close(timeout=2.0)
