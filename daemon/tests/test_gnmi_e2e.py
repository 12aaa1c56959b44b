
"""The alphad ``gnmi`` backend driving the virtual switch through its gNMI server: the
control loop changes alphas, restore brings CONFIG_DB and APPL_DB back byte-identical
(also from a fresh process after a SIGKILL), OpenConfig telemetry and actuation, and
every failure the issue names: a stalled stream, a server that closes the stream,
expired credentials, certificates that do not verify, a refused Set."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_gnmi import (
    PASSWORD,
    USER,
    Pki,
    ServerFactory,
    Switch,
    gnmi_server,
    pki,
    stop_proc,
    switch,
    wait_for,
    write_users,
)

from alphad.backends import BackendError, FatalBackendError, TransientBackendError, open_backend
from alphad.config import ConfigError, load_config, parse_config
from alphad.gnmi.backend import GnmiBackend
from alphad.loop import Daemon

_ = (gnmi_server, pki, switch)  # fixtures
ROOT = Path(__file__).resolve().parents[2]


def backend_yaml(port: int, pki: Pki | None, tmp: Path, interval: str = "100ms",
                 **extra: Any) -> str:
    pw = tmp / "password"
    pw.write_text(PASSWORD + "\n")
    b: dict[str, Any] = {"type": "gnmi", "address": f"127.0.0.1:{port}", "username": USER,
                         "password_file": str(pw), "sample_interval": interval,
                         "journal": str(tmp / "state" / "journal.json"), "timeout": "3s",
                         "set_timeout": "3s", "backoff_initial": "100ms",
                         "backoff_max": "500ms",
                         # 1 s of silence at 100 ms: a loaded 2-core CI machine can pause
                         # the switch for a few hundred ms; the stall tests ask for 3
                         "stall_intervals": 10}
    if pki is None:
        b["insecure"] = True
    else:
        b["tls"] = {"ca": str(pki.ca)}
    b.update(extra)
    lines = "\n".join(f"  {k}: {v}" if not isinstance(v, dict) else
                      f"  {k}: {{{', '.join(f'{a}: {x}' for a, x in v.items())}}}"
                      for k, v in b.items())
    return (f"interval: {interval}\nscheme: abm\n"
            "priorities:\n  - {name: bulk, queues: [0, 1, 2], alpha: 0.5, allow_lower: true}\n"
            "  - {name: query, queues: [5, 6], alpha: 0.5, allow_lower: true}\n"
            "quantize: {kmin: -7, kmax: 3}\n"
            f"backend:\n{lines}\nmetrics: {{enabled: false}}\n")


def open_gnmi(port: int, pki: Pki | None, tmp: Path, **extra: Any) -> GnmiBackend:
    cfg = parse_config(backend_yaml(port, pki, tmp, **extra))
    be = open_backend(cfg.backend)
    assert isinstance(be, GnmiBackend)
    return be


def clones(switch: Switch) -> dict[str, str]:
    c4 = switch.db(4)
    return {k.split("|", 1)[1]: c4.hget(k, "dynamic_th") or ""
            for k in c4.scan_iter(match="BUFFER_PROFILE|alphad_*")}


def test_control_loop_and_exact_restore(switch: Switch, gnmi_server: ServerFactory, pki: Pki,
                                        tmp_path: Path) -> None:
    s = gnmi_server()
    before = switch.dump()
    cfg = parse_config(backend_yaml(s.port, pki, tmp_path))
    be = open_backend(cfg.backend)
    seen: dict[str, Any] = {}

    def on_cycle(d: Daemon) -> None:
        if d.stats.intervals == 15:
            time.sleep(0.15)  # let the switch apply the latest writes
            seen["clones"] = clones(switch)
            c0 = switch.db(0)
            seen["appl"] = {k.split(":", 1)[1]: c0.hget(k, "dynamic_th")
                            for k in c0.scan_iter(match="BUFFER_PROFILE_TABLE:alphad_*")}
            seen["wm"] = float(d.snapshot.sample.watermark.max()) if d.snapshot else 0.0

    d = Daemon(cfg, be, on_cycle=on_cycle)
    rc = d.run(duration=3.0)
    be.close()
    assert rc == 0 and d.stats.restored
    assert d.stats.intervals >= 15 and d.stats.read_errors == 0 and d.stats.write_errors == 0
    assert d.stats.writes > 0
    assert seen["clones"] and seen["appl"] == seen["clones"]  # the switch took every clone
    assert seen["wm"] > 0  # watermarks arrive over the stream
    assert switch.dump()[0] == before[0]  # CONFIG_DB byte-identical at once
    wait_for(lambda: switch.dump() == before, 5, "APPL_DB back too (the switch follows)")
    assert not (tmp_path / "state" / "journal.json").exists()


def test_restore_from_a_fresh_process_after_sigkill(switch: Switch, gnmi_server: ServerFactory,
                                                    pki: Pki, tmp_path: Path) -> None:
    s = gnmi_server()
    before = switch.dump()
    cfgf = tmp_path / "alphad.yaml"
    cfgf.write_text(backend_yaml(s.port, pki, tmp_path))
    alphad = [sys.executable, "-m", "alphad.cli"]
    log = open(tmp_path / "run.log", "wb")
    p = subprocess.Popen([*alphad, "run", "-c", str(cfgf), "--no-view", "--no-api"],
                         stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: len(clones(switch)) >= 2, 60, "alphad to clone profiles")
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
        log.close()
        killed = switch.dump()
        journal = (tmp_path / "state" / "journal.json").exists()
        # restore whatever happened above: the module's later tests share this switch
        r = subprocess.run([*alphad, "restore", "-c", str(cfgf)], capture_output=True,
                           text=True, timeout=60)
    assert killed != before and journal
    assert r.returncode == 0, r.stderr
    assert "restored" in r.stdout
    wait_for(lambda: switch.dump() == before, 5, "byte-identical CONFIG_DB and APPL_DB")


def test_openconfig_telemetry_and_actuation(switch: Switch, gnmi_server: ServerFactory,
                                            pki: Pki, tmp_path: Path) -> None:
    s = gnmi_server()
    before = switch.dump()
    cfg = parse_config(backend_yaml(s.port, pki, tmp_path, telemetry="openconfig",
                                    actuation="openconfig"))
    be = open_backend(cfg.backend)
    seen: dict[str, Any] = {}

    def on_cycle(d: Daemon) -> None:
        if d.stats.intervals >= 8 and d.stats.writes and not seen.get("clones"):
            seen["clones"] = clones(switch)  # the server realised per-queue values
            seen["tx"] = int(d.snapshot.sample.tx_bytes.max()) if d.snapshot else 0

    d = Daemon(cfg, be, on_cycle=on_cycle)
    rc = d.run(duration=3.0)
    be.close()
    assert rc == 0 and d.stats.restored, d.stats
    assert d.stats.writes > 0 and d.stats.write_errors == 0, d.stats
    assert seen.get("clones") and seen["tx"] > 0, (seen, d.stats)
    wait_for(lambda: switch.dump() == before, 5, "byte-identical CONFIG_DB and APPL_DB")


def test_stalled_stream_is_detected_and_recovered(switch: Switch, tmp_path: Path) -> None:
    """SIGSTOP the gNMI server process: the connection stays up but nothing arrives."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    log = open(tmp_path / "gnmi.log", "wb")
    srv = subprocess.Popen([sys.executable, "-m", "alphad_vswitch_gnmi.cli", "--insecure",
                            "--redis", switch.redis.address, "--listen", f"127.0.0.1:{port}",
                            "--min-sample-interval", "100ms", "--credentials",
                            str(write_users(tmp_path / "users.json")),
                            "--state-dir", str(tmp_path)], stdout=log, stderr=subprocess.STDOUT)
    be = None
    try:
        wait_for(lambda: b"gNMI on" in (tmp_path / "gnmi.log").read_bytes(), 15, "server")
        be = open_gnmi(port, None, tmp_path, stall_intervals=3)
        be.sample()
        srv.send_signal(signal.SIGSTOP)
        t0 = time.monotonic()
        err = wait_for(lambda: _sample_error(be), 10, "the stall to be reported")
        assert time.monotonic() - t0 < 5
        assert isinstance(err, TransientBackendError)
        assert "stalled" in str(err)
        wait_for(lambda: be.stream.stalls >= 1, 5, "the stream to be cancelled as stalled")
        srv.send_signal(signal.SIGCONT)
        wait_for(lambda: _sample_error(be) is None, 15, "telemetry after the stall")
        assert be.stream.reconnects >= 1
    finally:
        srv.send_signal(signal.SIGCONT)
        if be is not None:
            be.restore()
            be.close()
        stop_proc(srv)
        log.close()


