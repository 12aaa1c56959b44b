"""A scheme whose factory sets ``reads_shadow_dt`` runs with the program's ``--shadowDt``
and is told, before each step, DT's estimates from its own run: the drops DT at the
operator's alphas would have admitted count as sent.

A probe that writes nothing is DT, so nothing is counted and what it is told equals what it
sees. A probe that raises the incast class is told losses no greater than its own, on the
same offered bytes, and smaller in some interval. Then `oracle18-shadow` co-simulates end to
end without a twin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pytest
from alphad.schemes._base import SchemeContext, register
from alphad_ns3.run import run
from cosim_probes import Echo, Pairs, assert_told_own, require_program, spec


class _Echo(Echo):
    name = "test-shadow-echo"
    pairs: ClassVar[Pairs] = []


def _echo(ctx: SchemeContext, params: Mapping[str, Any]) -> _Echo:
    return _Echo(ctx, params)


_echo.reads_shadow_dt = True  # type: ignore[attr-defined]
register("test-shadow-echo", candidate=True)(_echo)


@pytest.fixture(autouse=True)
def program() -> None:
    require_program()


def test_dt_is_told_its_own_estimates(tmp_path) -> None:  # type: ignore[no-untyped-def]
    _Echo.pairs.clear()
    r = run(spec("test-shadow-echo"), tmp_path / "echo", timeout=600)
    assert "--shadowDt=1" in (tmp_path / "echo" / "argv.txt").read_text().split()
    assert r.summary["cosim"]["shadow_intervals"] == len(_Echo.pairs) > 10
    assert_told_own(_Echo.pairs)


def test_a_raise_is_told_the_drops_dt_would_have_admitted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    _Echo.pairs.clear()
    run(spec("test-shadow-echo", **{"raise": 16.0}), tmp_path / "raised", timeout=600)
    fewer = 0
    for told, own in _Echo.pairs:
        assert told is not None
        assert (told.drop_delta <= own.drop_delta).all()
        np.testing.assert_allclose(told.drop_delta + told.tx_delta, own.drop_delta + own.tx_delta)
        fewer += int((told.drop_delta < own.drop_delta).any())
    assert fewer > 0


def test_oracle18_shadow_co_simulates_without_a_twin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = run(spec("oracle18-shadow"), tmp_path / "shadow", timeout=600)
    cosim = r.summary["cosim"]
    assert cosim["shadow_intervals"] > 0 and cosim["scheme"] == "oracle18-shadow"
    assert "twin_intervals" not in cosim
