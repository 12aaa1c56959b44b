"""Every bad configuration gets one clear message naming the field."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from alphad.cli import main
from alphad.config import ConfigError, parse_config

SCN = "switch ports=2 queues=8\n"


def cfg_text(body: str) -> str:
    return textwrap.dedent(body)


GOOD = """
interval: 10ms
scheme: abm
priorities:
  - {name: bulk, queues: [0, 1, 2], alpha: 0.5}
  - {name: query, queues: [3], alpha: 2, group: hi}
backend: {type: vasic, scenario: s.scn, clock: manual}
"""


@pytest.fixture
def base(tmp_path: Path) -> Path:
    (tmp_path / "s.scn").write_text(SCN)
    return tmp_path


def parse(text: str, base: Path):  # type: ignore[no-untyped-def]
    return parse_config(cfg_text(text), "test.yaml", base)


def test_good_config(base: Path) -> None:
    c = parse(GOOD, base)
    assert c.interval == pytest.approx(0.01)
    assert c.priorities[1].group == "hi"
    assert c.backend.scenario == base / "s.scn"  # relative to the config file
    assert c.quantize.kmin == -8 and c.quantize.kmax == 7


def test_scheme_defaults_to_auto18(base: Path) -> None:
    """Without `scheme`, the candidate that leads on the evaluation half (not abm)."""
    text = GOOD.replace("scheme: abm\n", "")
    assert "scheme" not in text
    assert parse(text, base).scheme == "auto18"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("scheme: abm", "scheme: magic"), "scheme: unknown scheme 'magic' (known:"),
        (("interval: 10ms", "interval: fast"), "interval: 'fast' is not a duration"),
        (("interval: 10ms", "interval: -1"), "interval: must be a positive duration"),
        (("alpha: 0.5}", "alpha: -1}"), "priorities[0].alpha: Input should be greater than 0"),
        (("alpha: 0.5}", "alpha: 1000}"), "priorities[0].alpha: 1000 is outside the hardware "
                                           "range [2^-8, 2^7]"),
        (("queues: [3]", "queues: [2]"), "priorities[1].queues: queue 2 already belongs to 'bulk'"),
        (("name: query", "name: bulk"), "priorities: name 'bulk' used twice"),
        (("interval: 10ms", "interval: 10ms\nintervall: 1s"), "intervall: unknown key"),
        (("clock: manual", "clock: fast"), "backend.clock: Input should be 'realtime' or 'manual'"),
        (("type: vasic", "type: warp"), "backend.type: unknown backend type 'warp'"),
        (("s.scn", "missing.scn"), "backend.scenario: Value error, file not found"),
        (("scheme: abm", "scheme: abm\nquantize: {kmin: 3, kmax: 1}"),
         "quantize: Value error, kmin (3) must be <= kmax (1)"),
        (("scheme: abm", "scheme: abm\nquantize: {kmax: 9}"),
         "quantize.kmax: Input should be less than or equal to 7"),
    ],
)
def test_bad_field_named(base: Path, edit: tuple[str, str], expected: str) -> None:
    text = GOOD.replace(*edit, 1)
    with pytest.raises(ConfigError) as ei:
        parse(text, base)
    rendered = ei.value.render()
    assert expected.replace("Value error, ", "") in rendered, rendered


def test_yaml_syntax_error_has_line(base: Path) -> None:
    with pytest.raises(ConfigError) as ei:
        parse("interval: 10ms\npriorities: [\n", base)
    assert "line 3" in ei.value.render()


def test_duplicate_key_rejected(base: Path) -> None:
    with pytest.raises(ConfigError) as ei:
        parse(GOOD + "scheme: dt\n", base)
    assert "duplicate key 'scheme'" in ei.value.render()


def test_empty_and_non_mapping(base: Path) -> None:
    for text, msg in [("", "empty"), ("- a\n- b\n", "top level must be a mapping")]:
        with pytest.raises(ConfigError) as ei:
            parse(text, base)
        assert msg in ei.value.render()


def test_missing_backend_and_priorities(base: Path) -> None:
    with pytest.raises(ConfigError) as ei:
        parse("interval: 1s\n", base)
    r = ei.value.render()
    assert "priorities: required key is missing" in r
    assert "backend: required key is missing" in r


def test_check_config_cli(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = base / "good.yaml"
    good.write_text(cfg_text(GOOD))
    assert main(["check-config", "-c", str(good)]) == 0
    assert "OK" in capsys.readouterr().out
    bad = base / "bad.yaml"
    bad.write_text(cfg_text(GOOD).replace("scheme: abm", "scheme: abm\nscheme_params: {x: 1}"))
    assert main(["check-config", "-c", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "scheme_params:" in err and "Traceback" not in err
    assert main(["check-config", "-c", str(base / "nope.yaml")]) == 2
    assert "config file not found" in capsys.readouterr().err


# registered by alphad.schemes.superseded
CANDIDATES = ("auto", "auto4", "auto9", "auto20", "auto21", "auto22", "auto23", "auto24",
              "auto25", "auto26", "auto27", "auto28", "auto29", "auto30", "auto31",
              "auto32", "auto33")


@pytest.mark.parametrize("scheme", CANDIDATES)
def test_the_daemon_refuses_a_candidate(base: Path, scheme: str) -> None:
    """A daemon process (which never imports alphad.schemes.superseded) does not run the
    candidates the evaluation keeps; the message lists what it runs."""
    cfg = base / "c.yaml"
    cfg.write_text(cfg_text(GOOD).replace("scheme: abm", f"scheme: {scheme}"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, "-m", "alphad.cli", "check-config", "-c", str(cfg)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"scheme: unknown scheme '{scheme}' (known: " in r.stderr, r.stderr
    offered = r.stderr.split("(known: ", 1)[1].split(")", 1)[0].split(", ")
    assert "auto18" in offered and not set(CANDIDATES) & set(offered)
    assert "Traceback" not in r.stderr
    ok = base / "ok.yaml"
    ok.write_text(cfg_text(GOOD).replace("scheme: abm", "scheme: auto18"))
    r = subprocess.run([sys.executable, "-m", "alphad.cli", "check-config", "-c", str(ok)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
