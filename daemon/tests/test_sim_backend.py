"""The `sim` backend against the real ns-3 program (built by `make ns3`).

The program path comes from ALPHAD_NS3_BIN (exported by the Makefile) or the
checkout's build directory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from alphad.backends import open_backend
from alphad.backends.base import FatalBackendError
from alphad.backends.sim import CosimSession, SimBackend, SimulationFinished, cosimulate
from alphad.config import ConfigError, parse_config
from alphad.controller import Controller
from alphad.loop import Daemon
from alphad.model import Changes

REPO = Path(__file__).resolve().parents[2]
CDF = REPO / "ns3-harness" / "data" / "websearch.cdf"


@pytest.fixture(scope="module")
def program() -> Path:
    p = Path(os.environ.get("ALPHAD_NS3_BIN", REPO / "build/ns3-harness/alphad-ns3-sim"))
    if not p.is_file():
        pytest.fail(f"{p} is missing: build the ns-3 harness with `make ns3`")
    return p


def small_args(tmp: Path, gen: float = 0.004, **extra: str) -> list[str]:
    args = {"servers": "4", "load": "0.5", "qps": "400", "requestFrac": "0.5", "gen": str(gen),
            "drain": "0.004", "cdf": str(CDF), "out": str(tmp), "seed": "3", **extra}
    return [f"--{k}={v}" for k, v in args.items()]


def start(program: Path, tmp: Path, interval_us: float = 80, **extra: str) -> CosimSession:
    argv = [str(program), "--scheme=external", "--cosim=1", f"--cosimInterval={interval_us}",
            *small_args(tmp, **extra)]
    return CosimSession(argv, stderr=(tmp / "stderr.log").open("wb"))


SETTINGS = """
interval: 80us
scheme: abm
priorities:
  - {name: all, queues: [0, 1, 2, 3, 4, 5, 6, 7], alpha: 0.5}
