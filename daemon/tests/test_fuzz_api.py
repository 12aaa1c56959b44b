"""The HTTP API fuzzed: schemathesis generates requests from the API's own OpenAPI
schema (with and without the bearer token) and checks every response against it; a
hypothesis test sends arbitrary JSON to PUT /v1/config. Never a server error, writes
only with the token, and a refused body leaves the running configuration as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from _obs_support import TOKEN, write_config
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error, positive_data_acceptance

from alphad.api import create_app
from alphad.backends.sai import VasicBackend
from alphad.config import load_config
from alphad.history import History
from alphad.loop import Daemon
from alphad.metrics import Metrics
from alphad.reconfig import ConfigStore, hot_view

AUTH = {"Authorization": f"Bearer {TOKEN}"}
FUZZ = settings(max_examples=30, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, Any, Path]]:
    tmp = tmp_path_factory.mktemp("api-fuzz")
    path = write_config(tmp)
    cfg = load_config(path)
    be = VasicBackend(cfg.backend.scenario, clock="manual")
    try:
        m = Metrics()
        d = Daemon(cfg, be, m)
        h = History(min_step=0.0)
        d.on_cycle = h
        for _ in range(5):
            be.advance(d.interval)
            d.cycle()
        app = create_app(d, ConfigStore(d, path), m, h, TOKEN)
        yield d, app, path
    finally:
        be.close()


def _operations(app: Any) -> list[Any]:
    ops = [r.ok() for r in schemathesis.openapi.from_asgi("/openapi.json", app)
           .get_all_operations()]
    assert {o.label for o in ops} >= {"GET /healthz", "GET /v1/state", "PUT /v1/config"}
    return ops


@pytest.mark.parametrize("auth", [False, True], ids=["no-token", "token"])
def test_every_operation_conforms_to_the_schema(rig: tuple[Daemon, Any, Path],
                                                auth: bool) -> None:
    """schemathesis: generated requests for every operation; responses validated against
    the schema (status codes, content types, bodies) and never a server error."""
    for op in _operations(rig[1]):

        @given(case=op.as_strategy())
        @FUZZ
        def run(case: Any) -> None:
            if auth:
                case.headers = {**(case.headers or {}), **AUTH}
            # 503 is part of the contract (/readyz, /healthz): every status is checked
            # against the schema instead; a crash would be a 500. A schema-valid body can
            # still be refused (422): the schema cannot say which intervals, schemes and
            # alphas the configuration parser accepts.
            r = case.call_and_validate(excluded_checks=[not_a_server_error,
                                                        positive_data_acceptance])
            assert r.status_code != 500, r.text
            if case.method.upper() == "PUT" and not auth:
                assert r.status_code == 401, r.text  # no token: refused before validation
            rig[0]._pending = None  # the loop is not running here: drop an accepted change

        run()


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids,
                                                             max_size=4),
    max_leaves=12)
_bodies = _json | st.fixed_dictionaries({}, optional={
    "interval": _json | st.sampled_from(["5ms", "1s", "0s", "-1ms", "1e400s", "80us"]),
    "scheme": _json | st.sampled_from(["dt", "abm", "fb", "auto", "nope"]),
    "scheme_params": _json,
    "alphas": _json | st.dictionaries(st.sampled_from(["bulk", "query", "x"]),
                                      st.floats(allow_nan=True) | st.integers(-5, 300),
                                      max_size=2)})


@given(body=_bodies, token=st.sampled_from([None, "wrong-token-0123456789", TOKEN]))
@FUZZ
def test_put_config_with_arbitrary_bodies(rig: tuple[Daemon, Any, Path], body: Any,
                                          token: str | None) -> None:
    d, app, path = rig
    client = TestClient(app, raise_server_exceptions=False)
    text_before, view_before = path.read_text(), hot_view(d.cfg)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    # json.dumps writes NaN and Infinity, which are not JSON: the server must refuse them
    r = client.put("/v1/config", content=json.dumps(body), headers=headers)
    assert r.status_code in (200, 202, 401, 422), (r.status_code, r.text)
    if token != TOKEN:
        assert r.status_code == 401
    if r.status_code in (401, 422):
        assert hot_view(d.cfg) == view_before and path.read_text() == text_before
        assert d._pending is None  # nothing handed to the loop
    if r.status_code == 422:
        errs = r.json()["errors"]
        assert errs and all(isinstance(e, str) and e for e in errs)
    d._pending = None  # an accepted change is not applied here: the loop is not running
