"""The gNMI server of the virtual switch against the real virtual switch (redis-server,
virtual ASIC in its own process), exercised with pygnmi (a client no one here wrote)
and with raw gNMI requests: paths, encodings, status codes, Set, every Subscribe
mode, TLS and credentials. Fixtures here are shared by test_gnmi_interop.py and
test_gnmi_e2e.py."""

from __future__ import annotations

import datetime as dt
import ipaddress
import itertools
import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from alphad_vswitch.redisproc import RedisServer
from alphad_vswitch.switch import READY_KEY
from alphad_vswitch_gnmi.auth import Credentials, server_credentials
from alphad_vswitch_gnmi.server import GnmiServer, ServerOptions
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pygnmi.client import gNMIclient

from alphad.gnmi.proto import make_path, pb, pb_grpc
from alphad.sonic import db as sdb

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DB_JSON = ROOT / "configs" / "sonic" / "config_db.json"
TRAFFIC = """
greedy port=Ethernet0 queue=0,1 rate_gbps=100
onoff port=Ethernet4 queue=5 rate_gbps=60 on_ms=2 off_ms=8
"""
USER, PASSWORD = "alphad", "s3cret-pw"
# pygnmi's reader thread reports the CANCELLED status of a subscription we close
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
CFG_PATTERNS = ["BUFFER_*", "FLEX_COUNTER_TABLE*"]
APPL_PATTERNS = ["BUFFER_POOL_TABLE:*", "BUFFER_PROFILE_TABLE:*", "BUFFER_QUEUE_TABLE:*"]


# -- certificates ----------------------------------------------------------------------

def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _cert(subject: str, key: Any, issuer: tuple[str, Any] | None, *, ca: bool = False,
          days: tuple[int, int] = (-1, 30)) -> x509.Certificate:
    now = dt.datetime.now(dt.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    iname, ikey = (subject, key) if issuer is None else issuer
    b = (x509.CertificateBuilder().subject_name(name)
         .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, iname)]))
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(now + dt.timedelta(days=days[0]))
         .not_valid_after(now + dt.timedelta(days=days[1])))
    if ca:
        b = b.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
    else:
        b = b.add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
    return b.sign(ikey, hashes.SHA256())


