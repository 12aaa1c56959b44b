"""Strategy benchmark: alphad's control schemes against DT, the best static per-class DT
(`dt-static`, an expert's grid search) and ABM, at the intervals real switches allow.

    python -m experiments.strategies.run                 # everything (about 1.5 h on 2 cores)
    python -m experiments.strategies.run --only b --seeds 1

Scale: the harness's leaf-spine (2 leaves x 8 servers, 2 spines, 10 us links, base RTT
80 us, 9.6 KiB of buffer per port per Gb/s) with **1 Gb/s links**, so that simulated
seconds — and so 100 ms to 1 s control intervals — are affordable: the buffer-to-BDP
ratio and the incast fan-in are those of the 10 Gb/s setting. Scenarios:

(b) classes separated, starting from the default alpha everywhere (0.5): queries in
    class 0, web-search in classes 1-2; interval 1 s; metrics over the queries and
    flows that start after the 10th interval. Loads 0.4/0.6 x requests 50/75% of the
    buffer. dt-static: best (alpha_query, alpha_web) on a tuning seed for each variant.
(c) time-varying: every 2 s which class bursts, how hard, and which class carries the
    long flows change (a class alternates between long-flow and burst phases);
    intervals 1, 10, 100 RTT and 100 ms; dt-static: the best single setting.
(a) ABM §4.4 (flows uniform over 8 queues, 40% load, request 75%): the never-worse check.

Runs are cached under build/strategies-cache/<hash of the controller code>/, so a
change to the schemes reruns what depends on it. Writes bench/results/strategies.json
and bench/results/strategies-*.png.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import alphad.schemes.superseded  # registers the superseded candidates, which the runs name
from alphad import schemes
from alphad_ns3.scenario import RunSpec, Scenario
from alphad_ns3.sweep import execute
from alphad_ns3.window import long_vs_dt, windowed

from bench.suite.runs import parse_config, split_configs

REPO = Path(__file__).resolve().parents[2]
RTT_US = 80.0
CODE = ["schemes/*.py", "estimate.py", "quantize.py", "controller.py", "backends/sim.py"]


def sim_hash() -> str:
    """The simulator's identity: what every run depends on."""
    h = hashlib.sha256()
    prog = REPO / "build" / "ns3-harness" / "alphad-ns3-sim"
    if prog.exists():
        h.update(prog.read_bytes())
    return h.hexdigest()[:12]


def code_files() -> list[Path]:
    """The controller's source files (CODE), in hashing order."""
    root = REPO / "daemon" / "alphad"
    return [f for pat in CODE for f in sorted(root.glob(pat))]


def code_hash() -> str:
    """The controller's identity: what co-simulated (alphad) runs also depend on."""
    h = hashlib.sha256(sim_hash().encode())
    for f in code_files():
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def pow2(ks: list[int]) -> list[float]:
    return [2.0**k for k in ks]


TUNE_SEED = 101  # the seed dt-static is tuned on, never a result seed
COMMON = {"link_rate": "1Gbps", "sample_us": 200.0, "queue_sample_us": 1000.0}


def scen_b(load: float, req: float, seed: int, gen: float) -> Scenario:
    return Scenario(queues=3, load=load, qps=20.0, request_frac=req, ws_classes="1-2",
                    incast_classes="0", gen=gen, drain=1.0, seed=seed, **COMMON)


def scen_c(seed: int, gen: float, scale: float = 1.0) -> Scenario:
    ph = 2000
    phases = ";".join([
        f"{ph},{0.4 * scale:g},1,{30 * scale:g},0.6,0",    # class 0 bursts hard; web in class 1
        f"{ph},{0.4 * scale:g},0,{60 * scale:g},0.3,1",    # class 1 bursts often, lightly
        f"{ph},{0.6 * scale:g},0+1,{10 * scale:g},0.2,0",  # mostly long flows, rare bursts
        f"{ph},{0.3 * scale:g},0,{20 * scale:g},0.8,1",    # class 1 bursts very hard
    ])
    return Scenario(queues=2, phases=phases, ws_classes="0-1", incast_classes="0-1",
                    load=0.4, gen=gen, drain=1.0, seed=seed, **COMMON)


def scen_a(seed: int, gen: float) -> Scenario:
    return Scenario(load=0.4, qps=20.0, request_frac=0.75, ws_classes="0-7",
                    incast_classes="0-7", gen=gen, drain=1.0, seed=seed, **COMMON)


