"""The trade a controller makes between scenarios where raising pays and one where any
raise harms (``python -m bench.suite frontier``).

Each config is one point: its mean change against DT over the chosen scenarios of one
results file (the gain side; negative is better), beside its mean change against DT on
one scenario of another results file (the harm side, by default p00 in its 12 s runs),
with the harm scenario's short flows with a timeout summed over seeds and the number of
seeds on which that count is above DT's on the same seed. Each side may be several results
files (rows of different programs stay in different files): a config is read, with DT,
from the first file of the side that holds a row of it on the side's scenarios. The plot's
x is that count over DT's (the mean change saturates where the count passes the clip of a
pair's ratio); a point lower and further left gains more where raising pays and harms less
where it does not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.suite.ablations import SE_FACTOR, change_interval, mean_change
from bench.suite.report import _pct, _table, _vals, compare, paired_seeds, window

__all__ = ["HARM_METRIC", "Point", "holding", "plot", "point", "table"]

HARM_METRIC = "short_rto_flows"  # the count the harm side sums over seeds


@dataclass(frozen=True)
class Point:
    config: str
    gain: float  # mean change against DT on the gain side (positive: worse)
    gain_lo: float  # the same minus SE_FACTOR standard errors over scenarios
    gain_hi: float  # plus SE_FACTOR standard errors
    gain_not_worse: float  # share of the gain side's pairs not worse beyond the spread
    gain_pairs: int
    harm: float  # mean change against DT on the harm scenario (positive: worse)
    count: float  # HARM_METRIC summed over the harm scenario's seeds
    dt_count: float  # DT's on the same seeds
    seeds_worse: int  # seeds on which the count is above DT's
    seeds: int

    @property
    def ratio(self) -> float:
        """``count`` over DT's (nan where DT's is zero)."""
        return self.count / self.dt_count if self.dt_count > 0 else math.nan


def holding(files: Sequence[dict[str, Any]], config: str,
            scenarios: Sequence[str]) -> dict[str, Any] | None:
    """The first of ``files`` with a row of ``config`` on one of ``scenarios``, or None."""
    want = set(scenarios)

    def holds(res: dict[str, Any]) -> bool:
        return any(sc in want and cfg == config
                   for sc, _, cfg in (k.split("|", 2) for k in res["rows"]))

    return next((r for r in files if holds(r)), None)


def point(gain_res: dict[str, Any], names: Sequence[str], harm_res: dict[str, Any],
          harm: str, config: str, seeds: Sequence[int] | None = None) -> Point | None:
    """``config``'s point (the gain side on ``seeds``, by default those both ran; the harm
    side on the seeds both ran), or None where it has no judged pair on either side."""
    gain_pairs = compare(gain_res, config, [n for n in names if n in gain_res["scenarios"]],
                         seeds)
    harm_pairs = compare(harm_res, config, [harm])
    if not gain_pairs or not harm_pairs:
        return None
    win = window(config)
    both = paired_seeds(harm_res, harm, config, "dt", win)
    c = _vals(harm_res, harm, config, both, HARM_METRIC, win)
    d = _vals(harm_res, harm, "dt", both, HARM_METRIC, win)
    lo, hi = change_interval(gain_pairs)
    return Point(config, mean_change(gain_pairs), lo, hi,
                 1 - sum(p.verdict == "loss" for p in gain_pairs) / len(gain_pairs),
                 len(gain_pairs), mean_change(harm_pairs), sum(c), sum(d),
                 sum(x > y for x, y in zip(c, d, strict=True)), len(both))


def table(points: Sequence[Point], harm: str) -> list[str]:
    rows = [[f"`{p.config}`", _pct(p.gain),
             f"{_pct(p.gain_lo)} to {_pct(p.gain_hi)}" if not math.isnan(p.gain_lo) else "-",
             f"{p.gain_not_worse:.0%} of {p.gain_pairs}", _pct(p.harm),
             f"{p.count:g} (DT {p.dt_count:g})", f"{p.seeds_worse} of {p.seeds}"]
            for p in sorted(points, key=lambda p: (math.isnan(p.ratio), p.ratio))]
    return _table(["config", "gain side vs DT", f"{SE_FACTOR:g} SE", "pairs not worse",
                   f"{harm} vs DT", f"{harm} short flows with a timeout",
                   "seeds above DT's count"], rows)


def plot(points: Sequence[Point], harm: str, path: Path) -> bool:
    """The points with their gain side's interval; False (nothing written) without points."""
    if not points:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9.5, 5))
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.axvline(1.0, color="grey", lw=0.8)
    ax.plot([1.0], [0.0], "ks")
    ax.annotate("dt", (1.0, 0.0), fontsize=7, xytext=(3, 3), textcoords="offset points")
    colours = plt.get_cmap("tab20").colors  # one per config up to 20, then again
    for i, p in enumerate(points):
        err = ([[p.gain - p.gain_lo], [p.gain_hi - p.gain]]
               if not math.isnan(p.gain_lo) else None)
        mark = "s" if p.config.endswith("@1s") else "o" if "@" in p.config else "^"
        ax.errorbar([p.ratio], [p.gain], yerr=err, fmt=mark, ms=5, capsize=2, label=p.config,
                    color=colours[i % len(colours)])
    ax.set_xlabel(f"{harm}: short flows with a timeout over DT's, summed over seeds")
    ax.set_ylabel(f"mean change against DT, gain side ({SE_FACTOR:g} SE; down: better)")
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True
