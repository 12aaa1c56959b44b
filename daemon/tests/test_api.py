"""HTTP API against a real daemon on the virtual ASIC (manual clock, in process)."""

from __future__ import annotations

import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
import pytest
from _obs_support import TOKEN, write_config
from fastapi.testclient import TestClient

from alphad.api import ApiServer, create_app
from alphad.backends.sai import VasicBackend
from alphad.config import load_config
from alphad.history import History
from alphad.loop import Daemon
from alphad.metrics import Metrics
from alphad.reconfig import ConfigStore, ConfigUpdateError, edit_yaml

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class Rig:
    daemon: Daemon
    backend: VasicBackend
    store: ConfigStore
    history: History
    metrics: Metrics
    client: TestClient
    path: Path

    def cycles(self, n: int) -> None:
        for _ in range(n):
            self.backend.advance(self.daemon.interval)
            self.daemon.cycle()


def _rig(tmp: Path, token: str | None = TOKEN) -> Iterator[Rig]:
    path = write_config(tmp)
    cfg = load_config(path)
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    try:
        m = Metrics()
        d = Daemon(cfg, be, m)
        h = History(min_step=0.0)
        d.on_cycle = h
        store = ConfigStore(d, path)
        app = create_app(d, store, m, h, token)
        with TestClient(app) as client:
            yield Rig(d, be, store, h, m, client, path)
    finally:
        be.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from _rig(tmp_path)


def test_health_and_readiness(rig: Rig) -> None:
    c = rig.client
    assert c.get("/healthz").status_code == 200  # starting: within the grace period
    r = c.get("/readyz")
    assert r.status_code == 503 and "no decision yet" in r.json()["reasons"]
    rig.cycles(2)
    assert c.get("/healthz").json()["status"] == "ok"
    assert c.get("/readyz").json() == {"ready": True, "reasons": []}
    rig.daemon.set_failsafe(True, "telemetry lost")
    r = c.get("/readyz")
    assert r.status_code == 503 and r.json()["reasons"] == ["fail-safe: telemetry lost"]
    rig.daemon.last_cycle = time.monotonic() - 60  # a stuck loop
    assert c.get("/healthz").status_code == 503


def test_state_is_the_current_snapshot(rig: Rig) -> None:
    rig.cycles(20)
    st = rig.client.get("/v1/state").json()
    s = rig.daemon.snapshot
    assert s is not None
    assert st["scheme"] == "abm" and st["interval"] == pytest.approx(0.001)
    assert st["stats"]["intervals"] == 20 and st["stats"]["writes"] == rig.daemon.stats.writes
    assert len(st["queues"]) == 128 and len(st["ports"]) == 16
    q = st["queues"][rig.daemon.topo.find("Ethernet32", 3)]
    i = rig.daemon.topo.find("Ethernet32", 3)
    assert (q["port"], q["queue"], q["priority"]) == ("Ethernet32", 3, "query")
    assert q["alpha"] == s.sample.alpha[i] and q["watermark_bytes"] == s.sample.watermark[i]
    assert q["threshold_bytes"] == pytest.approx(s.threshold[i])
    assert q["log2_alpha"] == np.log2(s.sample.alpha[i])
    # Greedy queues of port 0 are full and dropping: the state says so.
    q0 = st["queues"][0]
    assert q0["watermark_bytes"] > 0 and q0["dropped_bytes"] > 0
    assert st["ports"][0]["dropped_bytes"] == pytest.approx(s.drops_total[:8].sum())
    assert [p["name"] for p in st["priorities"]] == ["bulk", "query"]
    assert st["priorities"][0]["n_p"] >= 1
    assert st["pool"]["size_bytes"] == rig.daemon.topo.buffer_bytes
    assert st["history"]["t"] and len(st["history"]["t"]) == 20


def test_one_queue_with_history(rig: Rig) -> None:
    rig.cycles(10)
    r = rig.client.get("/v1/queues/Ethernet0/1")
    assert r.status_code == 200
    q = r.json()
    assert q["port"] == "Ethernet0" and q["queue"] == 1 and q["priority"] == "bulk"
    s = rig.daemon.snapshot
    assert s is not None
    assert q["alpha"] == s.sample.alpha[1] and q["log2_alpha"] == np.log2(q["alpha"])
    assert q["watermark_bytes"] == s.sample.watermark[1] and q["gamma"] == s.gamma[1]
    assert q == {**rig.client.get("/v1/state").json()["queues"][1],
                 "switch": "switch", "t": s.sample.t, "history": q["history"]}
    h = q["history"]
    assert len(h["t"]) == 10 and len(h["alpha"]) == 10
    assert h["t"] == sorted(h["t"]) and max(h["watermark_bytes"]) > 0
    assert rig.client.get("/v1/queues/Ethernet2/1").status_code == 404
    r = rig.client.get("/v1/queues/Ethernet0/9")
    assert r.status_code == 404 and "no queue 9" in r.json()["detail"]
    assert rig.client.get("/v1/queues/Ethernet0/x").status_code == 422


