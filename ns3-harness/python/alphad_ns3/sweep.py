"""Many runs: a cache keyed by run parameters, a local process pool or a Dask cluster.

A finished run leaves ``<cache>/<key>/done.json`` (its metrics, summary and spec) next
to its CSV outputs; a run whose ``done.json`` exists is never run again, so a sweep
resumes where an interruption left it. Tasks are plain functions of JSON-able
arguments so that Dask workers can run them (workers need this package, the built
program and the cache directory at the same paths, e.g. a shared file system).
"""

from __future__ import annotations

import json
import os
import shutil
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from alphad_ns3.analysis import load_run, metrics
from alphad_ns3.run import run
from alphad_ns3.scenario import RunSpec

__all__ = ["cached", "execute", "run_cached"]


def cached(spec: RunSpec, cache: Path) -> dict[str, Any] | None:
    """The stored result of ``spec``, or None."""
    done = cache / spec.key() / "done.json"
    if done.is_file():
        return json.loads(done.read_text())  # type: ignore[no-any-return]
    return None


def run_cached(spec_json: str, cache: str, program: str | None = None,
               timeout: float | None = None) -> dict[str, Any]:
    """Run one spec unless cached; returns ``{key, metrics, summary, spec}`` or ``{key, error}``."""
    spec = RunSpec.model_validate_json(spec_json)
    cdir = Path(cache)
    hit = cached(spec, cdir)
    if hit is not None:
        return hit
    out = cdir / spec.key()
    try:
        r = run(spec, out, program=program, timeout=timeout)
        m = metrics(load_run(out))
    except Exception as e:  # noqa: BLE001 (reported, not raised: one failed run must not stop a sweep)
        return {"key": spec.key(), "error": f"{type(e).__name__}: {e}",
                "trace": traceback.format_exc(limit=3)}
    res = {"key": spec.key(), "metrics": m, "summary": r.summary,
           "spec": json.loads(spec_json)}
    tmp = out / "done.json.tmp"
    tmp.write_text(json.dumps(res, indent=1, default=float))
    os.replace(tmp, out / "done.json")
    return res


def execute(specs: Iterable[RunSpec], cache: Path, *, workers: int | None = None,
            scheduler: str | None = None, program: str | None = None,
            timeout: float | None = None,
            progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, dict[str, Any]]:
    """Run every spec not yet cached; returns results by key (cached ones included).

    ``scheduler``: address of a running Dask distributed scheduler (tcp://host:8786);
    otherwise a local process pool of ``workers`` processes (default: CPU count).
    """
    cache.mkdir(parents=True, exist_ok=True)
    todo: dict[str, RunSpec] = {}
    results: dict[str, dict[str, Any]] = {}
    for s in specs:
        k = s.key()
        hit = cached(s, cache)
        if hit is not None:
            results[k] = hit
            if progress:
                progress(hit)
        elif k not in todo:
            todo[k] = s
    if not todo:
        return results
    # Longest first (co-simulations at small intervals), so the pool drains evenly.
    order = sorted(todo.values(), key=lambda s: (s.scheme != "alphad", s.scenario.gen), reverse=False)
    args = [(s.model_dump_json(), str(cache), program, timeout) for s in order]
    if scheduler:
        results.update(_dask(args, scheduler, progress))
    else:
        results.update(_local(args, workers or os.cpu_count() or 1, progress))
    return results


def _local(args: list[tuple[Any, ...]], workers: int,
           progress: Callable[[dict[str, Any]], None] | None) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    with ProcessPoolExecutor(workers) as ex:
        pending: set[Future[dict[str, Any]]] = {ex.submit(run_cached, *a) for a in args}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                r = f.result()
                out[r["key"]] = r
                if progress:
                    progress(r)
    return out


def _dask(args: list[tuple[Any, ...]], scheduler: str,
          progress: Callable[[dict[str, Any]], None] | None) -> dict[str, dict[str, Any]]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SystemExit("--scheduler needs dask distributed: pip install -e 'daemon[sim]'") \
            from None
    out: dict[str, dict[str, Any]] = {}
    with Client(scheduler) as client:
        futs = [client.submit(run_cached, *a, pure=False) for a in args]
        for f in as_completed(futs):
            r = f.result()
            out[r["key"]] = r
            if progress:
                progress(r)
    return out


def clear(cache: Path, spec: RunSpec) -> None:
    """Forget one run (its directory)."""
    shutil.rmtree(cache / spec.key(), ignore_errors=True)
