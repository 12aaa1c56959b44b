"""Run configs over the suite's scenarios and keep every row in one results file.

A row is one (scenario, seed, config): the windowed metrics of what starts after the
warm-up, paired flow by flow with DT's run of the same seed, and the hash of the code that
ran. Rows are merged into the results file after every chunk of scenarios, so an
interrupted campaign keeps what it ran and a rerun takes the rest from the cache. A row
that changes (its scheme's code changed) keeps its earlier figures under ``superseded``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from alphad_ns3.scenario import RunSpec
from alphad_ns3.sweep import cached, run_cached
from alphad_ns3.window import long_vs_dt, windowed

from bench.suite.runs import (
    RUN_TIMEOUT_S,
    Config,
    code_hash,
    parse_config,
    program_snapshot,
    run_dir,
    spec,
)
from bench.suite.scenarios import (
    GEN_S,
    STEADY,
    STEADY_FRAC,
    WARMUPS_S,
    SuiteScenario,
    as_dict,
)

__all__ = ["GRID", "TUNE_SEED", "Campaign", "best_static", "load_results", "row_key",
           "supersede", "writes_digest"]

TUNE_SEED = 101  # the seed the expert's grid is searched on; never a result seed
GRID = [f"static:{b:g},{o:g}" for b in (1.0, 4.0, 16.0) for o in (0.25, 1.0)]
SHORT_SLACK = 1.1  # the expert keeps short flows within 10% of DT's (p99 slowdown, timeouts)
LONG_FLOOR = 0.95  # ... and long flows at 95% of DT's throughput or more


def writes_digest(run: Path) -> str:
    """A digest of a run's alpha writes (``alphas.csv``; empty for a run that writes none):
    two runs of one scenario and seed acted alike exactly when their digests are equal."""
    f = run / "alphas.csv"
    return hashlib.sha256(f.read_bytes() if f.exists() else b"").hexdigest()[:16]


def row_key(scenario: str, seed: int, config: str) -> str:
    return f"{scenario}|{seed}|{config}"


def load_results(path: Path) -> dict[str, Any]:
    if path.exists():
        return json.loads(path.read_text())  # type: ignore[no-any-return]
    return {"meta": {}, "scenarios": {}, "rows": {}, "static_best": {}, "superseded": {}}


def _run_length(res: dict[str, Any]) -> float:
    """The seconds during which flows start in a results file's runs (GEN_S if unrecorded)."""
    return float(res.get("meta", {}).get("gen_s", GEN_S))


def _figures(row: dict[str, Any]) -> str:
    """A row's windowed metrics as comparable text (NaN equals NaN)."""
    return json.dumps({w: row.get(f"{w:g}s") for w in WARMUPS_S}, sort_keys=True,
                      default=float)


def supersede(rows: dict[str, Any], superseded: dict[str, Any], key: str,
              row: dict[str, Any]) -> None:
    """Put ``row`` at ``key``; an earlier row there with other figures moves to
    ``superseded`` under ``key|code`` (its code hash, ``unknown`` if it has none)."""
    old = rows.get(key)
    if old is not None and _figures(old) != _figures(row):
        superseded[f"{key}|{old.get('code', 'unknown')}"] = old
    rows[key] = row


def _finite(x: Any) -> float:
    return float(x) if isinstance(x, int | float) and math.isfinite(x) else float("nan")


def best_static(rows: dict[str, dict[str, Any]]) -> str:
    """The expert's pick on the tuning seed: among ``dt`` and the grid, the setting with the
    lowest query p99 plus share of queries timed out (each relative to DT's) that keeps
    short flows within SHORT_SLACK of DT and long flows at LONG_FLOOR or more."""
    dt = rows["dt"]

    def rel(m: dict[str, Any], k: str) -> float:
        ref = _finite(dt[k])
        v = _finite(m[k])
        if math.isnan(v):
            return 1.0
        return v / ref if ref > 0 else (1.0 if v == 0 else 2.0)

    def ok(m: dict[str, Any]) -> bool:
        short = _finite(m["short_slowdown_p99"])
        short_dt = _finite(dt["short_slowdown_p99"])
        if not math.isnan(short) and not math.isnan(short_dt) and short > SHORT_SLACK * short_dt:
            return False
        if m["short_rto_flows"] > SHORT_SLACK * dt["short_rto_flows"] + 1:
            return False
        lt = _finite(m.get("long_tput_vs_dt", 1.0))
        return math.isnan(lt) or lt >= LONG_FLOOR

    scored = sorted((rel(m, "qct_ms_p99") + rel(m, "query_timeouts"), name)
                    for name, m in rows.items() if name == "dt" or ok(m))
    return scored[0][1]