class Pki:
    """A CA with a server and a client certificate, plus the bad cases: a server
    certificate of another CA, and an expired one."""

    def __init__(self, d: Path) -> None:
        d.mkdir(parents=True, exist_ok=True)
        self.dir = d
        ca_key, rogue_key = _key(), _key()
        ca = _cert("alphad test CA", ca_key, None, ca=True)
        rogue = _cert("rogue CA", rogue_key, None, ca=True)
        self.ca = self._write("ca.pem", ca)
        self._write("rogue-ca.pem", rogue)
        self.server_cert, self.server_key = self._pair("server", ("alphad test CA", ca_key))
        self.client_cert, self.client_key = self._pair("client", ("alphad test CA", ca_key))
        self.rogue_cert, self.rogue_key = self._pair("rogue-server", ("rogue CA", rogue_key))
        self.expired_cert, self.expired_key = self._pair("expired", ("alphad test CA", ca_key),
                                                         days=(-30, -1))

    def _write(self, name: str, cert: x509.Certificate) -> Path:
        p = self.dir / name
        p.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        return p

    def _pair(self, name: str, issuer: tuple[str, Any], days: tuple[int, int] = (-1, 30)
              ) -> tuple[Path, Path]:
        k = _key()
        c = self._write(f"{name}.pem", _cert(name, k, issuer, days=days))
        kp = self.dir / f"{name}.key"
        kp.write_bytes(k.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
        return c, kp


def write_users(path: Path, expires: str | None = None) -> Path:
    u: dict[str, Any] = {"password": PASSWORD}
    if expires:
        u["expires"] = expires
    path.write_text(json.dumps({"users": {USER: u}}))
    return path


# -- the switch ------------------------------------------------------------------------

def wait_for(cond: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            v = cond()
            if v:
                return v
        except (redis.RedisError, OSError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def stop_proc(p: subprocess.Popen[bytes], timeout: float = 15) -> int:
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return int(p.returncode)


class Switch:
    def __init__(self, server: RedisServer, proc: subprocess.Popen[bytes]) -> None:
        self.redis = server
        self.proc = proc
        self.layout = sdb.DEFAULT_LAYOUT.with_address(sdb.parse_address(server.address))

    def db(self, n: int) -> redis.Redis:
        return self.redis.client(n)

    def dump(self) -> tuple[str, str]:
        from alphad_vswitch import configdb

        return configdb.dump(self.db(4), CFG_PATTERNS), configdb.dump(self.db(0), APPL_PATTERNS)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return Pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def switch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Switch]:
    d = tmp_path_factory.mktemp("vswitch")
    srv = RedisServer(d / "redis")
    srv.start()
    (d / "traffic.scn").write_text(TRAFFIC)
    log = open(d / "vswitch.log", "wb")
    p = subprocess.Popen([sys.executable, "-m", "alphad_vswitch.cli", "--config-db",
                          str(CONFIG_DB_JSON), "--traffic", str(d / "traffic.scn"), "--redis",
                          srv.address], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: srv.client(6).hget(READY_KEY, "status") == "ready", 30, "vswitch ready")
        c4 = srv.client(4)
        for g in ("QUEUE", "QUEUE_WATERMARK", "BUFFER_POOL_WATERMARK"):  # fresh counters
            c4.hset(f"FLEX_COUNTER_TABLE|{g}", mapping={"POLL_INTERVAL": "100",
                                                        "FLEX_COUNTER_STATUS": "enable"})
        c2 = srv.client(2)
        oid = c2.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet0:0")
        wait_for(lambda: int(c2.hget(f"COUNTERS:{oid}", "SAI_QUEUE_STAT_BYTES") or 0) > 0, 10,
                 "queue counters")
        yield Switch(srv, p)
    finally:
        stop_proc(p)
        log.close()
        srv.stop()


ServerFactory = Callable[..., GnmiServer]


@pytest.fixture
def gnmi_server(switch: Switch, pki: Pki, tmp_path: Path) -> Iterator[ServerFactory]:
    """Start an in-process gNMI server on the switch: TLS (CA-signed certificate) and
    credentials by default; ``tls=False`` / ``users=None`` turn them off."""
    started: list[GnmiServer] = []

    def make(tls: bool | str = True, users: Path | str | None = "default",
             **opts: Any) -> GnmiServer:
        if users == "default":
            users = write_users(tmp_path / "users.json")
        creds = Credentials(users if isinstance(users, Path) else None)
        cert = {"rogue": (pki.rogue_cert, pki.rogue_key),
                "expired": (pki.expired_cert, pki.expired_key)}.get(
            str(tls), (pki.server_cert, pki.server_key))
        sc = server_credentials(cert[0], cert[1], pki.ca) if tls else None
        o = ServerOptions(**{"min_sample_interval": 0.1, "state_dir": tmp_path, **opts})
        s = GnmiServer(switch.layout, o, creds, sc).start()
        started.append(s)
        return s

    yield make
    for s in started:
        s.stop(0.2)


def pygnmi_client(port: int, pki: Pki, **kw: Any) -> gNMIclient:
    args: dict[str, Any] = dict(target=("127.0.0.1", port), username=USER, password=PASSWORD,
                                path_cert=str(pki.client_cert), path_key=str(pki.client_key),
                                path_root=str(pki.ca), gnmi_timeout=10)
    args.update(kw)
    return gNMIclient(**args)


def stub(port: int, pki: Pki) -> tuple[Any, list[tuple[str, str]], grpc.Channel]:
    ch = grpc.secure_channel(f"127.0.0.1:{port}",
                             grpc.ssl_channel_credentials(root_certificates=pki.ca.read_bytes()))
    return pb_grpc.gNMIStub(ch), [("username", USER), ("password", PASSWORD)], ch


def code_of(fn: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as ei:
        fn()
    e: Any = ei.value
    return e.code(), e.details()


# -- Capabilities and Get (pygnmi) -------------------------------------------------------

def test_capabilities_and_get_with_pygnmi(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server()
    with pygnmi_client(s.port, pki) as gc:
        caps = gc.capabilities()
        assert "json_ietf" in caps["supported_encodings"]
        assert {m["name"] for m in caps["supported_models"]} == {"openconfig-qos", "sonic-db"}
        r = gc.get(target="COUNTERS_DB", path=["COUNTERS_QUEUE_NAME_MAP"], encoding="json_ietf")
        qmap = r["notification"][0]["update"][0]["val"]
        assert qmap["Ethernet0:3"].startswith("oid:0x15")
        r = gc.get(target="COUNTERS_DB", path=["COUNTERS/Ethernet0/Queues"],
                   encoding="json_ietf")
        queues = r["notification"][0]["update"][0]["val"]
        assert {f"Ethernet0:{q}" for q in range(8)} <= set(queues)
        assert int(queues["Ethernet0:0"]["SAI_QUEUE_STAT_BYTES"]) > 0  # greedy traffic
        r = gc.get(target="CONFIG_DB", path=["BUFFER_PROFILE/egress_lossy_profile/dynamic_th"],
                   encoding="json_ietf")
        assert r["notification"][0]["update"][0]["val"] == "3"
        # a key of two parts as two elements (sonic-gnmi's TABLE/K1/K2)
        key = next(k.split("|", 1)[1] for k in s.service.native.r["CONFIG_DB"].scan_iter(
            match="BUFFER_QUEUE|*"))
        ports, rng = key.split("|")
        r = gc.get(target="CONFIG_DB", path=[f"BUFFER_QUEUE/{ports}/{rng}"], encoding="json_ietf")
        assert "profile" in r["notification"][0]["update"][0]["val"]
        r = gc.get(path=["/qos/interfaces/interface[interface-id=Ethernet0]/output/queues/"
                         "queue[name=Ethernet0:0]/state/transmit-octets"], encoding="json_ietf")
        assert r["notification"][0]["update"][0]["val"] > 0


def test_get_status_codes(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server()
    st, md, ch = stub(s.port, pki)

    def get(prefix: Any, *paths: Any, enc: int = pb.JSON_IETF) -> Any:
        return st.Get(pb.GetRequest(prefix=prefix, path=list(paths), encoding=enc), metadata=md,
                      timeout=5)

    c = pb.Path(target="COUNTERS_DB")
    assert code_of(lambda: get(c, make_path(["NO_SUCH_TABLE"])))[0] == grpc.StatusCode.NOT_FOUND
    assert code_of(lambda: get(c, make_path(["COUNTERS_QUEUE_NAME_MAP", "Ethernet999:1"])))[0] \
        == grpc.StatusCode.NOT_FOUND
    code, msg = code_of(lambda: get(pb.Path(target="NO_DB"), make_path(["X"])))
    assert code == grpc.StatusCode.NOT_FOUND and "unknown target" in msg
    code, msg = code_of(lambda: get(c, make_path([("COUNTERS", {"k": "v"})])))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "no keys" in msg
    code, _ = code_of(lambda: get(pb.Path(origin="cli"), make_path(["show"])))
    assert code == grpc.StatusCode.UNIMPLEMENTED
    code, msg = code_of(lambda: get(None, make_path(["interfaces", "interface"])))
    assert code == grpc.StatusCode.UNIMPLEMENTED and "not supported" in msg
    code, msg = code_of(lambda: get(None, make_path(["qos", "interfaces",
                                                     ("interface", {"name": "Ethernet0"})])))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "interface-id" in msg
    code, msg = code_of(lambda: get(c, make_path(["COUNTERS_QUEUE_NAME_MAP"]), enc=pb.PROTO))
    assert code == grpc.StatusCode.UNIMPLEMENTED and "PROTO" in msg
    # JSON (not IETF) is served too
    r = get(c, make_path(["COUNTERS_QUEUE_NAME_MAP"]), enc=pb.JSON)
    assert r.notification[0].update[0].val.WhichOneof("value") == "json_val"
    assert r.notification[0].prefix.target == "COUNTERS_DB"  # target reflected (gNMI 2.2.2.1)
    ch.close()


# -- Set --------------------------------------------------------------------------------

def test_set_dynamic_th_with_pygnmi(switch: Switch, gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server()
    c4, c0 = switch.db(4), switch.db(0)
    path = "sonic-db:CONFIG_DB/localhost/BUFFER_PROFILE/egress_lossy_profile/dynamic_th"
    with pygnmi_client(s.port, pki) as gc:
        r = gc.set(update=[(path, "1")], encoding="json_ietf")
        assert r["response"][0]["op"] == "UPDATE"
        assert c4.hget("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th") == "1"
        # the switch carries it on like buffermgrd: APPL_DB follows
        wait_for(lambda: c0.hget("BUFFER_PROFILE_TABLE:egress_lossy_profile", "dynamic_th")
                 == "1", 5, "APPL_DB dynamic_th 1")
        # a value outside sonic-buffer-profile.yang's range is refused, nothing written
        with pytest.raises(Exception, match=r"outside -8\.\.7"):
            gc.set(update=[(path, "9")], encoding="json_ietf")
        assert c4.hget("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th") == "1"
        gc.set(update=[(path, "3")], encoding="json_ietf")
    assert c4.hget("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th") == "3"


def test_set_is_one_transaction_and_refusals(switch: Switch, gnmi_server: ServerFactory,
                                             pki: Pki) -> None:
    s = gnmi_server()
    st, md, ch = stub(s.port, pki)
    c4 = switch.db(4)
    before = switch.dump()[0]

    def native(*elems: str) -> Any:
        return make_path(["CONFIG_DB", "localhost", *elems], origin="sonic-db")

    def val(v: Any) -> Any:
        return pb.TypedValue(json_ietf_val=json.dumps(v).encode())

    prof = {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "2"}
    # a new profile and a BUFFER_QUEUE entry using it, in one request
    st.Set(pb.SetRequest(replace=[
        pb.Update(path=native("BUFFER_PROFILE", "t_prof"), val=val(prof)),
        pb.Update(path=native("BUFFER_QUEUE", "Ethernet124|7"), val=val({"profile": "t_prof"}))]),
        metadata=md, timeout=5)
    assert c4.hgetall("BUFFER_PROFILE|t_prof") == prof
    # the second operation is invalid: the first must not be applied either
    code, msg = code_of(lambda: st.Set(pb.SetRequest(update=[
        pb.Update(path=native("BUFFER_PROFILE", "t_prof", "dynamic_th"), val=val("-1")),
        pb.Update(path=native("BUFFER_QUEUE", "Ethernet124|9-x"), val=val({"profile": "t_prof"}))
    ]), metadata=md, timeout=5))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "Ethernet124|9-x" in msg
    assert c4.hget("BUFFER_PROFILE|t_prof", "dynamic_th") == "2"
    # a profile still in use cannot be deleted alone
    code, msg = code_of(lambda: st.Set(pb.SetRequest(delete=[native("BUFFER_PROFILE", "t_prof")]),
                                       metadata=md, timeout=5))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "still referenced" in msg
    # only CONFIG_DB is writable; other encodings are not accepted
    code, _ = code_of(lambda: st.Set(pb.SetRequest(update=[pb.Update(
        path=make_path(["COUNTERS_DB", "localhost", "COUNTERS", "x", "y"], origin="sonic-db"),
        val=val("1"))]), metadata=md, timeout=5))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    code, _ = code_of(lambda: st.Set(pb.SetRequest(update=[pb.Update(
        path=native("BUFFER_PROFILE", "t_prof", "dynamic_th"),
        val=pb.TypedValue(bytes_val=b"\x01"))]), metadata=md, timeout=5))
    assert code == grpc.StatusCode.UNIMPLEMENTED
    st.Set(pb.SetRequest(delete=[native("BUFFER_QUEUE", "Ethernet124|7"),
                                 native("BUFFER_PROFILE", "t_prof")]), metadata=md, timeout=5)
    assert switch.dump()[0] == before
    ch.close()


def test_native_write_disabled(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server(native_write=False)
    st, md, ch = stub(s.port, pki)
    code, msg = code_of(lambda: st.Set(pb.SetRequest(update=[pb.Update(
        path=make_path(["CONFIG_DB", "localhost", "BUFFER_PROFILE", "egress_lossy_profile",
                        "dynamic_th"], origin="sonic-db"),
        val=pb.TypedValue(json_ietf_val=b'"2"'))]), metadata=md, timeout=5))
    assert code == grpc.StatusCode.UNIMPLEMENTED and "native write is disabled" in msg
    ch.close()


# -- Subscribe --------------------------------------------------------------------------

def test_subscribe_stream_sample_cadence(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server()
    with pygnmi_client(s.port, pki) as gc:
        sub = gc.subscribe_stream(subscribe={
            "subscription": [{"path": "COUNTERS/Ethernet0/Queues", "mode": "sample",
                              "sample_interval": 200_000_000}],
            "encoding": "json_ietf"}, target="COUNTERS_DB")
        first = sub.get_update(timeout=5)  # initial values up to sync_response
        assert first.get("sync_response")
        stamps, tx = [], []
        for _ in range(6):
            u = sub.get_update(timeout=5)
            stamps.append(u["update"]["timestamp"] / 1e9)
            tx.append(int(u["update"]["update"][0]["val"]["Ethernet0:0"]["SAI_QUEUE_STAT_BYTES"]))
        sub.close()
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert all(0.1 < g < 0.45 for g in gaps), gaps  # every 200 ms
    assert tx[-1] >= tx[0]


def test_subscribe_sample_interval_below_minimum(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server(min_sample_interval=1.0)
    st, md, ch = stub(s.port, pki)
    req = pb.SubscribeRequest(subscribe=pb.SubscriptionList(
        prefix=pb.Path(target="COUNTERS_DB"), mode=pb.SubscriptionList.STREAM,
        subscription=[pb.Subscription(path=make_path(["COUNTERS", "Ethernet*", "Queues"]),
                                      mode=pb.SAMPLE, sample_interval=100_000_000)]))
    code, msg = code_of(lambda: list(st.Subscribe(iter([req]), metadata=md, timeout=5)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "minimum of 1000 ms" in msg
    ch.close()


def test_subscribe_on_change_once_and_poll(switch: Switch, gnmi_server: ServerFactory,
                                           pki: Pki) -> None:
    s = gnmi_server()
    c4 = switch.db(4)
    with pygnmi_client(s.port, pki) as gc:
        once = gc.subscribe_once(subscribe={"subscription": [
            {"path": "/qos/interfaces/interface[interface-id=Ethernet4]/output/queues/"
                     "queue[name=Ethernet4:5]/state"}], "encoding": "json_ietf"})
        msgs = list(once)
        leaves = {u["path"].rsplit("/", 1)[1] for m in msgs if "update" in m
                  for u in m["update"]["update"]}
        assert {"transmit-octets", "transmit-pkts", "dropped-pkts", "max-queue-len"} <= leaves
        poll = gc.subscribe_poll(subscribe={"subscription": [
            {"path": "COUNTERS/Ethernet0/Queues"}], "encoding": "json_ietf"},
            target="COUNTERS_DB")
        a = poll.get_update(timeout=5)
        time.sleep(0.3)
        b = poll.get_update(timeout=5)  # sends a Poll and reads up to its sync_response
        ta = int(a["update"]["update"][0]["val"]["Ethernet0:0"]["SAI_QUEUE_STAT_BYTES"])
        tb = int(b["update"]["update"][0]["val"]["Ethernet0:0"]["SAI_QUEUE_STAT_BYTES"])
        assert tb >= ta
        poll.close()
        sub = gc.subscribe_stream(subscribe={"subscription": [
            {"path": "BUFFER_PROFILE/egress_lossy_profile/dynamic_th", "mode": "on_change"}],
            "encoding": "json_ietf"}, target="CONFIG_DB")
        assert sub.get_update(timeout=5)["update"]["update"][0]["val"] == "3"
        c4.hset("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th", "2")
        u = sub.get_update(timeout=5)
        assert u["update"]["update"][0]["val"] == "2"
        c4.hset("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th", "3")
        assert sub.get_update(timeout=5)["update"]["update"][0]["val"] == "3"
        sub.close()


# -- TLS and credentials ------------------------------------------------------------------

def test_credentials_are_required_and_checked(gnmi_server: ServerFactory, pki: Pki,
                                              tmp_path: Path) -> None:
    s = gnmi_server()
    st, _md, ch = stub(s.port, pki)
    req = pb.CapabilityRequest()
    code, msg = code_of(lambda: st.Capabilities(req, timeout=5))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "required" in msg
    code, msg = code_of(lambda: st.Capabilities(req, metadata=[("username", USER),
                                                               ("password", "nope")], timeout=5))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "wrong password" in msg
    ch.close()
    users = write_users(tmp_path / "old.json", expires="2001-01-01T00:00:00Z")
    s2 = gnmi_server(users=users)
    st, md, ch = stub(s2.port, pki)
    code, msg = code_of(lambda: st.Capabilities(req, metadata=md, timeout=5))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "expired" in msg
    ch.close()


def test_subscription_closed_when_credentials_expire(gnmi_server: ServerFactory, pki: Pki,
                                                     tmp_path: Path) -> None:
    users = write_users(tmp_path / "u.json")
    s = gnmi_server(users=users)
    st, md, ch = stub(s.port, pki)
    req = pb.SubscribeRequest(subscribe=pb.SubscriptionList(
        prefix=pb.Path(target="COUNTERS_DB"), mode=pb.SubscriptionList.STREAM,
        subscription=[pb.Subscription(path=make_path(["COUNTERS", "Ethernet0", "Queues"]),
                                      mode=pb.SAMPLE, sample_interval=100_000_000)]))
    call = st.Subscribe(iter([req]), metadata=md, timeout=20)
    it = iter(call)
    next(it)
    time.sleep(0.05)
    expiry = (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)).isoformat()
    write_users(users, expires=expiry)  # rotated on disk: re-read by the server
    t0 = time.monotonic()
    with pytest.raises(grpc.RpcError) as ei:
        for _ in it:
            pass
    assert ei.value.code() == grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]
    assert time.monotonic() - t0 < 5
    ch.close()


def test_tls_client_rejects_unknown_ca(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server(tls="rogue")
    with pytest.raises(Exception):  # noqa: B017 - pygnmi wraps the gRPC failure
        with pygnmi_client(s.port, pki, gnmi_timeout=2):
            pass


# -- bad input on both sides --------------------------------------------------------------

def test_set_with_bad_values_writes_nothing(switch: Switch, gnmi_server: ServerFactory,
                                            pki: Pki) -> None:
    s = gnmi_server()
    st, md, ch = stub(s.port, pki)
    before = switch.dump()[0]
    path = make_path(["CONFIG_DB", "localhost", "BUFFER_PROFILE", "egress_lossy_profile"],
                     origin="sonic-db")
    for val, code in ((pb.TypedValue(json_ietf_val=b"{not json"), "INVALID_ARGUMENT"),
                      (pb.TypedValue(json_ietf_val=b'"just a string"'), "INVALID_ARGUMENT"),
                      (pb.TypedValue(json_ietf_val=b'{"dynamic_th": [1, {"x": 2}]}'),
                       "INVALID_ARGUMENT"),
                      (pb.TypedValue(proto_bytes=b"\x00"), "UNIMPLEMENTED")):
        c, _ = code_of(lambda val=val: st.Set(pb.SetRequest(update=[pb.Update(path=path,
                                                                               val=val)]),
                                               metadata=md, timeout=5))
        assert c.name == code, (val, c)
    oc = make_path(["qos", "buffer-allocation-profiles", ("buffer-allocation-profile",
                                                          {"name": "Ethernet0"}), "queues",
                    ("queue", {"name": "Ethernet4:1"}), "config",
                    "dynamic-limit-scaling-factor"])
    c, msg = code_of(lambda: st.Set(pb.SetRequest(update=[pb.Update(
        path=oc, val=pb.TypedValue(int_val=1))]), metadata=md, timeout=5))
    assert c == grpc.StatusCode.NOT_FOUND and "not in the buffer allocation profile" in msg
    c, msg = code_of(lambda: st.Set(pb.SetRequest(update=[pb.Update(
        path=make_path(["qos", "interfaces", ("interface", {"interface-id": "Ethernet0"}),
                        "output", "queues", ("queue", {"name": "Ethernet0:1"}), "state",
                        "transmit-pkts"]), val=pb.TypedValue(uint_val=1))]),
        metadata=md, timeout=5))
    assert c == grpc.StatusCode.INVALID_ARGUMENT and "read-only" in msg
    assert switch.dump()[0] == before
    ch.close()


def test_queue_table_ignores_what_it_cannot_use() -> None:
    from alphad.gnmi.telemetry import QueueTable

    t = QueueTable(["Ethernet0:0", "Ethernet0:1"], "sonic")
    n = pb.Notification(timestamp=2_000_000_000, prefix=pb.Path(target="COUNTERS_DB"))
    doc = {"Ethernet0:0": {"SAI_QUEUE_STAT_BYTES": "100", "SAI_QUEUE_STAT_PACKETS": "x",
                           "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "-5"},
           "Ethernet0:1": "not an object", "Ethernet9:9": {"SAI_QUEUE_STAT_BYTES": "7"}}
    n.update.add(path=make_path(["COUNTERS", "Ethernet*", "Queues"]),
                 val=pb.TypedValue(json_ietf_val=json.dumps(doc).encode()))
    n.update.add(path=make_path(["COUNTERS", "Ethernet*", "Queues"]),
                 val=pb.TypedValue(json_ietf_val=b"{broken"))
    t.apply(n)
    assert t.values[0, 0] == 100 and not t.seen[0, 1] and not t.seen[0, 4]
    assert not t.seen[1].any() and t.bad_values == 3 and t.t == 2.0 and t.seq == 1