def test_writes_need_the_token(rig: Rig) -> None:
    body = {"interval": "2ms"}
    r = rig.client.put("/v1/config", json=body)
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    r = rig.client.put("/v1/config", json=body, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401
    r = rig.client.put("/v1/config", json=body, headers={"Authorization": f"Basic {TOKEN}"})
    assert r.status_code == 401
    assert rig.daemon._pending is None  # nothing reached the loop


def test_writes_disabled_without_a_token(tmp_path: Path) -> None:
    for r in _rig(tmp_path, token=None):
        resp = r.client.put("/v1/config", json={"interval": "2ms"}, headers=AUTH)
        assert resp.status_code == 403 and "api.token" in resp.json()["detail"]
        assert r.client.get("/v1/config").json()["writable"] is False


def test_put_config_applies_at_the_next_interval(rig: Rig) -> None:
    rig.cycles(3)
    before = rig.path.read_text()
    r = rig.client.put("/v1/config", json={"interval": "2ms", "alphas": {"query": 2}},
                       headers=AUTH)
    assert r.status_code == 202, r.text  # no loop thread here: pending until the next cycle
    assert r.json()["config"]["alphas"] == {"bulk": 0.5, "query": 2.0}
    assert r.json()["persisted"] is False
    assert rig.daemon.interval == pytest.approx(0.001)  # not yet
    old_ctrl = rig.daemon.controller
    rig.cycles(1)
    d = rig.daemon
    assert d.interval == pytest.approx(0.002) and d.controller is not old_ctrl
    assert d.controller.classes.alpha_p.tolist() == [0.5, 2.0]
    assert d.controller.last is not None and d.controller.last.est is not None  # primed
    assert rig.path.read_text() == before  # not persisted
    assert rig.client.get("/v1/config").json()["config"]["interval"] == pytest.approx(0.002)
    scrape = rig.client.get("/metrics").text
    assert 'alphad_interval_seconds{switch="switch"} 0.002' in scrape
    assert 'alphad_priority_alpha{priority="query",switch="switch"} 2.0' in scrape
    assert 'alphad_config_reloads_total{result="applied",source="api",switch="switch"} 1.0' \
        in scrape
    r = rig.client.put("/v1/config", json={"scheme": "dt"}, headers=AUTH)
    rig.cycles(1)
    assert rig.daemon.controller.scheme_name == "dt"
    assert rig.client.get("/v1/state").json()["scheme"] == "dt"


def test_put_config_persist_keeps_comments_and_is_atomic(rig: Rig) -> None:
    rig.path.chmod(0o640)
    r = rig.client.put("/v1/config?persist=true",
                       json={"interval": 0.004, "scheme": "fb", "alphas": {"bulk": 1.0}},
                       headers=AUTH)
    assert r.status_code in (200, 202) and r.json()["persisted"] is True
    text = rig.path.read_text()
    assert "interval: 0.004   # control interval" in text
    assert "scheme: fb            # dt | abm | fb" in text
    assert "alpha: 1.0         # alpha_p of bulk" in text
    assert "alpha: 0.5         # alpha_p of query" in text
    cfg = load_config(rig.path)
    assert (cfg.interval, cfg.scheme) == (0.004, "fb")
    assert [p.alpha for p in cfg.priorities] == [1.0, 0.5]
    assert stat.S_IMODE(rig.path.stat().st_mode) == 0o640
    assert [p.name for p in rig.path.parent.iterdir()] == [rig.path.name]  # no temp left
    # A key absent from the file is appended.
    r = rig.client.put("/v1/config?persist=true", json={"scheme_params": {}}, headers=AUTH)
    assert r.status_code in (200, 202), r.text
    assert load_config(rig.path).scheme_params == {}


def test_put_config_errors_name_the_field(rig: Rig) -> None:
    before = rig.path.read_text()

    def errors(body: object, persist: bool = True) -> list[str]:
        r = rig.client.put(f"/v1/config?persist={str(persist).lower()}", json=body,
                           headers=AUTH)
        assert r.status_code == 422, r.text
        return r.json()["errors"]  # type: ignore[no-any-return]

    assert errors({"alphas": {"qry": 2}}) == [
        "alphas.qry: no priority named 'qry' (known: bulk, query)"]
    e = errors({"alphas": {"query": 1000}})
    assert len(e) == 1 and e[0].startswith("alphas.query: 1000 is outside the hardware range")
    assert errors({"interval": "fast"})[0].startswith("interval: 'fast' is not a duration")
    assert errors({"interval": 7200})[0].startswith("interval:")
    assert errors({"scheme": "red"})[0].startswith("scheme: unknown scheme 'red'")
    assert errors({"scheme_params": {"nope": 1}}) == [
        "scheme_params: scheme abm takes no parameters (got nope)"]
    assert errors({"backend": {"type": "sai"}}) == ["backend: unknown key"]
    assert errors({"alphas": {"bulk": "lots"}})[0].startswith("alphas.bulk:")
    assert errors({}) == ["nothing to change"]
    both = errors({"interval": "-1ms", "alphas": {"x": 1}})
    assert both[0].startswith("alphas.x:") and both[1].startswith("interval:")
    assert rig.path.read_text() == before and rig.daemon._pending is None
    scrape = rig.client.get("/metrics").text
    assert 'alphad_config_reloads_total{result="rejected",source="api",switch="switch"} 7.0' \
        in scrape


def test_openapi_schema_and_metrics_endpoint(rig: Rig) -> None:
    rig.cycles(2)
    o = rig.client.get("/openapi.json").json()
    for path in ("/healthz", "/readyz", "/v1/state", "/v1/queues/{port}/{queue}",
                 "/v1/config", "/metrics"):
        assert path in o["paths"], path
    put = o["paths"]["/v1/config"]["put"]
    assert put["security"] == [{"HTTPBearer": []}]
    assert {"401", "403", "422"} <= set(put["responses"])
    assert "ConfigUpdate" in o["components"]["schemas"]
    assert rig.client.get("/docs").status_code == 404  # Swagger UI would load a CDN
    r = rig.client.get("/metrics")
    assert r.headers["content-type"].startswith("text/plain")
    assert 'alphad_queue_alpha{port="Ethernet0",priority="bulk",queue="0",switch="switch"}' \
        in r.text


def test_server_thread_binds_loopback_by_default(tmp_path: Path) -> None:
    path = write_config(tmp_path, api=f"token: {TOKEN}")
    cfg = load_config(path)
    assert cfg.api.listen == "127.0.0.1:9465"  # the default, off sonic-gnmi's 8080
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    try:
        d = Daemon(cfg, be, Metrics())
        srv = ApiServer(create_app(d), cfg.api.host_port[0], 0)
        srv.start()
        try:
            assert srv.host == "127.0.0.1" and srv.port > 0
            assert httpx.get(f"{srv.url}/healthz", timeout=5).status_code == 200
            assert "<title>alphad" in httpx.get(f"{srv.url}/", timeout=5).text
            js = httpx.get(f"{srv.url}/static/app.js", timeout=5)
            assert js.status_code == 200 and "/v1/state" in js.text
        finally:
            srv.stop()
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{srv.url}/healthz", timeout=1)
        busy = ApiServer(create_app(d), "127.0.0.1", 0)
        busy.start()
        with pytest.raises(OSError):
            ApiServer(create_app(d), "127.0.0.1", busy.port)
        busy.stop()
    finally:
        be.close()



def test_edit_yaml_keeps_anchors_tags_and_comments() -> None:
    text = ("interval: &iv 100ms   # flex counters poll at this rate\n"
            "scheme: !!str abm\n"
            "priorities:\n"
            "  - {name: a, queues: [0], alpha: 0.5}   # flow style\n"
            "backend: {type: x, poll_interval: *iv}\n")
    out = edit_yaml(text, {"interval": "200ms", "scheme": "fb", "alphas": {"a": 0.25}})
    assert out == ("interval: &iv 200ms   # flex counters poll at this rate\n"
                   "scheme: !!str fb\n"
                   "priorities:\n"
                   "  - {name: a, queues: [0], alpha: 0.25}   # flow style\n"
                   "backend: {type: x, poll_interval: *iv}\n")
    shared = "priorities:\n  - {name: a, alpha: &x 0.5}\n  - {name: b, alpha: *x}\n"
    with pytest.raises(ConfigUpdateError, match="YAML alias"):
        edit_yaml(shared, {"alphas": {"a": 1.0, "b": 2.0}})
    with pytest.raises(ConfigUpdateError, match="no priority named 'c'"):
        edit_yaml(shared, {"alphas": {"c": 1.0}})


def test_put_refuses_a_change_hidden_by_an_alias(rig: Rig) -> None:
    text = rig.path.read_text().replace("alpha: 0.5         # alpha_p of bulk", "alpha: &a 0.5")
    rig.path.write_text(text.replace("alpha: 0.5         # alpha_p of query", "alpha: *a"))
    rig.store.text = rig.path.read_text()
    r = rig.client.put("/v1/config", json={"alphas": {"query": 2}}, headers=AUTH)
    assert r.status_code == 422
    assert r.json()["errors"] == ["alphas.bulk: cannot be changed in place in this file "
                                  "(YAML alias or merge key); edit the file and send SIGHUP "
                                  "instead"]
