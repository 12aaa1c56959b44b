"""What a co-simulated controller wrote in one suite run: ``python -m bench.suite trace``.

Reads the run's ``alphas.csv`` from the cache and prints, per switch and class, each time
the class's alphas changed and what they became (one value, or the range over its ports),
then how many changes were raises and step-downs, and how many raises came within two
intervals of a step-down of the same class (raise, back off, raise again).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from bench.suite.runs import cache_dir, parse_config, program_snapshot, run_dir, spec
from bench.suite.scenarios import suite

__all__ = ["steps", "timeline", "trace"]


def timeline(alphas_csv: Path, switch: str = "") -> dict[str, dict[int, list[tuple[float, str]]]]:
    """switch -> class (queue index) -> [(t, alphas after the writes at t)], in time order.

    Each entry holds the class's alpha on every port that has been written so far; the
    text is one value where they agree, else ``lo-hi``.
    """
    now: dict[tuple[str, int], dict[int, float]] = defaultdict(dict)
    out: dict[str, dict[int, list[tuple[float, str]]]] = defaultdict(lambda: defaultdict(list))
    with alphas_csv.open() as f:
        for r in csv.DictReader(f):
            sw = r["switch"]
            if switch and sw != switch:
                continue
            q, t = int(r["queue"]), float(r["t_s"])
            ports = now[(sw, q)]
            ports[int(r["port"])] = float(r["alpha"])
            lo, hi = min(ports.values()), max(ports.values())
            text = f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"
            events = out[sw][q]
            if events and events[-1][0] == t:
                events[-1] = (t, text)
            elif not events or events[-1][1] != text:
                events.append((t, text))
    return out


def steps(events: list[tuple[float, str]], start: float, interval: float) -> tuple[int, int, int]:
    """(raises, step-downs, raises within two intervals of a step-down) of one class's
    timeline, by its highest alpha over its ports, from ``start`` (the operator's)."""
    up = down = again = 0
    prev, last_down = start, -float("inf")
    for t, text in events:
        a = float(text.split("-")[-1])
        if a > prev:
            up += 1
            again += t - last_down <= 2 * interval + 1e-9
        elif a < prev:
            down += 1
            last_down = t
        prev = a
    return up, down, again


def trace(scenario: str, config: str, seed: int, switch: str = "",
          gen: float | None = None) -> str:
    """The report of one cached run (flows started for ``gen`` s, GEN_S by default);
    ValueError naming what is missing."""
    sc = {s.name: s for s in suite()}.get(scenario)
    if sc is None:
        raise ValueError(f"no scenario {scenario!r} (python -m bench.suite list)")
    cfg = parse_config(config)
    if cfg.kind != "alphad":
        raise ValueError(f"{config}: only co-simulated configs write alphas")
    cache = cache_dir()
    _, sim = program_snapshot(cache)
    d = run_dir(cache, sim, cfg) / spec(sc, cfg, seed, gen).key()
    f = d / "alphas.csv"
    run = (f"python -m bench.suite run --half {scenario} --seeds {seed} --configs {config}"
           + (f" --gen {gen:g}" if gen is not None else ""))
    if not (d / "done.json").is_file():
        raise ValueError(f"{d}: not in the cache (run it: {run})")
    if not f.is_file():
        raise ValueError(f"{d}: cached before runs recorded their alphas (remove the "
                         f"directory and run it again: {run})")
    lines = [f"{scenario} {config} seed {seed}: {sc.describe()}"]
    total = [0, 0, 0]
    for sw, classes in sorted(timeline(f, switch).items()):
        for q, events in sorted(classes.items()):
            lines.append(f"{sw} c{q}: " + "  ".join(f"{t:.2f}s {a}" for t, a in events))
            for i, n in enumerate(steps(events, sc.alphas[q], cfg.interval_s)):
                total[i] += n
    if len(lines) == 1:
        lines.append("no writes")
    else:
        lines.append(f"raises {total[0]}, step-downs {total[1]}, raises within two intervals "
                     f"of a step-down {total[2]}")
    return "\n".join(lines)
