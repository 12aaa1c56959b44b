"""The engine choice and options, without running a container."""

from __future__ import annotations

import resource
from collections.abc import Iterator

import pytest

from container import engine


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The engine is chosen anew in each test, and again after (with the real host)."""
    engine.engine_name.cache_clear()
    engine.storage_driver.cache_clear()
    monkeypatch.delenv("ALPHAD_CONTAINER_ENGINE", raising=False)
    yield
    engine.engine_name.cache_clear()
    engine.storage_driver.cache_clear()


def test_a_bad_engine_name_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALPHAD_CONTAINER_ENGINE", "lxc")
    with pytest.raises(engine.EngineError, match="expected docker or podman"):
        engine.engine_name()


def test_no_engine_names_the_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine.shutil, "which", lambda _: None)
    with pytest.raises(engine.EngineError, match="apt-get install podman mmdebstrap runc uidmap"):
        engine.engine_name()


def test_ulimits_never_exceed_the_hosts_hard_limits() -> None:
    opts = engine.ulimits()
    got = dict(opts[i + 1].split("=") for i in range(0, len(opts), 2))
    for name, (res, want) in engine.ULIMITS.items():
        hard = resource.getrlimit(res)[1]
        soft_s, hard_s = got[name].split(":")
        assert soft_s == hard_s
        assert int(hard_s) <= want and (hard == resource.RLIM_INFINITY or int(hard_s) <= hard)


def test_podman_builds_mount_only_what_the_host_has(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALPHAD_CONTAINER_ENGINE", "podman")
    monkeypatch.setattr(engine.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(engine.os.path, "exists", lambda p: p == "/etc/ssl/certs")
    opts = engine.build_options()
    assert "-v" in opts and "/etc/ssl/certs:/etc/ssl/certs:ro" in opts
    assert not any("pip.conf" in o for o in opts)
    assert opts[:2] == ["--isolation", "chroot"]