def prios(n: int, alphas: tuple[float, ...]) -> list[dict[str, Any]]:
    return [{"name": f"c{i}", "queues": [i], "alpha": alphas[i] if len(alphas) > 1
             else alphas[0]} for i in range(n)]


def alphad(sc: Scenario, scheme: str, interval_s: float, alphas: tuple[float, ...],
           params: dict[str, float] | None = None) -> RunSpec:
    cfg = {"interval": f"{interval_s * 1e6:g}us", "scheme": scheme,
           "priorities": prios(sc.queues, alphas),
           "quantize": {"mode": "pow2", "kmin": -8, "kmax": 7, "hysteresis": 0.25}}
    if params:
        cfg["scheme_params"] = params
    return RunSpec(scenario=sc, scheme="alphad", alphas=alphas, alphad=cfg)


def objective(m: dict[str, Any], ref: dict[str, Any], strict: bool = True) -> float:
    """What the expert's grid minimises: query p99 and short-flow p99 slowdown, relative
    to DT, with short-flow timeouts counted, and long flows kept (uplink utilisation
    within 2% of DT's; ``strict=False`` drops that guard, for when no point meets it —
    the utilisation counts retransmissions, so DT, which drops most, can read highest)."""
    if strict and m["uplink_utilisation"] < 0.98 * ref["uplink_utilisation"]:
        return float("inf")
    return (m["qct_ms_p99"] / ref["qct_ms_p99"] + m["short_slowdown_p99"]
            / ref["short_slowdown_p99"] + m["short_rto_flows"] / max(ref["short_n"], 1))


class Runner:
    """Runs specs through the harness's cached pool: runs without the controller are
    cached by the simulator's hash only, so a change to a scheme reruns only the
    co-simulations."""

    def __init__(self, root: Path, workers: int | None, baselines_only: bool = False,
                 variants: list[str] | None = None, params: dict[str, float] | None = None,
                 prev: dict[str, Any] | None = None, only_cfg: list[str] | None = None) -> None:
        self.sim_cache = root / f"sim-{sim_hash()}"
        self.ctl_cache = root / code_hash()
        self.workers = workers
        self.baselines_only = baselines_only
        self.variants = variants or []
        self.params = params or {}  # `auto` parameters under test (--params)
        self.prev = prev  # earlier results whose baselines are reused (--reuse)
        self.only_cfg = only_cfg or []  # only these configs (--configs)
        self.done = 0

    def cache(self, s: RunSpec) -> Path:
        return self.ctl_cache if s.scheme == "alphad" else self.sim_cache

    def __call__(self, specs: list[RunSpec]) -> dict[str, Path]:
        t = time.time()

        def progress(_: dict[str, Any]) -> None:
            self.done += 1
            print(f"\r  {self.done} runs done ({time.time() - t:.0f} s)", end="", flush=True)

        for cache in (self.sim_cache, self.ctl_cache):
            group = [s for s in specs if self.cache(s) == cache]
            if not group:
                continue
            res = execute(group, cache, workers=self.workers, progress=progress, timeout=7200)
            bad = [k for k, v in res.items() if "error" in v]
            if bad:
                raise SystemExit(f"{len(bad)} runs failed, e.g. {res[bad[0]]['error'][:500]}")
        print()
        return {s.key(): self.cache(s) / s.key() for s in specs}


