# ruff: noqa: F811 - fixtures imported from test_gnmi are parameters of the tests
"""openconfig's gnmi_cli (Go, github.com/openconfig/gnmi/cmd/gnmi_cli; built by `make
gnmi-cli`) against the virtual switch's gNMI server: capabilities, get, subscribe to
queue counters, set a dynamic_th, and its errors, over TLS with a CA and
username/password."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from test_gnmi import (  # noqa: F401 - fixtures
    PASSWORD,
    USER,
    Pki,
    ServerFactory,
    Switch,
    gnmi_server,
    pki,
    switch,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[2]
GNMI_CLI = Path(os.environ.get("ALPHAD_GNMI_CLI", ROOT / "build" / "gnmi" / "bin" / "gnmi_cli"))

pytestmark = pytest.mark.skipif(not GNMI_CLI.exists(),
                                reason=f"gnmi_cli not built ({GNMI_CLI}); run `make gnmi-cli`")


def cli(port: int, pki: Pki, *args: str, timeout: float = 20, creds: bool = True
        ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GNMI_USER": USER, "GNMI_PASS": PASSWORD}
    base = [str(GNMI_CLI), "-address", f"127.0.0.1:{port}", "-ca_crt", str(pki.ca),
            "-timeout", "5s"]
    if creds:
        base.append("-with_user_pass")
    return subprocess.run([*base, *args], capture_output=True, text=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL)


def ended_by_duration(r: subprocess.CompletedProcess[str]) -> bool:
    """gnmi_cli ends a -streaming_duration run by its context deadline (exit 1): seen by
    the client ("context deadline exceeded") or, when the server's status gets there
    first, by the server (DEADLINE_EXCEEDED, "Deadline Exceeded")."""
    return r.returncode == 0 or (r.returncode == 1 and (
        "context deadline exceeded" in r.stdout
        or "code = DeadlineExceeded desc = Deadline Exceeded" in r.stdout))


def test_capabilities_and_get(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server()
    r = cli(s.port, pki, "-capabilities")
    assert r.returncode == 0, r.stderr + r.stdout
    assert 'name: "openconfig-qos"' in r.stdout and "JSON_IETF" in r.stdout
    r = cli(s.port, pki, "-get", "-proto",
            'prefix:<target:"COUNTERS_DB"> path:<elem:<name:"COUNTERS_QUEUE_NAME_MAP"> '
            'elem:<name:"Ethernet0:3">> encoding:JSON_IETF')
    assert r.returncode == 0, r.stderr + r.stdout
    assert 'string_val: "oid:0x15' in r.stdout
    r = cli(s.port, pki, "-get", "-proto",
            'path:<elem:<name:"qos"> elem:<name:"interfaces"> elem:<name:"interface" '
            'key:<key:"interface-id" value:"Ethernet0">> elem:<name:"output"> '
            'elem:<name:"queues"> elem:<name:"queue" key:<key:"name" value:"Ethernet0:0">> '
            'elem:<name:"state"> elem:<name:"transmit-octets">> encoding:JSON_IETF')
    assert r.returncode == 0, r.stderr + r.stdout
    assert "uint_val:" in r.stdout


def test_subscribe_to_queue_counters(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server()
    # TARGET_DEFINED stream (gnmi_cli's query mode): counters are sampled
    r = cli(s.port, pki, "-target", "COUNTERS_DB", "-query", "COUNTERS/Ethernet0/Queues",
            "-query_type", "s", "-streaming_duration", "1500ms", "-display_type", "s")
    assert ended_by_duration(r), (r.stderr + r.stdout)[-800:]
    lines = [x for x in r.stdout.splitlines() if x.startswith("COUNTERS_DB/COUNTERS/Ethernet0")]
    assert len(lines) >= 5  # initial + samples at the server's 100 ms minimum
    assert "Ethernet0:0" in lines[0] and "SAI_QUEUE_STAT_BYTES" in lines[0]
    # SAMPLE with an explicit interval, from a SubscribeRequest text proto
    r = cli(s.port, pki, "-proto",
            'subscribe:<prefix:<target:"COUNTERS_DB"> mode:STREAM subscription:<path:<'
            'elem:<name:"COUNTERS"> elem:<name:"Ethernet*"> elem:<name:"Queues">> mode:SAMPLE '
            'sample_interval:250000000>>', "-streaming_duration", "1200ms", "-display_type", "s")
    assert ended_by_duration(r), (r.stderr + r.stdout)[-800:]
    n = sum(1 for x in r.stdout.splitlines() if "Ethernet124:7" in x)
    assert 2 <= n <= 9, n  # 1.2 s at 250 ms (plus the initial values), on a loaded machine
    r = cli(s.port, pki, "-query", "/qos/interfaces/interface[interface-id=Ethernet4]/output/"
            "queues/queue[name=Ethernet4:5]/state/transmit-pkts", "-query_type", "o",
            "-display_type", "s")
    assert r.returncode == 0, r.stderr + r.stdout
    assert "Ethernet4:5/state/transmit-pkts" in r.stdout


def test_set_dynamic_th(switch: Switch, gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server()
    c4 = switch.db(4)

    def set_th(v: str) -> subprocess.CompletedProcess[str]:
        return cli(s.port, pki, "-set", "-proto",
                   'update:<path:<origin:"sonic-db" elem:<name:"CONFIG_DB"> '
                   'elem:<name:"localhost"> elem:<name:"BUFFER_PROFILE"> '
                   'elem:<name:"egress_lossy_profile"> elem:<name:"dynamic_th">> '
                   f'val:<json_ietf_val:"\\"{v}\\"">>')

    r = set_th("0")
    assert r.returncode == 0, r.stderr + r.stdout
    assert "op: UPDATE" in r.stdout
    assert c4.hget("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th") == "0"
    wait_for(lambda: switch.db(0).hget("BUFFER_PROFILE_TABLE:egress_lossy_profile",
                                       "dynamic_th") == "0", 5, "APPL_DB follows")
    r = set_th("12")  # outside the YANG range: refused, nothing written
    assert r.returncode != 0 and "InvalidArgument" in r.stdout + r.stderr
    assert c4.hget("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th") == "0"
    assert set_th("3").returncode == 0
    assert c4.hget("BUFFER_PROFILE|egress_lossy_profile", "dynamic_th") == "3"


def test_errors_reach_the_client(gnmi_server: ServerFactory, pki: Pki) -> None:
    s = gnmi_server()
    r = cli(s.port, pki, "-get", "-proto",
            'prefix:<target:"COUNTERS_DB"> path:<elem:<name:"NO_SUCH_TABLE">>')
    assert r.returncode == 1 and "NotFound" in r.stdout + r.stderr
    r = cli(s.port, pki, "-capabilities", creds=False)
    assert r.returncode == 1 and "Unauthenticated" in r.stdout + r.stderr
    # a server certificate of another CA: gnmi_cli gives up at its dial timeout (the
    # handshake fails with BAD_CERTIFICATE on every attempt); no hang
    rogue = gnmi_server(tls="rogue")
    t0 = time.monotonic()
    r = cli(rogue.port, pki, "-capabilities", "-timeout", "2s")
    assert r.returncode == 1 and "could not create a gNMI client" in r.stdout
    assert time.monotonic() - t0 < 10
