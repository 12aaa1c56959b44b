"""The container packaging: the SONiC Application Extension manifest and YANG module that
`make image` puts in the image's labels, and the compose file's wiring of the services to
SONiC's Redis socket."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def manifest() -> dict:  # type: ignore[type-arg]
    """sonic/manifest.json, which `make image` writes into the image's label (the image's
    labels are checked against it by container/tests)."""
    assert "module sonic-alphad" in (ROOT / "sonic" / "yang" / "sonic-alphad.yang").read_text()
    return json.loads((ROOT / "sonic" / "manifest.json").read_text())  # type: ignore[no-any-return]


def test_manifest_names_service_dependencies_and_redis_mount() -> None:
    m = manifest()
    assert m["version"] == "1.0.0"
    assert m["package"]["name"] == "alphad" and re.match(r"^\d+\.\d+\.\d+$",
                                                          m["package"]["version"])
    s = m["service"]
    assert s["name"] == "alphad"
    assert {"database", "swss"} <= set(s["requires"]) and "swss" in s["after"]
    mounts = {(x["source"], x["target"]) for x in m["container"]["mounts"]}
    assert ("/var/run/redis", "/var/run/redis") in mounts
    assert "/var/lib/alphad:/var/lib/alphad:rw" in m["container"]["volumes"]
    assert m["container"]["privileged"] is False
    cli = m["cli"]  # `show alphad` and `config alphad` generated from the YANG module
    assert cli["auto-generate-show"] and cli["auto-generate-config"]
    assert cli["auto-generate-show-source-yang-modules"] == ["sonic-alphad"]


def test_dockerfile_is_multi_stage_and_runs_the_sonic_config() -> None:
    text = (ROOT / "Dockerfile").read_text()
    froms = re.findall(r"^FROM (\S+)(?: AS (\S+))?", text, re.M)
    assert len(froms) == 2 and froms[0][1] == "build"
    assert "COPY --from=build" in text
    cmd = re.search(r"^CMD (\[.*\])$", text, re.M)
    assert cmd and json.loads(cmd.group(1))[-3:] == ["-c", "/etc/alphad/alphad-sonic.yaml",
                                                    "--no-view"]
    assert (ROOT / "configs" / "sonic" / "alphad-sonic.yaml").exists()


def test_compose_services_share_the_redis_socket() -> None:
    c = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    svc = c["services"]
    assert set(svc) >= {"redis", "vswitch", "alphad", "prometheus", "grafana"}
    for name in ("redis", "vswitch", "alphad"):
        assert "redis-run:/var/run/redis" in svc[name]["volumes"], name
    assert svc["vswitch"]["image"] == svc["alphad"]["image"] == "alphad:latest"
    assert "./dashboards/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in \
        svc["prometheus"]["volumes"]
    assert "./dashboards/provisioning:/etc/grafana/provisioning:ro" in svc["grafana"]["volumes"]
    # every file the mounted configuration refers to is mounted too
    prom = yaml.safe_load((ROOT / "dashboards" / "prometheus.yml").read_text())
    for rule in prom.get("rule_files", []):
        assert f"./dashboards/{rule}:/etc/prometheus/{rule}:ro" in svc["prometheus"]["volumes"]
    assert any("alphad:9464" in t for job in prom["scrape_configs"]
               for sc in job.get("static_configs", []) for t in sc["targets"])
    sock = svc["redis"]["command"][svc["redis"]["command"].index("--unixsocket") + 1]
    assert sock == "/var/run/redis/redis.sock"