def evaluate(run: Runner, name: str, variants: dict[str, Any], seeds: list[int],
             tune_seed: int, grid: list[tuple[float, ...]], default: tuple[float, ...],
             make, configs: list[tuple[str, str, float, tuple[str, ...]]], t_from, t_tune) -> dict[str, Any]:
    """Tune dt-static per variant, then run every config on every seed."""
    out: dict[str, Any] = {}
    for vname, vargs in variants.items():
        if run.variants and vname not in run.variants:
            continue
        prev = (run.prev or {}).get(name, {}).get(vname)
        rows: dict[str, list[dict[str, Any]]] = {}
        if prev is not None:  # --reuse: the same simulator, the same baselines
            best = tuple(prev["dt_static"])
            scored = [(o, tuple(a)) for o, a in prev["tuning"]]
            rows = dict(prev["configs"])
            print(f"[{name}/{vname}] dt-static = {best} (reused), co-simulations only")
        else:
            print(f"[{name}/{vname}] tuning dt-static over {len(grid)} settings")
            tune_sc = make(*vargs, seed=tune_seed, tuning=True)
            specs = [RunSpec(scenario=tune_sc, scheme="dt", alphas=a) for a in [default, *grid]]
            paths = run(specs)
            ref = windowed(paths[specs[0].key()], t_tune)
            ms = [(windowed(paths[s.key()], t_tune), s.alphas) for s in specs[1:]]
            scored = sorted(((objective(m, ref), a) for m, a in ms), key=lambda x: x[0])
            if scored[0][0] == float("inf"):
                scored = sorted(((objective(m, ref, strict=False), a) for m, a in ms),
                                key=lambda x: x[0])
            best = tuple(scored[0][1])
            print(f"[{name}/{vname}] dt-static = {best} (objective {scored[0][0]:.3f}; DT = 2)")
        specs_by: dict[str, list[RunSpec]] = {}
        dt_paths = []  # DT's run of each seed: what every run is paired with, flow by flow
        for seed in seeds:
            sc = make(*vargs, seed=seed, tuning=False)
            dt_spec = RunSpec(scenario=sc, scheme="dt", alphas=default)
            dt_paths.append(run.sim_cache / dt_spec.key())
            if prev is None:
                specs_by.setdefault("dt", []).append(dt_spec)
                specs_by.setdefault("dt-static", []).append(
                    RunSpec(scenario=sc, scheme="dt", alphas=best))
            for cname, kind, iv, only in configs:
                if (run.baselines_only and kind == "alphad") or (only and vname not in only):
                    continue
                if (prev is not None and kind != "alphad") or (
                        run.only_cfg and cname not in run.only_cfg):
                    continue
                if kind == "alphad":
                    cfg = parse_config(cname)
                    scheme, params = cfg.scheme, dict(cfg.params) or None
                    if scheme == "auto" and run.params:
                        params = run.params
                        cname = cname.replace("auto", "auto[" + ",".join(
                            f"{k}={v:g}" for k, v in params.items()) + "]", 1)
                    spec = alphad(sc, scheme, iv, default, params)
                else:  # exact per-packet scheme, n_p/gamma refreshed every iv
                    spec = RunSpec(scenario=sc, scheme=kind, alphas=default,
                                   update_rtts=max(iv * 1e6 / RTT_US, 1.0))
                specs_by.setdefault(cname, []).append(spec)
        print(f"[{name}/{vname}] {sum(len(v) for v in specs_by.values())} runs")
        paths = run([s for v in specs_by.values() for s in v])
        for cname, specs in specs_by.items():
            rows[cname] = []
            for s, dtp in zip(specs, dt_paths, strict=True):
                m = windowed(paths[s.key()], t_from)
                if (dtp / "done.json").exists():  # (under --reuse DT may not be here)
                    m["long_tput_vs_dt"] = long_vs_dt(paths[s.key()], dtp, t_from)
                rows[cname].append(m)
        out[vname] = {"dt_static": best, "tuning": [[o, list(a)] for o, a in scored[:5]],
                      "configs": rows}
    return out


Cfg = tuple[str, str, float, tuple[str, ...]]


