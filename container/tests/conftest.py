"""Container tests need a container engine and the image (`make image`). Without an
engine they are skipped on a developer machine and fail on CI (CI=true), where
.ci/run installs podman."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from container.engine import IMAGE, EngineError, engine, image_exists
from container.harness import Switch, new_volume, remove_volume


@pytest.fixture(scope="session")
def image() -> str:
    try:
        engine()
    except EngineError as e:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but no container engine: {e}", pytrace=False)
        pytest.skip(f"no container engine: {e}")
    if not image_exists(IMAGE):
        pytest.fail(f"image {IMAGE} not built: run `make image`", pytrace=False)
    return IMAGE


@pytest.fixture
def switch(tmp_path: Path) -> Iterator[Switch]:
    s = Switch(tmp_path).start()
    yield s
    s.stop()


@pytest.fixture
def volume(image: str) -> Iterator[str]:
    name = new_volume()
    yield name
    remove_volume(name)