class Campaign:
    """Runs configs on scenarios through the harness's cache; merges rows into ``out``."""

    def __init__(self, out: Path, cache: Path, *, workers: int | None = None,
                 scheduler: str | None = None, log: Callable[[str], None] = print,
                 cached_only: bool = False, gen: float | None = None) -> None:
        self.out = out
        self.gen = GEN_S if gen is None else gen  # s during which flows start
        self.cached_only = cached_only  # rows from the cache only, nothing run
        self.cache = cache
        self.workers = workers
        self.scheduler = scheduler
        self.log = log
        self.program, self.sim = program_snapshot(cache)
        self.results = load_results(out)
        if self.results["rows"] and _run_length(self.results) != self.gen:
            raise ValueError(f"--gen {self.gen:g}: {out} holds runs of "
                             f"{_run_length(self.results):g} s; give another --out")
        self.fresh: dict[str, dict[str, Any]] = {"scenarios": {}, "rows": {}, "static_best": {}}

    def _paths(self, jobs: Sequence[tuple[SuiteScenario, Config, int]]) -> dict[int, Path]:
        """Run every job not yet cached, all in one pool; the run directory of each."""
        todo: dict[str, tuple[RunSpec, Path]] = {}
        paths: dict[int, Path] = {}
        for i, (sc, cfg, seed) in enumerate(jobs):
            s, d = spec(sc, cfg, seed, self.gen), run_dir(self.cache, self.sim, cfg)
            paths[i] = d / s.key()
            if cached(s, d) is None:
                todo[str(paths[i])] = (s, d)
        if self.cached_only:
            self.log(f"  {len(todo)} runs not in the cache, left out")
            return {i: p for i, p in paths.items() if str(p) not in todo}
        t0 = time.time()
        # Co-simulations and the longest runs first, so that the pool drains evenly.
        order = sorted(todo.values(), key=lambda x: (x[0].scheme != "alphad",
                                                     -x[0].scenario.leaves * x[0].scenario.spines))
        args = [(s.model_dump_json(), str(d), str(self.program), RUN_TIMEOUT_S) for s, d in order]
        failed = set()
        for r, (_, d) in zip(self._map(args), order, strict=True):
            if "error" in r:
                failed.add(str(d / r["key"]))
                self.log(f"  run {r['key']} failed: {r['error'][:300]}")
        self.log(f"  {len(todo)} runs ({len(failed)} failed) in {time.time() - t0:.0f} s")
        return {i: p for i, p in paths.items() if str(p) not in failed}

    def _map(self, args: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        """run_cached over ``args`` on the Dask cluster or a local process pool, in order."""
        if not args:
            return []
        if self.scheduler:
            from distributed import Client

            with Client(self.scheduler) as client:
                futs = [client.submit(run_cached, *a, pure=False) for a in args]
                return client.gather(futs)  # type: ignore[no-any-return]
        with ProcessPoolExecutor(self.workers or os.cpu_count() or 1) as ex:
            return list(ex.map(run_cached, *zip(*args, strict=True)))

    def run(self, scenarios: Sequence[SuiteScenario], configs: Sequence[str],
            seeds: Sequence[int], chunk: int = 4, statics: bool = False) -> None:
        cfgs = [parse_config(c) for c in dict.fromkeys(["dt", *configs])]
        for c in cfgs:
            self.log(f"  {c.name}: code {code_hash(c)}")
        for i in range(0, len(scenarios), chunk):
            part = scenarios[i:i + chunk]
            self.log(f"[{', '.join(s.name for s in part)}] {len(cfgs)} configs x "
                     f"{len(seeds)} seeds" + (" + the expert's grid" if statics else ""))
            jobs = [(sc, c, seed) for sc in part for seed in seeds for c in cfgs]
            if statics:
                jobs += [(sc, parse_config(g), TUNE_SEED) for sc in part if sc.one_burst_class
                         for g in ["dt", *GRID]]
            paths = self._paths(jobs)
            self._rows(jobs, paths)
            if statics:
                picks = self._statics(part, seeds)
                if picks:
                    self._rows(picks, self._paths(picks))
            self.save()

    def _rows(self, jobs: Sequence[tuple[SuiteScenario, Config, int]],
              paths: dict[int, Path]) -> None:
        dt_of = {(sc.name, seed): paths.get(i) for i, (sc, c, seed) in enumerate(jobs)
                 if c.kind == "dt"}
        starts = {f"{w:g}s": w for w in WARMUPS_S}  # each window's key, and its start (s)
        starts[STEADY] = self.gen * (1 - STEADY_FRAC)
        for i, (sc, cfg, seed) in enumerate(jobs):
            p = paths.get(i)
            if p is None:
                continue
            dtp = dt_of.get((sc.name, seed)) or self._dt_path(sc, seed)
            row: dict[str, Any] = {}
            for name, w in starts.items():
                m = windowed(p, w)
                m["long_tput_vs_dt"] = long_vs_dt(p, dtp, w) if dtp else float("nan")
                row[name] = m
            summary = json.loads((p / "summary.json").read_text())
            row["wall_seconds"] = summary["wall_seconds"]
            row["events"] = summary.get("events", 0)
            row["code"] = p.parent.name  # the run directory is named by the code's hash
            row["writes_sha"] = writes_digest(p)
            self._put("scenarios", sc.name, as_dict(sc))
            self._put("rows", row_key(sc.name, seed, cfg.name), row)

    def _dt_path(self, sc: SuiteScenario, seed: int) -> Path | None:
        cfg = parse_config("dt")
        p = run_dir(self.cache, self.sim, cfg) / spec(sc, cfg, seed, self.gen).key()
        return p if (p / "done.json").exists() else None

    def _statics(self, part: Sequence[SuiteScenario],
                 seeds: Sequence[int]) -> list[tuple[SuiteScenario, Config, int]]:
        """Pick each scenario's best static setting on the tuning seed; its result-seed jobs."""
        picks = []
        rows = self.results["rows"]
        for sc in part:
            if not sc.one_burst_class:
                continue
            tuned = {g: rows[k][f"{WARMUPS_S[0]:g}s"] for g in ["dt", *GRID]
                     if (k := row_key(sc.name, TUNE_SEED, g)) in rows}
            if len(tuned) < len(GRID) + 1:  # the expert picks from the whole grid only
                self.log(f"  {sc.name}: {len(GRID) + 1 - len(tuned)} grid runs missing, no pick")
                continue
            best = best_static(tuned)
            self._put("static_best", sc.name, best)
            self.log(f"  {sc.name}: the expert's setting is {best}")
            picks += [(sc, parse_config(best), seed) for seed in seeds]
        return picks

    def _put(self, part: str, key: str, value: Any) -> None:
        self.results[part][key] = self.fresh[part][key] = value

    def save(self) -> None:
        """Merge this campaign's rows into the file as it is now (other campaigns may have
        saved since this one started), under a lock."""
        self.out.parent.mkdir(parents=True, exist_ok=True)
        with open(self.out.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            disk = load_results(self.out)
            for k in ("scenarios", "static_best"):
                disk.setdefault(k, {}).update(self.fresh[k])
            rows, old = disk.setdefault("rows", {}), disk.setdefault("superseded", {})
            for key, row in self.fresh["rows"].items():
                supersede(rows, old, key, row)
            disk.setdefault("meta", {}).update(
                {"program": self.sim, "warmups_s": list(WARMUPS_S), "gen_s": self.gen,
                 "updated": time.strftime("%Y-%m-%d %H:%M")})
            self.results = disk
            tmp = self.out.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(disk, indent=1, sort_keys=True, default=float) + "\n")
            tmp.replace(self.out)
