"""Fail-safe, write limits and the per-switch lock: units, then the daemon on the real
virtual ASIC with faults injected through the SAI shim."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import make_sample

from alphad.api import state_json
from alphad.backends.sai import VasicBackend
from alphad.config import parse_config
from alphad.controller import Controller, build_classes
from alphad.estimate import Estimator
from alphad.failsafe import FailSafe, FailsafeParams
from alphad.limits import Limiter, LimitParams
from alphad.lock import LockError, SwitchLock, switch_identity
from alphad.loop import Daemon
from alphad.metrics import Metrics
from alphad.model import Changes
from alphad.quantize import Quantizer
from alphad.sai.vasic import inject_fault, profile_count

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SCN = ROOT / "configs" / "scenarios" / "default.scn"


def changes(idx: list[int], k: list[int]) -> Changes:
    kk = np.array(k, dtype=np.int8)
    return Changes(np.array(idx, dtype=np.int64), np.exp2(kk.astype(float)), kk)


# -- limits ------------------------------------------------------------------------------

def test_limiter_bounds_step_and_no_op_writes() -> None:
    q = Quantizer(kmin=-4, kmax=2)
    lim = Limiter(8, q, LimitParams(max_step=2))
    cur = np.full(8, 0.5)  # k = -1
    ch = Changes(np.arange(5), np.array([2.0**-4, 2.0**2, np.nan, 2.0**6, 0.5]),
                 np.array([-4, 2, 0, 6, -1], dtype=np.int8))
    out = lim(ch, cur, 0.0)
    # NaN and k=6 refused; -4 and 2 limited to 2 steps from -1; k=-1 equals current: no write
    assert out.idx.tolist() == [0, 1]
    assert out.k is not None and out.k.tolist() == [-3, 1]
    assert out.alpha.tolist() == [2.0**-3, 2.0]
    assert lim.refused == 2


def test_limiter_continuous_mode_clamps_and_steps() -> None:
    q = Quantizer(mode="continuous", kmin=-3, kmax=3)
    lim = Limiter(4, q, LimitParams(max_step=1))
    out = lim(Changes(np.array([0, 1, 2]), np.array([8.0, 0.125, 100.0])), np.full(4, 1.0), 0.0)
    assert out.k is None and out.alpha.tolist() == [2.0, 0.5]  # 100 is out of bounds
    assert lim.refused == 1


def test_write_budget_takes_the_largest_moves_first_and_refills() -> None:
    lim = Limiter(100, Quantizer(), LimitParams(write_budget=10))
    cur = np.full(100, 1.0)
    k = np.tile(np.array([1, 3, -5, 2], dtype=np.int8), 25)
    ch = Changes(np.arange(100), np.exp2(k.astype(float)), k)
    first = lim(ch, cur, 0.0)
    assert len(first) == 10 and set(first.k.tolist()) == {-5}  # |dk| = 5 first
    assert len(lim(ch, cur, 0.05)) == 0  # 0.5 tokens after 50 ms: none
    assert len(lim(ch, cur, 0.5)) == 5  # 0.5 + 4.5 tokens
    assert len(lim(ch, cur, 10.0)) == 10  # capped at one second of budget
    assert lim(ch, cur, 5.0) is not None and lim.tokens >= 0  # clock backwards: no refill
    assert lim.deferred > 0


def test_queue_min_interval_holds_a_queue() -> None:
    lim = Limiter(4, Quantizer(), LimitParams(queue_min_interval=0.1))
    cur = np.full(4, 1.0)
    assert len(lim(changes([0, 1], [2, 2]), cur, 1.0)) == 2
    assert lim(changes([0, 2], [3, 3]), cur, 1.05).idx.tolist() == [2]
    assert lim(changes([0, 2], [3, 3]), cur, 1.10).idx.tolist() == [0]


def test_controller_never_writes_from_a_nan_target(topo) -> None:  # type: ignore[no-untyped-def]
    classes = build_classes(topo, [("a", list(range(8)), 0.5, None)])
    ctl = Controller(topo, classes, scheme="abm")
    ctl.scheme = lambda est: np.full(topo.n, np.nan)  # type: ignore[assignment]
    ctl.step(make_sample(topo, 0.0))
    assert len(ctl.step(make_sample(topo, 0.1))) == 0


# -- fail-safe units ---------------------------------------------------------------------

def test_failsafe_stale_implausible_and_recovery(topo) -> None:  # type: ignore[no-untyped-def]
    fs = FailSafe(topo, FailsafeParams(stale_intervals=5, min_stale=0, recover_intervals=2),
                  interval=0.01)
    assert fs.check_sample(make_sample(topo, 1.0), now=0.0) is None
    assert fs.check_sample(make_sample(topo, 1.0), now=0.04) is None  # repeated: not yet stale
    why = fs.check_sample(make_sample(topo, 1.0), now=0.06)
    assert why is not None and "no new sample" in why
    assert fs.trip(why) and fs.active
    assert not fs.succeeded() and fs.succeeded() and not fs.active
    # a clock running ahead of the loop's is a jump; a late loop is not
    assert fs.check_sample(make_sample(topo, 2.0), now=1.0) is None
    assert fs.check_sample(make_sample(topo, 2.5), now=1.5) is None  # late loop: both moved
    why = fs.check_sample(make_sample(topo, 9.0), now=1.51)
    assert why is not None and "jumped" in why
    assert fs.check_sample(make_sample(topo, 3.0), now=1.52) is None  # backwards: fine
    wm = np.zeros(topo.n)
    wm[5] = 3 * topo.buffer_bytes
    why = fs.check_sample(make_sample(topo, 3.01, wm=wm), now=1.53)
    assert why is not None and "Ethernet0:5 watermark" in why
    assert fs.check_sample(make_sample(topo, 3.02, pool_wm=float("nan")), 1.54) is not None


def test_failsafe_counter_plausibility(topo) -> None:  # type: ignore[no-untyped-def]
    fs = FailSafe(topo, FailsafeParams(min_stale=0), interval=0.1)
    est = Estimator(topo, build_classes(topo, [("a", list(range(8)), 0.5, None)]))
    tx0 = np.zeros(topo.n, dtype=np.uint64)
    est.update(make_sample(topo, 0.0, tx=tx0))
    line = 10e9 / 8 * 0.1  # bytes a 10 Gb/s port sends in 0.1 s
    ok = est.update(make_sample(topo, 0.1, tx=np.full(topo.n, line, dtype=np.uint64)))
    assert ok is not None and fs.check_estimates(ok) is None
    tx = np.full(topo.n, 2 * line, dtype=np.uint64)
    tx[9] = np.uint64(2**60)  # garbage
    bad = est.update(make_sample(topo, 0.2, tx=tx))
    assert bad is not None
    why = fs.check_estimates(bad)
    assert why is not None and "Ethernet4:1" in why
    # a wrap (top of the 64-bit range) and a reset are ordinary
    est.reset()
    est.update(make_sample(topo, 0.0, tx=np.full(topo.n, 2**64 - 1000, dtype=np.uint64)))
    e = est.update(make_sample(topo, 0.1, tx=np.full(topo.n, 5000, dtype=np.uint64)))
    assert e is not None and e.tx_delta[0] == 6000 and fs.check_estimates(e) is None
    e = est.update(make_sample(topo, 0.2, tx=np.full(topo.n, 10, dtype=np.uint64)))
    assert e is not None and e.reset.all() and fs.check_estimates(e) is None


def test_failsafe_needs_consecutive_errors(topo) -> None:  # type: ignore[no-untyped-def]
    fs = FailSafe(topo, FailsafeParams(error_intervals=3, min_stale=10), interval=0.01)
    fs.check_sample(make_sample(topo, 0.0), 0.0)
    assert not fs.failed("x", 0.01) and not fs.failed("x", 0.02)
    fs.succeeded()  # a success in between starts the count again
    assert not fs.failed("x", 0.03) and not fs.failed("x", 0.04)
    assert fs.failed("boom", 0.05) and "keeps failing" in fs.reason and "boom" in fs.reason


# -- the daemon on the virtual ASIC --------------------------------------------------------

def vasic_config(tmp: Path, extra: str = "", interval: str = "1ms"):  # type: ignore[no-untyped-def]
    text = textwrap.dedent(f"""
        interval: {interval}
        scheme: abm
        priorities:
          - {{name: bulk, queues: [0, 1, 2, 4, 5, 6, 7], alpha: 0.5}}
          - {{name: query, queues: [3], alpha: 0.5}}
        backend: {{type: vasic, scenario: {DEFAULT_SCN}, clock: manual}}
        metrics: {{enabled: false}}
        """) + extra
    return parse_config(text, "test", tmp)


def alphas(be: VasicBackend) -> list[int]:
    return [be._s.get_log2_alpha(i) for i in range(be.topology().n)]


class Watched(Daemon):
    """The daemon with a check after every cycle, a failed read included."""

    check = None
    calls = 0

    def cycle(self) -> None:
        super().cycle()
        self.calls += 1
        if self.check is not None:
            self.check(self)


def test_read_faults_hold_the_baseline_within_one_interval_and_resume(tmp_path: Path) -> None:
    cfg = vasic_config(tmp_path)
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    m = Metrics()
    seen: dict[str, object] = {}

    def check(d: Daemon) -> None:
        i = d.calls  # type: ignore[attr-defined]
        if i == 100:
            assert alphas(be) != [-1] * 128  # ABM moved some queues
            inject_fault(be._vasic, "get_stats", 10)  # cycles 101..110 cannot read
        if d.failsafe and "entered" not in seen:
            seen["entered"] = i
            seen["alphas"] = alphas(be)
            seen["state"] = state_json(d)["failsafe"]
            seen["gauge"] = [ln for ln in m.exposition().decode().splitlines()
                             if ln.startswith("alphad_failsafe_active{")]
        if "entered" in seen and not d.failsafe and "left" not in seen:
            seen["left"] = i

    d = Watched(cfg, be, m)
    d.check = check  # type: ignore[assignment]
    try:
        assert d.run(duration=0.3) == 0
        # the third failed read in a row engages it, in that interval: every queue on -1
        assert seen["entered"] == 103
        assert seen["alphas"] == [-1] * 128
        st = seen["state"]
        assert isinstance(st, dict) and st["active"] and "keeps failing" in st["reason"]
        assert seen["gauge"] and str(seen["gauge"][0]).endswith(" 1.0")  # type: ignore[index]
        # 10 failures, then 3 healthy intervals (111..113): the scheme resumes
        assert seen["left"] == 113
        assert d.stats.failsafe_entries == 1 and d.stats.read_errors == 10
        assert not d.failsafe
        assert next(ln for ln in m.exposition().decode().splitlines()
                    if ln.startswith("alphad_failsafe_active{")).endswith(" 0.0")
        assert d.stats.restored
        assert alphas(be) == [-1] * 128 and profile_count(be._vasic) == 1
    finally:
        be.close()


def test_write_faults_engage_the_failsafe_and_restore_stays_exact(tmp_path: Path) -> None:
    cfg = vasic_config(tmp_path)
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    fired = []

    def on_cycle(d: Daemon) -> None:
        if d.stats.intervals == 50:
            inject_fault(be._vasic, "set_profile", 4)
            inject_fault(be._vasic, "create_profile", 4)
        if d.failsafe and not fired:
            fired.append(d.stats.intervals)

    d = Daemon(cfg, be, on_cycle=on_cycle)
    try:
        assert d.run(duration=0.4) == 0
        assert d.stats.write_errors >= 3 and fired
        assert d.stats.restored
        assert alphas(be) == [-1] * 128 and profile_count(be._vasic) == 1
    finally:
        be.close()


def test_budget_and_step_limit_through_the_daemon(tmp_path: Path) -> None:
    cfg = vasic_config(tmp_path, "limits: {write_budget: 200, max_step: 1}\n")
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    prev: list[np.ndarray] = []

    def on_cycle(d: Daemon) -> None:
        k = np.array(alphas(be))
        if prev:
            assert np.abs(k - prev[-1]).max() <= 1  # one log2 step per write at most
        prev.append(k)

    d = Daemon(cfg, be, on_cycle=on_cycle)
    try:
        d.run(duration=1.0)
        assert d.stats.writes <= 200 + 200 * 1.0 + 1  # one second of burst plus the refill
        assert d.stats.deferred_writes > 0
        k = np.array(prev[-1])
        assert k.min() >= -8 and k.max() <= 7
    finally:
        be.close()


def test_steady_switch_gets_no_writes(tmp_path: Path) -> None:
    cfg = vasic_config(tmp_path).model_copy(update={"scheme": "dt"})
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    try:
        d = Daemon(cfg, be)
        d.run(duration=0.05)
        assert d.stats.intervals == 50 and d.stats.writes == 0 and not d.failsafe
    finally:
        be.close()


# -- lock --------------------------------------------------------------------------------

def test_lock_refuses_a_second_holder_and_frees_on_release(tmp_path: Path) -> None:
    a = SwitchLock("sonic:unix:/x/redis.sock/4", tmp_path).acquire()
    with pytest.raises(LockError) as e:
        SwitchLock("sonic:unix:/x/redis.sock/4", tmp_path).acquire()
    assert "already manages this switch" in str(e.value) and e.value.holder is not None
    SwitchLock("sonic:unix:/x/redis.sock/2", tmp_path).acquire().release()  # other switch
    a.release()
    SwitchLock("sonic:unix:/x/redis.sock/4", tmp_path).acquire().release()


def test_switch_identity_per_backend(tmp_path: Path) -> None:
    lib = tmp_path / "libsai.so"
    lib.write_text("")
    (tmp_path / "link.so").symlink_to(lib)
    base = "priorities: [{name: a, queues: [0], alpha: 0.5}]\n"
    ident = [switch_identity(parse_config(base + f"backend: {b}\n", "t", tmp_path).backend)
             for b in (f"{{type: sai, libsai: {lib}}}",
                       f"{{type: sai, libsai: {tmp_path}/link.so}}",
                       f"{{type: vasic, scenario: {DEFAULT_SCN}}}",
                       "{type: sonic, redis: 'unix:///r/redis.sock', database_config: /none}",
                       "{type: sonic, redis: 'localhost:6379', database_config: /none}",
                       "{type: gnmi, address: 'localhost:8080'}")]
    assert ident[0] == ident[1] == f"sai:{lib}"
    assert ident[2] is None  # a virtual ASIC in the process: nothing shared
    assert ident[3] == "sonic:unix:/r/redis.sock/4"
    assert ident[4] == "sonic:tcp:127.0.0.1:6379/4"
    assert ident[5] == "gnmi:127.0.0.1:8080"