def _sample_error(be: GnmiBackend) -> BackendError | None:
    try:
        be.sample()
        return None
    except BackendError as e:
        return e


def test_server_closing_the_stream_reconnects(gnmi_server: ServerFactory, pki: Pki,
                                              tmp_path: Path) -> None:
    s = gnmi_server(max_connection_age=0.8)  # GOAWAY: every stream ends after ~1 s
    be = open_gnmi(s.port, pki, tmp_path)
    ok = errors = 0
    t_end = time.monotonic() + 4.0
    stamps = []
    while time.monotonic() < t_end:
        try:
            stamps.append(be.sample().t)
            ok += 1
        except TransientBackendError:
            errors += 1
        time.sleep(0.1)
    be.close()
    assert be.stream.reconnects >= 2
    assert ok > 3 * errors  # short gaps only
    assert stamps[-1] - stamps[0] > 3.0  # fresh samples after every reconnection


def test_credentials_expiring_under_a_running_backend(gnmi_server: ServerFactory, pki: Pki,
                                                     tmp_path: Path) -> None:
    import datetime as dt

    users = write_users(tmp_path / "users.json")
    s = gnmi_server(users=users)
    be = open_gnmi(s.port, pki, tmp_path)
    try:
        be.sample()
        write_users(users, expires=(dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
                                    ).isoformat())
        err = wait_for(lambda: _sample_error(be), 10, "the expiry to be reported")
        assert isinstance(err, TransientBackendError)
        wait_for(lambda: "expired" in str(_sample_error(be)), 10, "the server's reason")
        write_users(users)  # renewed: the backend reconnects by itself
        wait_for(lambda: _sample_error(be) is None, 15, "telemetry with renewed credentials")
    finally:
        be.close()


