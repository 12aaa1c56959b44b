"""Metrics: the issue's full list, Prometheus naming (promtool), values from the loop."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from _obs_support import write_config
from prometheus_client.parser import text_string_to_metric_families

from alphad.backends.sai import VasicBackend
from alphad.config import load_config
from alphad.loop import Daemon
from alphad.metrics import Metrics

GOLDEN = Path(__file__).parent / "golden" / "metrics.txt"


@pytest.fixture
def run(tmp_path: Path) -> Iterator[tuple[Daemon, VasicBackend, Metrics]]:
    cfg = load_config(write_config(tmp_path))
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    try:
        m = Metrics()
        d = Daemon(cfg, be, m)
        for _ in range(30):
            be.advance(d.interval)
            d.cycle()
        yield d, be, m
    finally:
        be.close()


def _families(m: Metrics) -> dict[str, object]:
    text = m.exposition().decode()
    return {f.name: f for f in text_string_to_metric_families(text)}


def _value(m: Metrics, name: str, **labels: str) -> float:
    for fam in text_string_to_metric_families(m.exposition().decode()):
        for s in fam.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return float(s.value)
    raise KeyError((name, labels))


def test_scrape_passes_promtool_check_metrics(run: tuple[Daemon, VasicBackend, Metrics]) -> None:
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: apt-get install prometheus (see .ci/run)"
    text = run[2].exposition()
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                       timeout=30)
    assert r.returncode == 0 and not r.stdout.strip() and not r.stderr.strip(), \
        (r.stdout.decode(), r.stderr.decode())


def test_metric_names_types_and_labels_match_the_golden_list(
        run: tuple[Daemon, VasicBackend, Metrics]) -> None:
    """Renaming a metric breaks dashboards and alerts: it must be deliberate."""
    rows = []
    for name, fam in sorted(_families(run[2]).items()):
        labels = sorted({k for s in fam.samples for k in s.labels} - {"le"})  # type: ignore
        rows.append(f"{name} {fam.type} {','.join(labels)}")  # type: ignore[attr-defined]
    assert "\n".join(rows) + "\n" == GOLDEN.read_text()


def test_values_come_from_the_loop(run: tuple[Daemon, VasicBackend, Metrics]) -> None:
    d, be, m = run
    s = d.snapshot
    assert s is not None
    i = d.topo.find("Ethernet0", 0)
    q = {"switch": "switch", "port": "Ethernet0", "queue": "0"}
    assert _value(m, "alphad_queue_watermark_bytes", **q) == s.sample.watermark[i] > 0
    assert _value(m, "alphad_queue_occupancy_bytes", **q) == s.sample.occupancy[i]
    assert _value(m, "alphad_queue_threshold_bytes", **q) == pytest.approx(s.threshold[i])
    assert _value(m, "alphad_queue_log2_alpha", **q) == be._k[i]
    assert _value(m, "alphad_queue_alpha", **q) == 2.0 ** be._k[i]
    assert _value(m, "alphad_queue_target_alpha", **q) == pytest.approx(s.target[i])
    assert _value(m, "alphad_queue_gamma", **q) == pytest.approx(s.gamma[i])
    dropped = _value(m, "alphad_queue_dropped_bytes_total", **q)
    assert dropped == s.drops_total[i] > 0
    assert _value(m, "alphad_queue_transmitted_bytes_total", **q) > 0
    assert _value(m, "alphad_priority_congested_queues", priority="bulk") == s.n_p[0] >= 1
    assert _value(m, "alphad_pool_size_bytes") == d.topo.buffer_bytes
    assert 0 < _value(m, "alphad_pool_watermark_bytes") <= d.topo.buffer_bytes
    assert _value(m, "alphad_loop_intervals_total", switch="switch") == 30
    assert _value(m, "alphad_loop_duration_seconds_count", phase="total") == 30
    assert _value(m, "alphad_actuation_writes_total") == d.stats.writes > 0
    assert _value(m, "alphad_actuation_errors_total") == 0
    assert _value(m, "alphad_interval_seconds") == pytest.approx(0.001)
    assert _value(m, "alphad_scheme_info", scheme="abm") == 1
    assert _value(m, "alphad_build_info") == 1
    # Drops only grow: a counter.
    for _ in range(5):
        be.advance(d.interval)
        d.cycle()
    assert _value(m, "alphad_queue_dropped_bytes_total", **q) > dropped
    # n_p and alpha_p per priority; unmanaged queues carry an empty priority label.
    assert _value(m, "alphad_priority_alpha", priority="query") == 0.5
    assert np.all(d.controller.classes.prio >= 0)


def test_failsafe_and_telemetry_age(run: tuple[Daemon, VasicBackend, Metrics]) -> None:
    d, be, m = run
    assert _value(m, "alphad_failsafe_active") == 0  # exported from the start
    d.set_failsafe(True, "test")
    assert _value(m, "alphad_failsafe_active") == 1
    d.set_failsafe(False)
    assert _value(m, "alphad_failsafe_active") == 0
    a0 = _value(m, "alphad_telemetry_age_seconds")
    time.sleep(0.2)  # no read in between: the age grows
    a1 = _value(m, "alphad_telemetry_age_seconds")
    assert a1 >= a0 + 0.15
    be.advance(d.interval)
    d.cycle()
    assert _value(m, "alphad_telemetry_age_seconds") < a1


def test_overruns_counted(run: tuple[Daemon, VasicBackend, Metrics]) -> None:
    d, _, m = run
    d.metrics.count_overrun()  # type: ignore[union-attr]
    assert _value(m, "alphad_loop_overruns_total") == 1
    assert _value(m, "alphad_backend_errors_total", op="sample") == 0


def test_text_rendering_escapes_labels_and_writes_non_finite_values() -> None:
    from conftest import make_sample, make_topology

    from alphad.controller import build_classes
    from alphad.metrics import QueueSnapshot

    topo = make_topology(ports=2, queues=2)
    topo = type(topo)(ports=('Eth"0\\a', "Eth\n1"), port_speed_bps=topo.port_speed_bps,
                      queue_port=topo.queue_port, queue_index=topo.queue_index,
                      buffer_bytes=topo.buffer_bytes, switch="leaf-1")
    classes = build_classes(topo, [("bulk", [0], 0.5, None)])
    s = make_sample(topo, 1.0, wm=np.array([1.0, 2.0, 3.0, 4.0]))
    m = Metrics()
    m.bind("leaf-1")
    m.publish(QueueSnapshot(topo, classes, s, threshold=np.array([np.inf, 1.0, 2.0, 3.0]),
                            target=np.array([np.nan, 0.5, 0.5, 0.5]), gamma=None, n_p=None,
                            drops_total=np.zeros(4), scheme="abm"))
    fams = {f.name: f for f in text_string_to_metric_families(m.exposition().decode())}
    wm = {(x.labels["port"], x.labels["queue"], x.labels["priority"]): x.value
          for x in fams["alphad_queue_watermark_bytes"].samples}
    assert wm == {('Eth"0\\a', "0", "bulk"): 1.0, ('Eth"0\\a', "1", ""): 2.0,
                  ("Eth\n1", "0", "bulk"): 3.0, ("Eth\n1", "1", ""): 4.0}
    thr = [x.value for x in fams["alphad_queue_threshold_bytes"].samples]
    assert thr[0] == float("inf") and thr[1:] == [1.0, 2.0, 3.0]
    assert np.isnan(fams["alphad_queue_target_alpha"].samples[0].value)
    assert "alphad_queue_gamma" not in fams and "alphad_priority_congested_queues" not in fams
    assert fams["alphad_scheme_info"].samples[0].labels == {"switch": "leaf-1",
                                                             "scheme": "abm"}
