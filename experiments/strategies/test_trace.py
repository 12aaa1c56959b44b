"""``trace``: the previous default's alpha per class, decision by decision, in a real run."""

from __future__ import annotations

from alphad_ns3.run import run

from experiments.strategies import run as campaign
from experiments.strategies import trace


def test_a_short_run_of_c_records_each_leafs_alpha_per_class(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = trace.traced()
    spec = campaign.alphad(campaign.scen_c(1, 0.6), "auto-traced", 0.1, (0.5, 0.5))
    run(spec, tmp_path / "run", timeout=600)
    leaves = {r["switch"] for r in rows}
    assert len(leaves) >= 2  # every leaf decides; spines are not recorded
    for sw in leaves:
        mine = [r for r in rows if r["switch"] == sw]
        t = [r["t"] for r in mine]
        assert t == sorted(t) and len(mine) >= 5  # one row per 100 ms decision
        for r in mine:
            assert len(r["alpha"]) == 2 and all(a >= 0.5 for a in r["alpha"])
            assert r["cut"] >= 0