quantize: {mode: pow2, kmin: -8, kmax: 7, hysteresis: 0.25}
"""


def test_handshake_describes_every_switch(program: Path, tmp_path: Path) -> None:
    s = start(program, tmp_path)
    try:
        assert s.interval == pytest.approx(80e-6)
        assert set(s.topologies) == {"leaf0", "leaf1", "spine0", "spine1"}
        leaf = s.topologies["leaf0"]
        # 4 servers + 2 uplinks, 8 queues each; B = 9.6 KiB per port per Gb/s
        assert leaf.n_ports == 6 and leaf.n == 48
        assert leaf.buffer_bytes == pytest.approx(int(9.6 * 1024 * 6 * 10))
        assert np.all(leaf.port_speed_bps == 10e9)
        assert s.topologies["spine1"].n == 16
    finally:
        s.close()


def test_snapshots_have_switch_semantics(program: Path, tmp_path: Path) -> None:
    """Watermarks are peaks since the last read, counters grow, time steps by one interval."""
    s = CosimSession([str(program), "--scheme=external", "--cosim=1", "--cosimInterval=80",
                      *small_args(tmp_path)], stderr=(tmp_path / "e.log").open("wb"),
                     expose_occupancy=True)
    prev = None
    peaks = 0.0
    try:
        while True:
            try:
                samples = s.read_interval()
            except SimulationFinished:
                break
            x = samples["leaf1"]
            assert x.occupancy is not None and x.pool_watermark is not None
            assert np.all(x.watermark >= x.occupancy)  # the peak covers the current length
            assert x.pool_watermark >= x.pool_occupancy
            assert x.pool_occupancy == pytest.approx(x.occupancy.sum())
            if prev is not None:
                assert x.t - prev.t == pytest.approx(80e-6)
                assert np.all(x.tx_bytes >= prev.tx_bytes)
                assert np.all(x.drop_packets >= prev.drop_packets)
            peaks = max(peaks, float(x.watermark.max()))
            prev = x
            s.answer()
    finally:
        rc = s.close()
    assert rc == 0
    assert prev is not None and prev.tx_bytes.sum() > 1e6  # traffic went through leaf1
    assert peaks > 10_000  # and queued


def test_alphas_reach_the_switch(program: Path, tmp_path: Path) -> None:
    """An alpha written for one queue is the one the next snapshot reports (and only there)."""
    s = start(program, tmp_path)
    try:
        first = s.read_interval()["leaf0"]
        assert np.all(first.alpha == 0.5)
        s.stage("leaf0", Changes(np.array([9]), np.array([0.125])))
        s.answer()
        nxt = s.read_interval()["leaf0"]
        assert nxt.alpha[9] == 0.125
        assert np.all(np.delete(nxt.alpha, 9) == 0.5)
        assert np.all(s.sample_of("leaf1").alpha == 0.5)
    finally:
        s.close()


def test_cosimulate_runs_one_controller_per_switch(program: Path, tmp_path: Path) -> None:
    cfg = parse_config(SETTINGS + "backend: {type: sim}\n")
    s = start(program, tmp_path)
    ctrls = {n: Controller.from_config(cfg, t) for n, t in s.topologies.items()}
    sent: list[np.ndarray] = []
    for c in ctrls.values():
        step = c.step

        def recording(sample, step=step):  # type: ignore[no-untyped-def]
            ch = step(sample)
            sent.append(ch.alpha)
            return ch

        c.step = recording  # type: ignore[method-assign]
    st = cosimulate(s, ctrls)
    assert st.intervals >= int(0.008 / 80e-6) - 1
    assert st.writes > 0 and st.extra["exit_status"] == 0
    alphas = np.concatenate(sent)
    k = np.log2(alphas)
    assert np.all(k == np.round(k)) and k.min() >= -8 and k.max() <= 7  # 2^k, in range
    assert (tmp_path / "flows.csv").is_file()


def test_daemon_loop_drives_one_switch(program: Path, tmp_path: Path) -> None:
    """`alphad run` with backend sim: the loop's manual clock steps the simulation."""
    args = ", ".join(f'"{a}"' for a in small_args(tmp_path))
    cfg = parse_config(SETTINGS + f"backend: {{type: sim, program: {program}, switch: leaf1, "
                       f"args: [{args}]}}\n")
    backend = open_backend(cfg.backend)
    assert isinstance(backend, SimBackend)
    d = Daemon(cfg, backend)
    rc = d.run(duration=0.006)
    backend.close()
    assert rc == 0
    assert d.stats.intervals == 75 and d.stats.writes > 0
    assert d.stats.restored


def test_interval_mismatch_is_refused(program: Path, tmp_path: Path) -> None:
    s = start(program, tmp_path, interval_us=100)
    b = SimBackend(s, "leaf0", own_session=True)
    with pytest.raises(FatalBackendError, match="differs from the simulation"):
        b.advance(80e-6)
    b.close()


def test_unknown_switch_and_program_errors(program: Path, tmp_path: Path) -> None:
    s = start(program, tmp_path)
    with pytest.raises(FatalBackendError, match=r"no switch 'leaf9'.*leaf0"):
        SimBackend(s, "leaf9")
    s.close()
    cfg = parse_config(SETTINGS + f"backend: {{type: sim, program: {tmp_path / 'nope'}}}\n")
    with pytest.raises(FatalBackendError, match="not an executable"):
        open_backend(cfg.backend)