def with_extra(own: list[Cfg], names: list[str]) -> list[Cfg]:
    """A scenario's own configs and the co-simulated ones --configs names beyond them: any
    registered scheme but `auto` at an interval in ms (``auto4@100ms``), with parameters
    in brackets if any (``auto9[margin=1,safety=1000]@100ms``)."""
    out = list(own)
    for c in names:
        m = re.fullmatch(r"([a-z][a-z0-9-]*)(?:\[[^\]]*\])?@(\d+(?:\.\d+)?)ms", c)
        if (m and m.group(1) != "auto" and schemes.registered(m.group(1))
                and c not in {o[0] for o in own}):
            out.append((c, "alphad", float(m.group(2)) * 1e-3, ()))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="b,c,a")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--variants", default="", help="only these variants (comma-separated)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--baselines-only", action="store_true",
                    help="only DT, dt-static and the exact schemes (no controller runs)")
    ap.add_argument("--configs", default="",
                    help="only these configs (e.g. auto@100ms,auto; any registered scheme as "
                         "name@<N>ms)")
    ap.add_argument("--params", default="",
                    help="auto parameters under test, e.g. max_cut=1,alpha_cap=8 (the config "
                         "is then named auto[max_cut=1,alpha_cap=8])")
    ap.add_argument("--reuse", action="store_true",
                    help="take dt-static and every baseline row from --out, run only the "
                         "co-simulations (for the same simulator)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "strategies.json")
    a = ap.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")]
    params = {k: float(v) for k, v in (kv.split("=") for kv in a.params.split(",") if kv)}
    prev_all = json.loads(a.out.read_text()) if a.out.exists() else {}
    if a.reuse and prev_all.get("meta", {}).get("seeds") != seeds:
        raise SystemExit(f"--reuse needs the seeds of {a.out} ({prev_all.get('meta', {}).get('seeds')})")
    run = Runner(REPO / "build" / "strategies-cache", a.workers, a.baselines_only,
                 [v for v in a.variants.split(",") if v], params,
                 prev_all if a.reuse else None, split_configs(a.configs))
    results: dict[str, Any] = {"meta": {"code": code_hash(), "seeds": seeds,
                                        "date": time.strftime("%Y-%m-%d %H:%M")}}
    results.update({k: v for k, v in prev_all.items() if k != "meta"})
    if a.reuse:
        results["meta"]["reused_baselines_from"] = prev_all["meta"]
    t0 = time.time()
    wanted = a.only.split(",")
    extra = run.only_cfg
    if "b" in wanted:
        # query class 1..16 (the controller's cap) x web-search classes 1/8..1 (grid_b.py
        # finds settings meeting every (b) target outside 1..8 x 1/8..1/2)
        grid = [(q, w, w) for q, w in itertools.product(pow2([0, 1, 2, 3, 4]),
                                                        pow2([-3, -2, -1, 0]))]
        results["b"] = results.get("b", {}) | evaluate(
            run, "b", {f"load{l:g}-req{r:g}": (l, r) for l in (0.4, 0.6) for r in (0.5, 0.75)},
            seeds, TUNE_SEED, grid, (0.5,) * 3,
            lambda l, r, seed, tuning: scen_b(l, r, seed, 3.0 if tuning else 12.0),
            with_extra([("auto", "alphad", 1.0, ()),
                        ("auto@100ms", "alphad", 0.1, ()),
                        ("abm", "alphad", 1.0, ("load0.4-req0.5",)),
                        ("abm-core (exact)", "abm-core", RTT_US * 1e-6, ("load0.4-req0.5",)),
                        ("abm (exact)", "abm", RTT_US * 1e-6, ("load0.4-req0.5",))], extra),
            t_from=10.0, t_tune=1.0)
    if "c" in wanted:
        ivs = [RTT_US * 1e-6, 100 * RTT_US * 1e-6, 0.1]
        cfgs = [(f"auto@{iv * 1e3:g}ms", "alphad", iv, ()) for iv in ivs] + \
            [(f"abm@{ivs[2] * 1e3:g}ms", "alphad", ivs[2], ())] + \
            [("abm-core (exact)", "abm-core", ivs[0], ()), ("abm (exact)", "abm", ivs[0], ())]
        cfgs = with_extra(cfgs, extra)
        grid = list(itertools.product(pow2([-2, 0, 2]), repeat=2))
        results["c"] = results.get("c", {}) | evaluate(
            run, "c", {"x1": (1.0,)}, seeds, TUNE_SEED, grid, (0.5, 0.5),
            lambda s, seed, tuning: scen_c(seed, 8.0, s), cfgs, t_from=0.0, t_tune=0.0)
    if "a" in wanted:
        ivs = [RTT_US * 1e-6, 0.1, 1.0]
        cfgs = with_extra([(f"auto@{iv * 1e3:g}ms", "alphad", iv, ()) for iv in ivs], extra)
        results["a"] = results.get("a", {}) | evaluate(
            run, "a", {"load0.4-req0.75": ()}, seeds, TUNE_SEED,
            [(x,) for x in pow2([-2, -1, 0, 1, 2, 3])],
            (0.5,), lambda seed, tuning: scen_a(seed, 2.0 if tuning else 4.0), cfgs,
            t_from=0.0, t_tune=0.0)
    if a.baselines_only:
        print(f"baselines done in {time.time() - t0:.0f} s (nothing written)")
        return 0
    results["meta"]["wall_seconds"] = time.time() - t0
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(results, indent=1, default=float) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
