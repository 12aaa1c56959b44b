"""The backend convention: every registered module exports its config models, its
opener and its switch identity; the example of docs/writing-a-backend.md, registered
by one line, runs under `alphad check-config` and `alphad run`."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from alphad import backends, cli
from alphad.config import ConfigError, parse_config

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-a-backend.md"


def test_every_registered_module_follows_the_convention() -> None:
    for t, name in backends.BACKENDS.items():
        mod = importlib.import_module(name)
        assert t in mod.CONFIGS, name
        assert callable(mod.open_backend) and callable(mod.switch_identity), name


def test_config_of_gnmi_validates_without_grpc() -> None:
    """The gnmi model imports no gRPC: check-config works without the extra."""
    code = ("import sys; sys.modules['grpc'] = None\n"
            "from alphad.config import ConfigError, parse_config\n"
            "c = parse_config(\"priorities: [{name: a, queues: [0], alpha: 1}]\\n"
            "backend: {type: gnmi, address: 'h:1'}\\n\", 't')\n"
            "print(c.backend.address)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0 and r.stdout.strip() == "h:1", r.stderr


@pytest.fixture
def acme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[0]
    (tmp_path / "acme_backend.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(backends.BACKENDS, "acme", "acme_backend")
    monkeypatch.setenv("ALPHAD_LOCK_DIR", str(tmp_path / "lock"))
    cfg = tmp_path / "acme.yaml"
    cfg.write_text("interval: 100ms\nscheme: dt\n"
                   "priorities: [{name: a, queues: [0, 1, 2, 3, 4, 5, 6, 7], alpha: 1}]\n"
                   "backend: {type: acme, host: LocalHost}\n")
    yield cfg
    sys.modules.pop("acme_backend", None)


def test_documented_backend_is_one_module_and_one_line(acme: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    assert cli.main(["check-config", "-c", str(acme)]) == 0
    cfg = parse_config(acme.read_text(), "acme.yaml", acme.parent)
    assert backends.switch_identity(cfg.backend) == "acme:127.0.0.1"
    with pytest.raises(ConfigError, match=r"backend\.port"):
        parse_config(acme.read_text().replace("host: LocalHost", "host: a, port: 1"), "a.yaml")
    assert cli.main(["run", "-c", str(acme), "--duration", "0.5", "--no-view", "--no-metrics",
                     "--no-api"]) == 0
    assert "restored=yes" in capsys.readouterr().err