def test_peer_speaking_another_protocol(tmp_path: Path) -> None:
    fake = tmp_path / "other"
    fake.write_text("#!/bin/sh\necho 'HELLO something-else 7'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(FatalBackendError, match="not an alphad-ns3-cosim 1 peer"):
        CosimSession([str(fake)])


def test_program_error_is_reported(program: Path, tmp_path: Path) -> None:
    """A bad scenario option: the program exits naming it, the session says it closed."""
    log = tmp_path / "e.log"
    with pytest.raises(FatalBackendError, match="closed its output"):
        CosimSession([str(program), "--scheme=external", "--cosim=1", "--load=3"],
                     stderr=log.open("wb"))
    assert "--load: must be in [0, 1]" in log.read_text()


def test_config_errors_name_the_field() -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(SETTINGS + "backend: {type: sim, swich: leaf0}\n")
    assert "backend.swich: unknown key" in e.value.errors
    with pytest.raises(ConfigError) as e:
        parse_config(SETTINGS + "backend: {type: sim, switch: ''}\n")
    assert any(x.startswith("backend.switch:") for x in e.value.errors)


def test_a_silent_program_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    """A program that never answers: the session kills it after ``timeout`` and says so,
    instead of waiting for ever; the process is gone."""
    import time

    fake = tmp_path / "silent"
    fake.write_text("#!/bin/sh\nexec sleep 60\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    t0 = time.monotonic()
    with pytest.raises(FatalBackendError, match=r"no result within 0.5 s"):
        CosimSession([str(fake)], timeout=0.5)
    assert time.monotonic() - t0 < 10


def test_a_cosimulation_is_stopped_at_the_timeout(program: Path, tmp_path: Path) -> None:
    """A real co-simulation longer than its timeout: cosimulate fails naming the timeout
    and the interval it reached; a run within its timeout is not affected."""
    cfg = parse_config(SETTINGS + "backend: {type: sim}\n")
    argv = [str(program), "--scheme=external", "--cosim=1", "--cosimInterval=80",
            *small_args(tmp_path, gen=3.0)]
    s = CosimSession(argv, stderr=(tmp_path / "stderr.log").open("wb"), timeout=1.5)
    ctrls = {n: Controller.from_config(cfg, t) for n, t in s.topologies.items()}
    with pytest.raises(FatalBackendError, match=r"no result within 1.5 s: .* at interval [1-9]"):
        cosimulate(s, ctrls)
    assert s.proc.poll() is not None and s.seq > 0
    ok = CosimSession([str(program), "--scheme=external", "--cosim=1", "--cosimInterval=80",
                       *small_args(tmp_path / "ok")], timeout=600)
    st = cosimulate(ok, {n: Controller.from_config(cfg, t) for n, t in ok.topologies.items()})
    assert st.extra["exit_status"] == 0 and not ok.timed_out


def test_a_malformed_handshake_stops_the_program(tmp_path: Path) -> None:
    """A SWITCH record with a port count that is not a number: the session says the record
    is malformed and the program does not outlive it."""
    pidfile = tmp_path / "pid"
    fake = tmp_path / "garbled"
    fake.write_text(f"#!/bin/sh\necho $$ > {pidfile}\necho 'HELLO alphad-ns3-cosim 1'\n"
                    "echo 'SWITCH leaf0 many 8 1000'\nexec sleep 60\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(FatalBackendError, match="malformed record from the simulation"):
        CosimSession([str(fake)], timeout=30)
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped


def test_shadow_rows_reach_the_sample(program: Path, tmp_path: Path) -> None:
    """With ``--shadowDt=1`` every sample carries the drops DT at the operator's alphas
    would have admitted (``extra['sdb']``, ``extra['sdp']``): none while nothing is raised,
    and never more than the queue's own drops; without it, no extra rows."""
    s = start(program, tmp_path, shadowDt="1")
    assert s.extra_rows == ("sdb", "sdp")
    drops = 0
    while True:
        try:
            samples = s.read_interval()
        except SimulationFinished:
            break
        for smp in samples.values():
            sdb = smp.extra["sdb"]
            assert sdb.dtype == np.uint64 and sdb.shape == smp.tx_bytes.shape
            assert not smp.extra["sdb"].any() and not smp.extra["sdp"].any()
            drops += int(smp.drop_packets.sum())
    assert drops > 0  # the intervals include DT's own drops, none of them counted
    (tmp_path / "plain").mkdir()
    plain = start(program, tmp_path / "plain")
    assert plain.extra_rows == () and plain.read_interval()["leaf0"].extra == {}
    plain.close()


def test_unknown_extra_rows_are_refused(tmp_path: Path) -> None:
    fake = tmp_path / "rows"
    fake.write_text("#!/bin/sh\necho 'HELLO alphad-ns3-cosim 1'\n"
                    "echo 'SWITCH leaf0 1 1 1000 1000000000'\necho 'READY 1 80000 sdb qqq'\n"
                    "exec sleep 60\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(FatalBackendError, match=r"READY names unknown rows \['qqq'\]"):
        CosimSession([str(fake)], timeout=30)
