"""The operator's alphas are the baseline: each queue keeps its profile's own
dynamic_th unless a class overrides it, and an override that lowers a threshold
needs ``allow_lower: true``. On a real redis-server with the shipped
config_db.json (lossy queues on ``dynamic_th 3``, alpha 8)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from alphad_vswitch import configdb
from test_sonic_backend import Switch

from alphad.backends.sonic import SonicBackend, SonicConfig
from alphad.baseline import check_overrides
from alphad.config import ConfigError, parse_config
from alphad.controller import build_classes
from alphad.loop import Daemon
from alphad.reconfig import ConfigStore, ConfigUpdateError

pytest_plugins = ["test_sonic_backend"]


def conf(cfg: SonicConfig, prios: str, scheme: str = "dt") -> str:
    return (f"interval: 100ms\nscheme: {scheme}\npriorities:\n{prios}"
            f"backend: {{type: sonic, redis: '{cfg.redis}', journal: '{cfg.journal}', "
            f"database_config: '{cfg.database_config}'}}\nmetrics: {{enabled: false}}\n"
            "api: {enabled: false}\n")


def buffers(switch: Switch) -> str:
    return configdb.dump(switch.config_db, ["BUFFER_*"])


NO_ALPHA = "  - {name: bulk, queues: [0, 1, 2]}\n  - {name: query, queues: [5, 6]}\n"


def test_config_alpha_is_optional_and_allow_lower_validated() -> None:
    c = parse_config("priorities:\n  - {name: a, queues: [0]}\nbackend: {type: sonic}\n")
    assert c.priorities[0].alpha is None and not c.priorities[0].allow_lower
    with pytest.raises(ConfigError) as e:
        parse_config("priorities:\n  - {name: a, queues: [0], alpha: 1, allow_lower: maybe}\n"
                     "backend: {type: sonic}\n")
    assert any(m.startswith("priorities[0].allow_lower:") for m in e.value.errors)


def test_without_alpha_every_queue_keeps_the_switch_alpha(switch: Switch, cfg: SonicConfig,
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    before = buffers(switch)
    be = SonicBackend(cfg)
    c = parse_config(conf(cfg, NO_ALPHA))
    with caplog.at_level(logging.INFO, logger="alphad"):
        d = Daemon(c, be)
    text = caplog.text
    assert "class bulk: 96 queues keep the switch's own alpha as baseline " \
           "(96 at 8 (dynamic_th 3))" in text
    assert np.all(d.controller.classes.alpha_q() == 8.0)
    assert d.controller.classes.alpha_p.tolist() == [8.0, 8.0]
    for _ in range(3):
        d.cycle()
    assert d.stats.writes == 0  # DT on the switch's own alphas: nothing to write
    assert buffers(switch) == before
    be.close()


def test_lowering_override_is_refused_naming_the_key(switch: Switch, cfg: SonicConfig) -> None:
    before = switch.dump()
    be = SonicBackend(cfg)
    c = parse_config(conf(cfg, "  - {name: bulk, queues: [0, 1, 2], alpha: 0.5}\n"
                               "  - {name: query, queues: [5, 6]}\n"))
    with pytest.raises(ValueError) as e:
        Daemon(c, be)
    msg = str(e.value)
    assert msg.startswith("priorities[0].alpha: 0.5 is below the switch's own alpha on 96 of "
                          "the 96 queues of 'bulk' (first Ethernet0:0;")
    assert "priorities[0].allow_lower: true" in msg
    assert switch.dump() == before  # nothing written
    be.close()


def test_allow_lower_applies_the_override_and_logs_from_what(switch: Switch, cfg: SonicConfig,
                                                             caplog: pytest.LogCaptureFixture
                                                             ) -> None:
    be = SonicBackend(cfg)
    c = parse_config(conf(cfg, "  - {name: bulk, queues: [0, 1, 2], alpha: 0.5, "
                               "allow_lower: true}\n  - {name: query, queues: [5, 6], "
                               "alpha: 16}\n"))
    with caplog.at_level(logging.INFO, logger="alphad"):
        d = Daemon(c, be)
    assert ("class bulk: alpha 0.5 (priorities[0].alpha) replaces the switch's own on 96 of "
            "96 queues (the switch has 96 at 8 (dynamic_th 3)); 96 lowered") in caplog.text
    assert "class query: alpha 16 (priorities[1].alpha) replaces the switch's own on 64 of " \
           "64 queues (the switch has 64 at 8 (dynamic_th 3)); 0 lowered" in caplog.text
    for _ in range(2):
        d.cycle()
    cdb = switch.config_db
    assert cdb.hget("BUFFER_PROFILE|alphad_Ethernet0_0", "dynamic_th") == "-1"
    assert cdb.hget("BUFFER_PROFILE|alphad_Ethernet0_5", "dynamic_th") == "4"
    be.restore()
    be.close()


def test_raising_override_needs_no_setting(switch: Switch, cfg: SonicConfig) -> None:
    be = SonicBackend(cfg)
    c = parse_config(conf(cfg, "  - {name: bulk, queues: [0, 1, 2], alpha: 8}\n"
                               "  - {name: query, queues: [5, 6], alpha: 32}\n"))
    assert check_overrides(c, be.topology(), np.exp2(be.original_k.astype(float))) == []
    be.close()


def test_per_queue_baseline_when_profiles_differ() -> None:
    from alphad.model import Topology

    topo = Topology(("E0", "E4"), np.array([1e9, 1e9]), np.array([0, 0, 1, 1], dtype=np.int32),
                    np.array([0, 1, 0, 1], dtype=np.int32), 1e6)
    own = np.array([8.0, 2.0, 0.5, 2.0])
    cl = build_classes(topo, [("a", [0], None, None), ("b", [1], 4.0, None)], None, own)
    assert cl.alpha_q().tolist() == [8.0, 4.0, 0.5, 4.0]
    assert cl.alpha_p.tolist() == [8.0, 4.0]
    with pytest.raises(ValueError, match=r"priorities\[0\]\.alpha: required"):
        build_classes(topo, [("a", [0], None, None)])


def test_api_change_that_lowers_is_refused(switch: Switch, cfg: SonicConfig,
                                           tmp_path: Path) -> None:
    be = SonicBackend(cfg)
    text = conf(cfg, "  - name: bulk\n    queues: [0, 1, 2]\n  - name: query\n"
                     "    queues: [5, 6]\n    alpha: 8\n")
    path = tmp_path / "alphad.yaml"
    path.write_text(text)
    d = Daemon(parse_config(text), be)
    store = ConfigStore(d, path)
    with pytest.raises(ConfigUpdateError) as e:
        store.update({"alphas": {"query": 2.0}})
    assert e.value.errors[0].startswith("alphas.query: 2 is below the switch's own alpha")
    out = store.update({"alphas": {"query": 16.0, "bulk": 16.0}})
    assert [p.alpha for p in out.config.priorities] == [16.0, 16.0]
    be.close()


def test_alphad_run_exits_2_on_a_lowering_config(switch: Switch, cfg: SonicConfig,
                                                 tmp_path: Path) -> None:
    before = switch.dump()
    yml = tmp_path / "alphad.yaml"
    yml.write_text(conf(cfg, "  - {name: bulk, queues: [0, 1, 2, 5, 6], alpha: 1}\n"))
    r = subprocess.run([sys.executable, "-m", "alphad.cli", "run", "-c", str(yml),
                        "--duration", "1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "priorities[0].alpha: 1 is below the switch's own alpha" in r.stderr
    assert "priorities[0].allow_lower: true" in r.stderr
    assert switch.dump() == before


def test_same_rule_on_the_virtual_asic() -> None:
    """vasic/sai: the default scenario's queues are on dynamic_th -1 (alpha 0.5)."""
    from alphad.backends.sai import VasicBackend

    scn = Path(__file__).resolve().parents[2] / "configs" / "scenarios" / "default.scn"
    be = VasicBackend(scn, clock="manual")
    try:
        base = (f"interval: 10ms\nscheme: dt\nbackend: {{type: vasic, scenario: '{scn}'}}\n"
                "metrics: {enabled: false}\npriorities:\n")
        with pytest.raises(ValueError, match=r"^priorities\[0\]\.alpha: 0\.25 is below"):
            Daemon(parse_config(base + "  - {name: a, queues: [0, 1, 2, 3, 4, 5, 6, 7], "
                                       "alpha: 0.25}\n"), be)
        d = Daemon(parse_config(base + "  - {name: a, queues: [0, 1, 2, 3, 4, 5, 6, 7]}\n"), be)
        assert np.all(d.controller.classes.alpha_q() == 0.5)
    finally:
        be.close()


def test_a_hardware_range_below_the_switch_alphas_is_refused(switch: Switch,
                                                            cfg: SonicConfig) -> None:
    """quantize.kmax 2 would clamp the switch's dynamic_th 3 to 2: lowering too."""
    be = SonicBackend(cfg)
    base = conf(cfg, NO_ALPHA).replace("interval: 100ms", "interval: 100ms\n"
                                       "quantize: {kmin: -6, kmax: 2}")
    with pytest.raises(ValueError) as e:
        Daemon(parse_config(base), be)
    assert str(e.value).startswith("quantize.kmax: 2 is below the switch's own dynamic_th 3 "
                                   "on 96 of the 96 queues of 'bulk' (first Ethernet0:0)")
    assert "raise quantize.kmax to 3" in str(e.value)
    ok = base.replace("{name: bulk, queues: [0, 1, 2]}",
                      "{name: bulk, queues: [0, 1, 2], allow_lower: true}").replace(
        "{name: query, queues: [5, 6]}", "{name: query, queues: [5, 6], allow_lower: true}")
    Daemon(parse_config(ok), be)
    be.close()
