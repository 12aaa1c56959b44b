"""Grafana dashboards and the Prometheus configuration, checked with the real Prometheus.

The last test starts Debian's `prometheus` on a free loopback port scraping a
running alphad (virtual ASIC, real time) and runs every PromQL expression of
every panel of every dashboard through Prometheus's HTTP API.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from _obs_support import ROOT, free_port, start_alphad, stop_alphad, wait_http, write_config

DASH = ROOT / "dashboards"
JSONS = sorted((DASH / "provisioning" / "dashboards").glob("*.json"))
SCRAPE = 1.0  # seconds, the test's scrape interval


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is missing: apt-get install prometheus (see .ci/run)"
    return path


def _load(p: Path) -> dict[str, Any]:
    return json.loads(p.read_text())  # type: ignore[no-any-return]


def _exprs(d: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f"{d['uid']}: {p['title']} [{t['refId']}]", t["expr"])
            for p in d["panels"] for t in p.get("targets", [])]


def test_generated_json_is_up_to_date() -> None:
    r = subprocess.run([sys.executable, str(DASH / "generate.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("path", JSONS, ids=[p.stem for p in JSONS])
def test_dashboard_shape(path: Path) -> None:
    d = _load(path)
    assert len(JSONS) == 3
    assert "__inputs" not in d  # provisioned as is, not a UI export
    assert d["schemaVersion"] >= 39 and d["uid"].startswith("alphad-")
    names = [v["name"] for v in d["templating"]["list"]]
    assert names[0] == "datasource" and "switch" in names
    ids = [p["id"] for p in d["panels"]]
    assert len(ids) == len(set(ids)) >= 6
    for p in d["panels"]:
        g = p["gridPos"]
        assert 0 <= g["x"] and g["x"] + g["w"] <= 24 and g["h"] > 0, p["title"]
        assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, p["title"]
        assert p["targets"], p["title"]
        for t in p["targets"]:
            assert t["datasource"]["uid"] == "${datasource}" and t["expr"].strip()
    # Variables used in queries are defined.
    used = {m for _, e in _exprs(d) for m in re.findall(r"\$(\w+)", e)}
    assert used - {"__rate_interval", "__range", "__interval"} <= set(names)


def test_switch_dashboard_has_what_the_issue_lists() -> None:
    d = _load(DASH / "provisioning" / "dashboards" / "alphad-switch.json")
    kinds = {p["type"] for p in d["panels"]}
    assert "heatmap" in kinds
    text = " ".join(e for _, e in _exprs(d))
    for metric in ("alphad_queue_watermark_bytes", "alphad_queue_threshold_bytes",
                   "alphad_queue_log2_alpha", "alphad_queue_dropped_bytes_total",
                   "alphad_priority_congested_queues"):
        assert metric in text, metric
    h = " ".join(e for _, e in _exprs(_load(DASH / "provisioning" / "dashboards" /
                                            "alphad-health.json")))
    for metric in ("alphad_loop_duration_seconds_bucket", "alphad_loop_overruns_total",
                   "alphad_failsafe_active"):
        assert metric in h, metric


def test_promtool_checks_config_and_rules() -> None:
    promtool = _tool("promtool")
    r = subprocess.run([promtool, "check", "config", str(DASH / "prometheus.yml")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([promtool, "check", "rules", str(DASH / "alerts.yml")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "SUCCESS: 5 rules found" in r.stdout, r.stdout + r.stderr


def test_provisioning_files() -> None:
    ds = yaml.safe_load((DASH / "provisioning" / "datasources" / "prometheus.yml").read_text())
    assert ds["datasources"][0]["type"] == "prometheus"
    prov = yaml.safe_load((DASH / "provisioning" / "dashboards" / "alphad.yml").read_text())
    # The provider reads the JSON next to it, where compose mounts dashboards/provisioning.
    assert prov["providers"][0]["options"]["path"] == "/etc/grafana/provisioning/dashboards"


def test_compose_mounts_these_files() -> None:
    compose = ROOT / "docker-compose.yml"
    if not compose.exists():
        pytest.skip("docker-compose.yml is not in this checkout")
    text = compose.read_text()
    assert "dashboards/provisioning" in text and "dashboards/prometheus.yml" in text


def _variables(switch: str) -> dict[str, str]:
    # What Grafana substitutes: a single switch, "All" ports (allValue .*), and
    # $__rate_interval = max(4 * scrape interval, interval + scrape interval).
    return {"$__rate_interval": f"{int(4 * SCRAPE)}s", "$__range": "1m",
            "$__interval": f"{int(SCRAPE)}s", "$switch": switch, "$port": ".*"}


def _substitute(expr: str, variables: dict[str, str]) -> str:
    for k in sorted(variables, key=len, reverse=True):
        expr = expr.replace(k, variables[k])
    assert "$" not in expr, expr
    return expr


FLEET = ("leaf-1", "leaf-2")


@pytest.fixture
def prometheus_on_alphad(tmp_path: Path) -> Iterator[str]:
    """Two running alphad (a small fleet: switches leaf-1 and leaf-2) and a real
    Prometheus scraping them; yields Prometheus's URL."""
    prom = _tool("prometheus")
    ports = [free_port() for _ in FLEET]
    daemons = []
    procs = []
    try:
        for name, mport in zip(FLEET, ports, strict=True):
            cfg = write_config(tmp_path, clock="realtime", interval="10ms",
                               metrics=f'listen: "127.0.0.1:{mport}"', name=f"{name}.yaml",
                               extra=f"switch_name: {name}\n")
            daemons.append(start_alphad(cfg))
        for mport, d in zip(ports, daemons, strict=True):
            wait_http(f"http://127.0.0.1:{mport}/metrics", d)
        # The shipped scrape config, pointed at these daemons, scraping every second.
        pport = free_port()
        pc = yaml.safe_load((DASH / "prometheus.yml").read_text())
        pc["global"].update(scrape_interval=f"{int(SCRAPE)}s",
                            evaluation_interval=f"{int(SCRAPE)}s")
        pc["scrape_configs"][0]["static_configs"] = [
            {"targets": [f"127.0.0.1:{p}" for p in ports]}]
        pc["rule_files"] = [str(DASH / "alerts.yml")]
        (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(pc))
        r = subprocess.run([_tool("promtool"), "check", "config",
                            str(tmp_path / "prometheus.yml")], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        p = subprocess.Popen(
            [prom, f"--config.file={tmp_path / 'prometheus.yml'}",
             f"--storage.tsdb.path={tmp_path / 'data'}",
             f"--web.listen-address=127.0.0.1:{pport}", "--log.level=warn"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        procs.append(p)
        url = f"http://127.0.0.1:{pport}"
        wait_http(f"{url}/-/ready", p, timeout=30)
        yield url
    finally:
        for p in procs:
            p.terminate()
            try:
                p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        for d in daemons:
            stop_alphad(d)


def _query(url: str, expr: str) -> list[Any]:
    r = httpx.get(f"{url}/api/v1/query", params={"query": expr}, timeout=10)
    body = r.json()
    assert r.status_code == 200 and body["status"] == "success", (expr, body)
    return body["data"]["result"]  # type: ignore[no-any-return]


def test_every_panel_query_returns_data_from_a_real_prometheus(
        prometheus_on_alphad: str) -> None:
    url = prometheus_on_alphad
    # Wait for enough scrapes that rate() over $__rate_interval has two samples.
    t0 = time.monotonic()
    while True:
        res = _query(url, "count_over_time(alphad_loop_intervals_total[1m])")
        if res and float(res[0]["value"][1]) >= 6:
            break
        assert time.monotonic() - t0 < 40, "Prometheus collected no alphad samples"
        time.sleep(0.5)
    up = _query(url, 'up{job="alphad"}')
    assert len(up) == 2 and {r["value"][1] for r in up} == {"1"}
    # Template variables: label_values(metric, label) the way Grafana asks for it.
    switches = httpx.get(f"{url}/api/v1/label/switch/values",
                         params={"match[]": "alphad_scheme_info"}, timeout=10).json()["data"]
    assert switches == list(FLEET)
    ports = httpx.get(f"{url}/api/v1/label/port/values",
                      params={"match[]": 'alphad_queue_alpha{switch="leaf-2"}'},
                      timeout=10).json()["data"]
    assert len(ports) == 16 and "Ethernet60" in ports
    empty, checked = [], 0
    for path in JSONS:
        d = _load(path)
        # Fleet and health dashboards: every switch ("All"); the switch dashboard: one.
        multi = next(v for v in d["templating"]["list"] if v["name"] == "switch")["multi"]
        variables = _variables(".*" if multi else "leaf-2")
        for where, expr in _exprs(d):
            result = _query(url, _substitute(expr, variables))
            checked += 1
            if not result:
                empty.append(f"{where}: {expr}")
            elif multi and "by (switch" in expr and "topk" not in expr:  # each switch
                assert {r["metric"].get("switch") for r in result} == set(FLEET), where
            elif not multi:  # only the chosen switch
                assert {r["metric"].get("switch", "leaf-2") for r in result} == {"leaf-2"}, \
                    where
    assert checked >= 40
    assert not empty, "queries without data:\n" + "\n".join(empty)
    # Fleet-wide figures count both switches.
    assert _query(url, "count(alphad_scheme_info)")[0]["value"][1] == "2"