def test_credentials_and_certificates_fail_clearly(gnmi_server: ServerFactory, pki: Pki,
                                                   tmp_path: Path) -> None:
    def fails(port: int, p: Pki | None, match: str, **kw: Any) -> None:
        t0 = time.monotonic()
        with pytest.raises(FatalBackendError, match=match):
            open_gnmi(port, p, tmp_path, **kw)
        assert time.monotonic() - t0 < 15

    expired = gnmi_server(users=write_users(tmp_path / "old.json", "2001-01-01T00:00:00Z"))
    fails(expired.port, pki, r"refused the credentials of user 'alphad'.*expired")
    s = gnmi_server()
    (tmp_path / "wrong").write_text("not-it")
    fails(s.port, pki, r"refused the credentials.*wrong password",
          password_file=str(tmp_path / "wrong"))
    rogue = gnmi_server(tls="rogue")
    fails(rogue.port, pki, r"does not verify against .*ca\.pem")
    old = gnmi_server(tls="expired")
    fails(old.port, pki, r"does not verify")
    fails(s.port, None, r"gNMI 127\.0\.0\.1:\d+")  # plain TCP to a TLS server


def test_refused_set_writes_nothing(switch: Switch, gnmi_server: ServerFactory, pki: Pki,
                                    tmp_path: Path) -> None:
    import numpy as np

    from alphad.model import Changes

    s = gnmi_server(native_write=False)
    before = switch.dump()
    be = open_gnmi(s.port, pki, tmp_path)
    i = be.topo.find("Ethernet0", 0)
    with pytest.raises(FatalBackendError, match="native write is disabled"):
        be.apply(Changes(idx=np.array([i]), alpha=np.array([0.25]), k=np.array([-2])))
    assert be.sample().alpha[i] == 8.0  # still the profile's 2^3
    be.close()
    assert switch.dump()[0] == before[0]


def test_strict_schedulers_read_over_gnmi_rank_the_classes(switch: Switch,
                                                           gnmi_server: ServerFactory, pki: Pki,
                                                           tmp_path: Path) -> None:
    c = switch.db(4)
    ports = sorted({k.split("|")[1] for k in c.scan_iter(match="QUEUE|*")})
    before = switch.dump()
    c.hset("SCHEDULER|sp", mapping={"type": "STRICT"})
    for p in ports:  # the query class's queues 5-6 on a strict scheduler, except on one port
        c.hset(f"QUEUE|{p}|5-6", "scheduler", "sp" if p != ports[0] else "scheduler.0")
    try:
        s = gnmi_server()
        cfg = parse_config(backend_yaml(s.port, pki, tmp_path).replace("scheme: abm",
                                                                      "scheme: auto4"))
        be = open_backend(cfg.backend)
        assert isinstance(be, GnmiBackend)
        sq = be.strict_queues()
        assert sorted(set(be.topo.queue_index[sq].tolist())) == [5, 6]
        assert int(sq.sum()) == 2 * (len(ports) - 1)
        assert Daemon(cfg, be).controller.classes.strict == ()  # not on every port: none
        be.close()
        c.hset(f"QUEUE|{ports[0]}|5-6", "scheduler", "sp")
        be = open_backend(cfg.backend)
        assert Daemon(cfg, be).controller.classes.strict == (None, 0)
        be.close()
    finally:
        c.delete("SCHEDULER|sp")
        for p in ports:
            c.hset(f"QUEUE|{p}|5-6", "scheduler", "scheduler.0")
    assert switch.dump()[0] == before[0]


def test_config_errors_name_the_field(tmp_path: Path) -> None:
    text = backend_yaml(1, None, tmp_path)
    with pytest.raises(ConfigError) as ei:
        parse_config(text.replace("127.0.0.1:1", "no-port"))
    assert any(e.startswith("backend.address") for e in ei.value.errors)
    with pytest.raises(ConfigError) as ei:
        parse_config(text.replace("  password_file:", "  unused_key: 1\n  password_fil:"))
    assert any("unused_key" in e for e in ei.value.errors)
    with pytest.raises(ConfigError) as ei:
        parse_config(text.replace("  sample_interval: 100ms", "  sample_interval: -1s"))
    assert any("backend.sample_interval" in e for e in ei.value.errors)
    for f in sorted((ROOT / "configs" / "gnmi").glob("*.yaml")):  # the shipped examples
        assert load_config(f).backend_type == "gnmi"
