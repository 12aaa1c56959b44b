"""How much of the expert's pick a narrower family of static settings reaches.

The expert's grid (``campaign.GRID``) sets the burst class and every other class. A
narrower grid asks what part of the pick a restricted controller could reach: for
example ``static:4,dt,static:16,dt``, the burst class raised alone with every other class
at the operator's alpha, which is all a controller that only raises the burst class can
set. In each one-burst-class scenario with the narrower grid's rows on the tuning seed,
the expert picks among DT and that grid by the full grid's rule (``best_static``); over
the result seeds, each setting and each config given is then judged against the full
grid's pick by the report's near-static rule (``near_static``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from bench.suite.campaign import TUNE_SEED, best_static, row_key
from bench.suite.report import (
    METRICS,
    _common_seeds,
    _table,
    _vals,
    near_static,
    window,
)
from bench.suite.scenarios import WARMUPS_S

__all__ = ["narrow_pick", "table"]

SHOWN = ("qct_ms_p99", "query_timeouts", "short_slowdown_p99", "short_rto_flows",
         "long_tput_vs_dt")
LABELS = {k: label for k, label, _ in METRICS}


def narrow_pick(res: dict[str, Any], sc: str, grid: Sequence[str]) -> str | None:
    """The expert's pick among DT and ``grid`` on the tuning seed; None where a row is
    missing (the expert picks from the whole grid only)."""
    rows = res["rows"]
    tuned = {g: rows[k][f"{WARMUPS_S[0]:g}s"] for g in ["dt", *grid]
             if (k := row_key(sc, TUNE_SEED, g)) in rows}
    return best_static(tuned) if len(tuned) == len(grid) + 1 else None


def table(res: dict[str, Any], scenarios: Sequence[str], grid: Sequence[str],
          configs: Sequence[str]) -> list[str]:
    """Per scenario with a full-grid pick: DT, the pick, each setting of ``grid`` and each
    of ``configs``, their means over the seeds each shares with the pick, and whether each
    is near the pick."""
    out: list[list[Any]] = []
    reached = n = 0
    for sc in scenarios:
        best = res.get("static_best", {}).get(sc)
        if best is None:
            continue
        mine = narrow_pick(res, sc, grid)
        for cfg in dict.fromkeys(["dt", best, *grid, *configs]):
            seeds = _common_seeds(res, sc, cfg, best)
            if not seeds:
                continue
            means = [_vals(res, sc, cfg, seeds, k, window(cfg)) for k in SHOWN]
            cells = [f"{statistics.fmean(v):.3g}" if len(v) == len(seeds) else "-"
                     for v in means]
            role = ("the pick" if cfg == best else "") + (" the narrow pick" if cfg == mine
                                                          else "")
            near = near_static(res, sc, cfg, best)
            out.append([sc, f"`{cfg}`", role.strip(), ",".join(map(str, seeds)), *cells,
                        "-" if cfg == best else ("yes" if near else "no")])
        if mine is not None:
            n += 1
            reached += mine == best or bool(near_static(res, sc, mine, best))
    head = ["scenario", "setting", "", "seeds", *[LABELS[k] for k in SHOWN], "near the pick"]
    return [*_table(head, out),
            f"The narrow grid's pick is near the full grid's in {reached} of {n} scenarios."]
