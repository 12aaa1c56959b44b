# ruff: noqa: F811 - fixtures imported from test_sonic_backend are parameters of the tests
"""SONiC-native configuration: the sonic-alphad YANG model (pyang and libyang), CONFIG_DB
ALPHAD|global / ALPHAD_CLASS overriding the YAML settings at the next interval, refusals
with a STATE_DB status, STATE_DB ALPHAD_STATE|global, and the package manifest. On a
real redis-server with the shipped config_db.json."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from test_sonic_backend import Switch, cfg, server, switch  # noqa: F401 - fixtures

from alphad.backends.sonic import SonicBackend, SonicConfig
from alphad.config import parse_config
from alphad.loop import Daemon

ROOT = Path(__file__).resolve().parents[2]
YANG = ROOT / "sonic" / "yang" / "sonic-alphad.yang"
MANIFEST = ROOT / "sonic" / "manifest.json"


def daemon(cfg: SonicConfig, notifications: bool, server) -> tuple[Daemon, SonicBackend]:  # type: ignore[no-untyped-def]
    server.client(4).config_set("notify-keyspace-events", "AKE" if notifications else "")
    be = SonicBackend(cfg)
    conf = parse_config(
        "interval: 100ms\nscheme: dt\nquantize: {kmin: -7, kmax: 5}\npriorities:\n"
        "  - {name: bulk, queues: [0, 1, 2]}\n  - {name: query, queues: [5, 6]}\n"
        f"backend: {{type: sonic, redis: '{cfg.redis}'}}\nmetrics: {{enabled: false}}\n")
    return Daemon(conf, be), be


def state(sw: Switch) -> dict[str, str]:
    return sw.state_db.hgetall("ALPHAD_STATE|global")


# -- YANG --------------------------------------------------------------------------------

def test_yang_model_passes_pyang() -> None:
    r = subprocess.run([sys.executable, "-m", "pyang", "--strict", "-Wall", "-f", "tree",
                        str(YANG)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    for leaf in ("enabled?    boolean", "interval?   uint32", "scheme?     string",
                 "ALPHAD_CLASS_LIST* [name]", "alpha?         decimal64"):
        assert leaf in r.stdout


def test_yang_descriptions_fit_the_cli_generator() -> None:
    """sonic-cli-gen puts each description into a one-line Python string of the plugin it
    generates (help="..."): a description over two lines makes a plugin that does not
    compile."""
    import re

    text = YANG.read_text()
    descs = re.findall(r'description\s+"([^"]*)"', text)
    assert len(descs) >= 10
    assert [d for d in descs if "\n" in d] == []


def test_yang_model_validates_config_db_data_with_libyang() -> None:
    libyang = pytest.importorskip("libyang", reason="the test extra installs libyang")
    ctx = libyang.Context(str(YANG.parent))
    mod = ctx.load_module("sonic-alphad")
    good = {"sonic-alphad:sonic-alphad": {
        "ALPHAD": {"global": {"enabled": True, "interval": 100, "scheme": "auto"}},
        "ALPHAD_CLASS": {"ALPHAD_CLASS_LIST": [{"name": "bulk", "alpha": "0.5"},
                                               {"name": "query", "allow_lower": True}]}}}
    data = ctx.parse_data_mem(json.dumps(good), "json", validate_present=True, strict=True)
    assert data is not None
    data.free()
    for bad in ({"interval": 0}, {"scheme": "Auto!"}, {"enabled": "yes"}):
        doc = {"sonic-alphad:sonic-alphad": {"ALPHAD": {"global": bad}}}
        with pytest.raises(libyang.LibyangError):
            ctx.parse_data_mem(json.dumps(doc), "json", strict=True).free()
    doc = {"sonic-alphad:sonic-alphad": {"ALPHAD_CLASS": {"ALPHAD_CLASS_LIST": [
        {"name": "bulk", "alpha": "256"}]}}}
    with pytest.raises(libyang.LibyangError):
        ctx.parse_data_mem(json.dumps(doc), "json", strict=True).free()
    assert mod.name() == "sonic-alphad"
    ctx.destroy()


def test_manifest_declares_the_yang_module_and_the_generated_cli() -> None:
    m = json.loads(MANIFEST.read_text())
    assert m["package"]["name"] == "alphad"
    cli = m["cli"]
    assert cli["auto-generate-show"] is True and cli["auto-generate-config"] is True
    assert cli["auto-generate-show-source-yang-modules"] == ["sonic-alphad"]
    assert cli["auto-generate-config-source-yang-modules"] == ["sonic-alphad"]
    assert {"source": "/var/run/redis", "target": "/var/run/redis", "type": "bind"} in \
        m["container"]["mounts"]


# -- CONFIG_DB overrides -----------------------------------------------------------------

@pytest.mark.parametrize("notifications", [True, False])
def test_config_db_overrides_yaml_at_the_next_interval(switch: Switch, cfg: SonicConfig,
                                                       server, notifications: bool) -> None:  # type: ignore[no-untyped-def]
    d, be = daemon(cfg, notifications, server)
    d.cycle()
    d.cycle()  # published at the sample of a cycle: the previous one's time
    st = state(switch)
    assert st["scheme"] == "dt" and st["interval"] == "100" and st["config_source"] == "yaml"
    assert st["queues_managed"] == "160" and st["failsafe"] == "false"
    assert st["config_status"] == "ok" and float(st["last_cycle"]) > 0
    switch.config_db.hset("ALPHAD|global", mapping={"interval": "200", "scheme": "abm"})
    switch.config_db.hset("ALPHAD_CLASS|query", mapping={"alpha": "16"})
    d.cycle()  # read during this interval ...
    d.cycle()  # ... in effect from the next one
    assert d.interval == 0.2 and d.controller.scheme_name == "abm"
    assert d.controller.classes.alpha_p.tolist() == [8.0, 16.0]
    st = state(switch)
    assert (st["scheme"], st["interval"], st["config_source"]) == ("abm", "200", "config_db")
    # removed from CONFIG_DB: the YAML values again
    switch.config_db.delete("ALPHAD|global", "ALPHAD_CLASS|query")
    d.cycle()
    d.cycle()
    assert d.interval == 0.1 and d.controller.scheme_name == "dt"
    assert d.controller.classes.alpha_p.tolist() == [8.0, 8.0]
    assert state(switch)["config_source"] == "yaml"
    be.restore()
    be.close()


def test_invalid_values_are_refused_and_the_previous_kept(switch: Switch, cfg: SonicConfig,
                                                          server,  # type: ignore[no-untyped-def]
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    d, be = daemon(cfg, True, server)
    switch.config_db.hset("ALPHAD|global", mapping={"interval": "250"})
    d.cycle()
    d.cycle()
    assert d.interval == 0.25
    cases = [
        ({"interval": "fast"}, {}, "ALPHAD|global interval: 'fast' is not a number of "
                                   "milliseconds"),
        ({"scheme": "nosuch"}, {}, "ALPHAD|global scheme: unknown scheme 'nosuch'"),
        ({"enabled": "maybe"}, {}, "ALPHAD|global enabled: 'maybe' is not true or false"),
        ({}, {"ghost": {"alpha": "1"}}, "ALPHAD_CLASS|ghost: no class named 'ghost'"),
        ({}, {"bulk": {"alpha": "64"}}, "ALPHAD_CLASS|bulk alpha: 64 is outside [0.0078125, 32]"),
        ({}, {"bulk": {"alpha": "0.5"}}, "priorities[0].allow_lower: true"),
    ]
    for glob, classes, msg in cases:
        switch.config_db.delete("ALPHAD|global")
        for k in list(switch.config_db.scan_iter(match="ALPHAD_CLASS|*")):
            switch.config_db.delete(k)
        if glob:
            switch.config_db.hset("ALPHAD|global", mapping=glob)
        for name, f in classes.items():
            switch.config_db.hset(f"ALPHAD_CLASS|{name}", mapping=f)
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="alphad.sonic"):
            d.cycle()
            d.cycle()
        assert d.interval == 0.25, msg  # the previous configuration stays
        status = state(switch)["config_status"]
        assert status.startswith("invalid: ") and msg in status, status
        assert msg in caplog.text and "previous configuration stays in effect" in caplog.text
    # allowed with allow_lower
    switch.config_db.hset("ALPHAD_CLASS|bulk", mapping={"alpha": "0.5", "allow_lower": "true"})
    d.cycle()
    d.cycle()
    assert d.controller.classes.alpha_p.tolist()[0] == 0.5
    assert state(switch)["config_status"] == "ok"
    be.restore()
    be.close()


def test_enabled_false_holds_the_switch_alphas(switch: Switch, cfg: SonicConfig,
                                               server) -> None:  # type: ignore[no-untyped-def]
    d, be = daemon(cfg, True, server)
    switch.config_db.hset("ALPHAD_CLASS|bulk", mapping={"alpha": "0.5", "allow_lower": "true"})
    for _ in range(4):
        d.cycle()
    k = switch.config_db.hget("BUFFER_PROFILE|alphad_Ethernet0_0", "dynamic_th")
    assert k == "-1"
    switch.config_db.hset("ALPHAD|global", mapping={"enabled": "false"})
    for _ in range(4):
        d.cycle()
    assert d.controller.scheme_name == "dt"
    assert switch.config_db.hget("BUFFER_PROFILE|alphad_Ethernet0_0", "dynamic_th") == "3"
    be.restore()
    be.close()


def test_alphad_run_follows_config_db_and_publishes_its_state(switch: Switch, server,  # type: ignore[no-untyped-def]
                                                              tmp_path: Path) -> None:
    from _fault_support import alphad, stop, wait_running, wait_until

    server.client(4).config_set("notify-keyspace-events", "AKE")  # as SONiC's redis.conf
    yml = tmp_path / "alphad.yaml"
    yml.write_text(
        "interval: 100ms\nscheme: dt\npriorities:\n  - {name: bulk, queues: [0, 1, 2]}\n"
        f"backend:\n  type: sonic\n  redis: '{server.address}'\n"
        f"  database_config: {tmp_path}/absent.json\n  journal: {tmp_path}/state/j.json\n"
        f"metrics: {{enabled: false}}\napi: {{enabled: false}}\nlock_dir: {tmp_path}/locks\n")
    p = alphad("run", "-c", str(yml), "--no-view", "--no-summary")
    wait_running(p)
    wait_until(lambda: state(switch).get("interval") == "100", 10, "ALPHAD_STATE")
    assert state(switch)["queues_managed"] == "96"
    switch.config_db.hset("ALPHAD|global", mapping={"interval": "200", "scheme": "abm"})
    wait_until(lambda: state(switch).get("interval") == "200", 10, "the new interval")
    assert state(switch)["scheme"] == "abm"
    switch.config_db.hset("ALPHAD|global", "interval", "0")
    wait_until(lambda: state(switch).get("config_status", "").startswith("invalid"), 10,
               "the refusal")
    assert state(switch)["interval"] == "200"
    rc, err, _ = stop(p)
    assert rc == 128 + 15
    assert "ALPHAD|global interval: '0' is not a number of milliseconds" in err
