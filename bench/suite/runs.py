"""What the suite runs on each scenario, and running it through the harness's cached sweep.

A *config* names what manages the buffers:
- ``dt``: DT at the operator's alphas (the reference every metric is paired with);
- ``placebo``: DT at the operator's alphas times ``1 + PLACEBO_EPS``: DT's policy on a
  different trajectory (a few admissions at the threshold go the other way), the null for
  a config that acts;
- ``abm``: exact per-packet ABM inside the switches (first-RTT priority included);
- ``<scheme>@<interval>``: the alphad daemon co-simulated with that scheme, e.g.
  ``auto@100ms``, ``auto@1s``;
- ``static:<burst>,<other>``: DT with every burst class at alpha ``burst`` and every other
  class at ``other`` (the expert's grid searches it on the one-burst-class scenarios);
  ``static:<burst>,dt`` leaves the other classes at the operator's alphas.

Runs are cached by their parameters and by what they depend on: the ns-3 program (a
snapshot of the built binary, by content) and, for co-simulations, the scheme's source
files. A cache directory can be shared by every worker of a Dask cluster.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import alphad.schemes.superseded  # noqa: F401  (their evaluation rows are reproduced)
from alphad_ns3.run import default_program
from alphad_ns3.scenario import RunSpec

from bench.suite.scenarios import SuiteScenario

__all__ = ["PLACEBO_EPS", "QUANTIZE", "RUN_TIMEOUT_S", "TOLD_BURST_CLASSES", "Config", "cache_dir", "parse_config", "program_snapshot", "spec"]

REPO = Path(__file__).resolve().parents[2]
ALPHAD = REPO / "daemon" / "alphad"
RUN_TIMEOUT_S = 4 * 3600
# The controller's shared code: every co-simulated run depends on it.
SHARED_CODE = ("schemes/_base.py", "estimate.py", "quantize.py", "model.py", "_kernels.c")
QUANTIZE = {"mode": "pow2", "kmin": -8, "kmax": 7, "hysteresis": 0.25}
# Schemes that read the scheduler (priorities' ``strict``): the suite tells them about strict
# priority; the others' runs keep the configuration, and the cache keys, they had without it.
READS_SCHEDULER = ("auto4", "auto30")
# Probes told the scenario's burst classes (their ``classes`` bitmask, unless a config sets it)
TOLD_BURST_CLASSES = ("oracle18", "oracle18-busy", "oracle18-rules", "oracle18-held",
                      "oracle18-harm", "oracle18-fresh", "oracle18-evidence",
                      "oracle18-floor", "oracle18-since", "oracle18-memo")
# The placebo's change of alpha: a fraction of a byte on any threshold, enough to flip an
# admission now and then.
PLACEBO_EPS = 1e-4
_INTERVAL = re.compile(r"^(\d+(?:\.\d+)?)(ms|s)$")


@dataclass(frozen=True)
class Config:
    """One way of managing the buffers (see the module's docstring)."""

    name: str
    kind: str  # "dt", "placebo", "abm", "alphad" or "static"
    scheme: str = ""
    interval_s: float = 0.0
    params: tuple[tuple[str, float], ...] = ()  # scheme_params (ablations)
    burst_alpha: float = 0.0
    other_alpha: float | None = 0.0  # None: the operator's alphas


def split_configs(text: str) -> list[str]:
    """A ``--configs`` list: names split at the commas outside brackets, so that one config
    may set several parameters (``auto9[margin=1,hold=8]@1s``), and a ``static:B,O`` kept
    whole."""
    out: list[str] = []
    for c in re.split(r",(?![^\[\]]*\])", text):
        if out and re.fullmatch(r"static:[^,]*", out[-1]) and re.fullmatch(r"[\d.eE+-]+|dt", c):
            out[-1] += f",{c}"  # the other classes' alpha of a static setting
        elif c:
            out.append(c)
    return out


def parse_config(name: str) -> Config:
    """``dt``, ``placebo``, ``abm``, ``scheme@100ms``, ``scheme[k=v,...]@1s``, ``static:4,0.25``
    or ``static:16,dt``."""
    if name in ("dt", "placebo", "abm"):
        return Config(name, name)
    if name.startswith("static:"):
        try:
            b, o = name[len("static:"):].split(",")
            return Config(name, "static", burst_alpha=float(b),
                          other_alpha=None if o == "dt" else float(o))
        except ValueError:
            raise ValueError(f"config {name!r}: expected static:<burst alpha>,<other alpha "
                             "or dt>") from None
    m = re.fullmatch(r"([a-z][a-z0-9-]*)(?:\[([^\]]*)\])?@(.+)", name)
    if not m:
        raise ValueError(f"config {name!r}: expected dt, placebo, abm, static:B,O or scheme@interval")
    scheme, params, iv = m.groups()
    mi = _INTERVAL.fullmatch(iv)
    if not mi:
        raise ValueError(f"config {name!r}: interval {iv!r} must look like 100ms or 1s")
    interval = float(mi.group(1)) * (1e-3 if mi.group(2) == "ms" else 1.0)
    kv: list[tuple[str, float]] = []
    for part in filter(None, (params or "").split(",")):
        k, _, v = part.partition("=")
        try:
            if not re.fullmatch(r"[a-z_][a-z0-9_]*", k) or v != v.strip():
                raise ValueError
            kv.append((k, float(v)))
        except ValueError:
            raise ValueError(f"config {name!r}: parameter {part!r} must be key=number, "
                             "without spaces") from None
    return Config(name, "alphad", scheme, interval, tuple(kv))


def spec(sc: SuiteScenario, cfg: Config, seed: int, gen: float | None = None) -> RunSpec:
    """The harness run of ``cfg`` on ``sc`` with ``seed`` (flows start for ``gen`` s)."""
    scen = sc.scenario(seed, gen)
    if cfg.kind == "dt":
        return RunSpec(scenario=scen, scheme="dt", alphas=sc.alphas)
    if cfg.kind == "placebo":
        return RunSpec(scenario=scen, scheme="dt",
                       alphas=tuple(a * (1 + PLACEBO_EPS) for a in sc.alphas))
    if cfg.kind == "abm":
        # n_p and gamma refreshed every base RTT, as the paper's switch does
        return RunSpec(scenario=scen, scheme="abm", alphas=sc.alphas, update_rtts=1.0)
    if cfg.kind == "static":
        if not sc.burst_classes:
            raise ValueError(f"{cfg.name}: {sc.name} has no burst class")
        alphas = tuple(cfg.burst_alpha if c in sc.burst_classes
                       else sc.alphas[c] if cfg.other_alpha is None else cfg.other_alpha
                       for c in range(sc.classes))
        return RunSpec(scenario=scen, scheme="dt", alphas=alphas)
    prios: list[dict[str, Any]] = [{"name": f"c{c}", "queues": [c], "alpha": sc.alphas[c]}
                                   for c in range(sc.classes)]
    if sc.sched == "sp" and cfg.scheme in READS_SCHEDULER:
        for c, pr in enumerate(prios):  # the harness serves queue 0 first
            pr["strict"] = c
    settings: dict[str, Any] = {"interval": f"{cfg.interval_s * 1e6:g}us", "scheme": cfg.scheme,
                                "priorities": prios, "quantize": dict(QUANTIZE)}
    if cfg.params:
        settings["scheme_params"] = dict(cfg.params)
    if cfg.scheme in TOLD_BURST_CLASSES and "classes" not in dict(cfg.params):
        if not sc.burst_classes:
            raise ValueError(f"{cfg.name}: {sc.name} has no burst class to be told of")
        mask = float(sum(1 << c for c in sc.burst_classes))
        settings["scheme_params"] = {**settings.get("scheme_params", {}), "classes": mask}
    return RunSpec(scenario=scen, scheme="alphad", alphas=sc.alphas, alphad=settings)


def _scheme_files(scheme: str) -> list[Path]:
    """The scheme's module and the scheme modules it imports, directly or through another."""
    from alphad import schemes

    todo = [Path(schemes.get(scheme).__code__.co_filename)]
    files: set[Path] = set()
    while todo:
        src = todo.pop()
        if src in files:
            continue
        files.add(src)
        todo += [ALPHAD / "schemes" / f"{mod}.py"
                 for mod in re.findall(r"from alphad\.schemes\.(\w+) import", src.read_text())]
    return sorted(files)


_HASHES: dict[str, str] = {}


def code_hash(cfg: Config) -> str:
    """What a run of ``cfg`` depends on besides its parameters and the program: the shared
    controller code and the scheme's own, read once per process (the first call imports the
    schemes, so worker processes forked afterwards run exactly the code that was hashed)."""
    if cfg.kind != "alphad":
        return "exact"
    if cfg.scheme not in _HASHES:
        h = hashlib.sha256()
        for f in [ALPHAD / p for p in SHARED_CODE] + _scheme_files(cfg.scheme):
            h.update(f.name.encode())
            h.update(f.read_bytes())
        _HASHES[cfg.scheme] = h.hexdigest()[:12]
    return _HASHES[cfg.scheme]


def cache_dir() -> Path:
    """``$ALPHAD_SUITE_CACHE``, else ``$XDG_CACHE_HOME/alphad/suite`` (``~/.cache``)."""
    env = os.environ.get("ALPHAD_SUITE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "alphad" / "suite"


def program_snapshot(cache: Path, program: Path | None = None) -> tuple[Path, str]:
    """A copy of the ns-3 program and its harness library, named by their content, so that
    a rebuild while a campaign runs changes neither its runs nor their cache keys.
    Returns (the copy's launcher, its hash)."""
    prog = program or default_program()
    binary = prog.with_name(prog.name + ".bin")  # a snapshot's own launcher names its copy
    prog = binary if binary.is_file() else prog
    lib = prog.parent / "libalphad-ns3.so"
    if not (prog.is_file() and lib.is_file()):
        raise SystemExit(f"{prog}: the ns-3 program is not built (run `make ns3`)")
    h = hashlib.sha256(prog.read_bytes())
    h.update(lib.read_bytes())
    digest = h.hexdigest()[:12]
    dest = cache / "bin" / digest
    launcher = dest / "alphad-ns3-sim"
    if not launcher.exists():
        tmp = cache / "bin" / f".{digest}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        shutil.copy2(prog, tmp / "alphad-ns3-sim.bin")
        shutil.copy2(lib, tmp / lib.name)
        (tmp / "alphad-ns3-sim").write_text(
            '#!/bin/sh\nd=$(dirname "$(readlink -f "$0")")\n'
            'LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" '
            'exec "$d/alphad-ns3-sim.bin" "$@"\n')
        (tmp / "alphad-ns3-sim").chmod(0o755)
        shutil.rmtree(dest, ignore_errors=True)
        os.replace(tmp, dest)
    return launcher, digest


def run_dir(cache: Path, sim: str, cfg: Config) -> Path:
    """Where runs of ``cfg`` are cached: by program and by the code the config runs."""
    return cache / f"sim-{sim}" / code_hash(cfg)
