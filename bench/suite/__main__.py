"""The scenario suite: ``python -m bench.suite {list,run,report,trace,...}``.

    python -m bench.suite list                       # the scenarios, their half, their traffic
    python -m bench.suite run --half dev --configs abm,auto@100ms,auto@1s --statics
    python -m bench.suite report                     # docs/evaluation.md and its plots
    python -m bench.suite run --half s22 --configs auto18@1s --gen 12  # 12 s runs, own file
    python -m bench.suite compare --results bench/results/suite-gen12s.json --configs auto18@1s
    python -m bench.suite trace s24 auto@100ms       # the alphas a controller wrote in a run
    python -m bench.suite decisions s21 auto22@1s --gen 12  # the run again, its state logged
    python -m bench.suite power --half s21 --scheme auto18  # its safety rule against real harm
    python -m bench.suite raises --half s23 --scheme auto18 # its raises by cause and by truth
    python -m bench.suite room --half p00 --seed 3 --gen 12 # room a raise takes beside others

``run`` always runs DT (every metric is paired with it). ``--scheduler tcp://host:8786``
sends the runs to a Dask cluster whose workers share the cache directory
(``$ALPHAD_SUITE_CACHE``) and this checkout at the same paths.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from bench.suite.runs import TOLD_BURST_CLASSES, parse_config, split_configs
from bench.suite.scenarios import DISTRIBUTION, GEN_S, STEADY, WARMUPS_S, suite

HALF_HELP = "dev, eval, extension, priority, all, or scenario names (s03,s17,d02)"

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "bench" / "results" / "suite.json"


def _floats(flag: str, text: str) -> list[float]:
    """A comma-separated list of numbers; a ValueError names the flag."""
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{flag}: {text!r} is not numbers, comma-separated") from None


def _seeds(text: str) -> list[int] | None:
    """``--seeds``: whole numbers, comma-separated, or None where none are given."""
    picked = _floats("--seeds", text)
    if any(x != int(x) for x in picked):
        raise ValueError(f"--seeds: {text!r} is not whole numbers")
    return [int(x) for x in picked] or None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.suite", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="print the scenarios")
    r = sub.add_parser("run", help="run configs on scenarios (cached)")
    r.add_argument("--half", default="dev", help=HALF_HELP)
    r.add_argument("--configs", default="",
                   help="comma-separated: abm, scheme@100ms, scheme[k=v]@1s, static:B,O")
    r.add_argument("--seeds", default="1,2")
    r.add_argument("--statics", action="store_true",
                   help="also search the expert's grid on the tuning seed (one-burst scenarios)")
    r.add_argument("--chunk", type=int, default=4, help="scenarios per batch between saves")
    r.add_argument("--cheap-first", action="store_true",
                   help="run the scenarios in order of their simulation cost")
    r.add_argument("--cached-only", action="store_true",
                   help="merge the rows of runs already in the cache; run nothing")
    r.add_argument("--workers", type=int, default=None)
    r.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    r.add_argument("--gen", type=float, default=GEN_S,
                   help=f"seconds during which flows start (default {GEN_S:g}); runs of "
                   "another length go to their own results file")
    r.add_argument("--out", type=Path, default=None,
                   help="the results file (default bench/results/suite.json, or "
                   "suite-gen<G>s.json for --gen G)")
    c = sub.add_parser("compare", help="configs against DT (or another config) on chosen "
                       "scenarios of a results file")
    c.add_argument("--results", type=Path, default=RESULTS)
    c.add_argument("--half", default="dev", help=HALF_HELP)
    c.add_argument("--configs", required=True, help="comma-separated configs")
    c.add_argument("--against", default="dt", help="the reference config (default dt)")
    c.add_argument("--seeds", default="", help="only these seeds (default: those both ran)")
    c.add_argument("--steady", action="store_true",
                   help="judge what starts in the last half of the start period (the "
                   "controllers' steady state) instead of after the warm-up")
    c.add_argument("--per-seed", action="store_true",
                   help="also print every value seed by seed, and on how many seeds each "
                   "config is worse")
    fr = sub.add_parser("frontier", help="each config's change against DT where raising "
                        "pays beside its change on a scenario where any raise harms")
    fr.add_argument("--results", type=Path, action="append", help="the gain side's results "
                    f"(default {RESULTS.relative_to(REPO)}); repeat to read configs from "
                    "several files")
    fr.add_argument("--half", default="dev", help=f"the gain side's scenarios: {HALF_HELP}")
    fr.add_argument("--seeds", default="", help="the gain side's seeds (default: those "
                    "both ran)")
    fr.add_argument("--harm-results", type=Path, action="append",
                    help=f"the harm side's results (default "
                    f"{RESULTS.with_name('suite-gen12s-p00.json').relative_to(REPO)}); repeat "
                    "as --results")
    fr.add_argument("--harm", default="p00", help="the harm side's scenario")
    fr.add_argument("--configs", required=True, help="comma-separated configs")
    fr.add_argument("--plot", type=Path, default=None, help="also draw the points here")
    k = sub.add_parser("picks", help="how much of the expert's pick a narrower grid of "
                       "static settings reaches (one-burst-class scenarios)")
    k.add_argument("--results", type=Path, default=RESULTS)
    k.add_argument("--half", default="dev", help=HALF_HELP)
    k.add_argument("--grid", required=True,
                   help="static settings, comma-separated (static:16,dt: the burst class "
                   "alone raised); run them on the tuning seed and the result seeds first")
    k.add_argument("--configs", default="", help="configs judged against the pick too")
    p = sub.add_parser("report", help="write docs/evaluation.md and its plots")
    p.add_argument("--results", type=Path, default=RESULTS)
    p.add_argument("--out", type=Path, default=REPO / "docs" / "evaluation.md")
    t = sub.add_parser("trace", help="the alphas a co-simulated config wrote in one run")
    t.add_argument("scenario")
    t.add_argument("config")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--switch", default="", help="only this switch (leaf0, spine1, ...)")
    t.add_argument("--gen", type=float, default=None,
                   help="a run of `run --gen`: flows started for this many seconds")
    d = sub.add_parser("decisions", help="an auto-family config's run again, its "
                       "decisions and its safety rule's firings logged")
    d.add_argument("scenario")
    d.add_argument("config")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--gen", type=float, default=None,
                   help="a run of `run --gen`: flows started for this many seconds")
    b = sub.add_parser("bursts", help="burst tests judged on telemetry recorded under DT")
    b.add_argument("--half", default="dev", help=HALF_HELP)
    b.add_argument("--seed", default="1", help="a seed, or seeds comma-separated")
    b.add_argument("--ahead", action="store_true",
                   help="judge each flag against the next interval, when its raise acts")
    b.add_argument("--confirm-s", type=float, default=0.0,
                   help="count a class's flag only if it had one in this many seconds before")
    b.add_argument("--burst-frac", default="",
                   help="sweep `auto`'s test over these burst_frac values (comma-separated), "
                   "judged ahead, over all the recordings")
    b.add_argument("--idle-util", default="0.1",
                   help="with --burst-frac: the idle_util values of the sweep")
    m = sub.add_parser("room", help="the room a raise would take beside other queues' peaks, "
                       "in the intervals with a burst of a recorded run (DT's by default)")
    m.add_argument("--half", default="dev", help=HALF_HELP)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--interval", default="1s", help="replayed at this interval: 100ms or 1s")
    m.add_argument("--config", default="dt",
                   help="dt (recorded every 100 ms), or an auto-family scheme's own run at "
                   "--interval")
    m.add_argument("--gen", type=float, default=None,
                   help=f"seconds during which flows start (default {GEN_S:g})")
    f = sub.add_parser("safety", help="the safety rule's false alarms on telemetry recorded "
                       "under DT")
    f.add_argument("--half", default="dev", help=HALF_HELP)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--schemes", default="auto18", help="auto-family schemes, comma-separated")
    for cmd, text in (("power", ("the safety rule against the harm a scheme's raises did "
                                 "(its run, DT's and the placebo's telemetry, replayed in "
                                 "step)")),
                      ("raises", ("a scheme's raises in its own runs, by what the burst "
                                  "needed and whether its class carried incast"))):
        w = sub.add_parser(cmd, help=text)
        w.add_argument("--half", default="dev", help=HALF_HELP)
        w.add_argument("--seed", type=int, default=1)
        w.add_argument("--scheme", default="auto18", help="an `auto`-family scheme")
        w.add_argument("--interval", default="100ms", help="the run's interval: 100ms or 1s")
        w.add_argument("--gen", type=float, default=None,
                       help=f"seconds during which flows start (default {GEN_S:g})")
    a = ap.parse_args(argv)

    if a.cmd == "list":
        print("distribution:", DISTRIBUTION)
        for s in suite():
            print(f"{s.name} {s.half:4s} {s.describe()}")
        return 0
    if a.cmd == "run":
        from bench.suite.campaign import Campaign
        from bench.suite.runs import cache_dir

        try:
            scenarios = suite(a.half)
            if a.cheap_first:
                scenarios.sort(key=lambda s: s.cost)
            configs = split_configs(a.configs)
            bare = [s.name for s in scenarios if not s.burst_classes]  # refuse static:B,O
            for c in configs:
                cfg = parse_config(c)
                if (cfg.kind == "static" or cfg.scheme in TOLD_BURST_CLASSES) and bare:
                    raise ValueError(f"--configs {c}: no burst class in {', '.join(bare)}")
            seeds = [int(x) for x in a.seeds.split(",")]
            if not a.gen > WARMUPS_S[-1]:
                raise ValueError(f"--gen {a.gen:g}: flows must start for longer than the "
                                 f"{WARMUPS_S[-1]:g} s warm-up")
            out = a.out or (RESULTS if a.gen == GEN_S else
                            RESULTS.with_name(f"suite-gen{a.gen:g}s.json"))
            campaign = Campaign(out, cache_dir(), workers=a.workers, scheduler=a.scheduler,
                                cached_only=a.cached_only, gen=a.gen)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        campaign.run(scenarios, configs, seeds, chunk=a.chunk, statics=a.statics)
        print(f"wrote {out}")
        return 0
    if a.cmd == "compare":
        from bench.suite.ablations import per_seed, versus
        from bench.suite.campaign import load_results

        try:
            if not a.results.is_file():
                raise ValueError(f"--results: {a.results} does not exist")
            names = {s.name for s in suite(a.half)}
            configs = split_configs(a.configs)
            for c in [*configs, a.against]:
                parse_config(c)
            seeds = _seeds(a.seeds)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        win = STEADY if a.steady else None
        res = load_results(a.results)
        print("\n".join(versus(res, configs, names, a.against, seeds, win)))
        if a.per_seed:
            print("\n".join(per_seed(res, configs, names, a.against, seeds, win)))
        return 0
    if a.cmd == "frontier":
        from bench.suite import frontier
        from bench.suite.campaign import load_results

        try:
            gain_files = a.results or [RESULTS]
            harm_files = a.harm_results or [RESULTS.with_name("suite-gen12s-p00.json")]
            for flag, files in (("--results", gain_files), ("--harm-results", harm_files)):
                for f in files:
                    if not f.is_file():
                        raise ValueError(f"{flag}: {f} does not exist")
            names = [s.name for s in suite(a.half)]
            if a.harm not in {s.name for s in suite(a.harm)}:
                raise ValueError(f"--harm {a.harm!r}: expected one scenario's name")
            configs = split_configs(a.configs)
            for c in configs:
                parse_config(c)
            seeds = _seeds(a.seeds)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        gains, harms = ([load_results(f) for f in fs] for fs in (gain_files, harm_files))
        pts = [p for c in configs
               if (g := frontier.holding(gains, c, names)) is not None
               and (h := frontier.holding(harms, c, [a.harm])) is not None
               and (p := frontier.point(g, names, h, a.harm, c, seeds)) is not None]
        missing = [c for c in configs if c not in {p.config for p in pts}]
        print("\n".join(frontier.table(pts, a.harm)))
        if missing:
            print("no pair on one side:", ", ".join(missing))
        if a.plot is not None and frontier.plot(pts, a.harm, a.plot):
            print(f"wrote {a.plot}")
        return 0
    if a.cmd == "picks":
        from bench.suite.campaign import load_results
        from bench.suite.picks import table

        try:
            if not a.results.is_file():
                raise ValueError(f"--results: {a.results} does not exist")
            names = [s.name for s in suite(a.half)]
            grid, configs = split_configs(a.grid), split_configs(a.configs)
            if not grid or any(parse_config(g).kind != "static" for g in grid):
                raise ValueError(f"--grid {a.grid!r}: expected static settings, "
                                 "comma-separated")
            for c in configs:
                parse_config(c)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print("\n".join(table(load_results(a.results), names, grid, configs)))
        return 0
    if a.cmd == "bursts":
        from bench.suite.telemetry import recordings, sweep, table

        try:
            scenarios = suite(a.half)
            seeds = _floats("--seed", a.seed)
            fracs, utils = _floats("--burst-frac", a.burst_frac), _floats("--idle-util",
                                                                          a.idle_util)
            if any(s != int(s) for s in seeds):
                raise ValueError(f"--seed: {a.seed!r} is not whole numbers")
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        recs = [r for s in seeds for r in recordings(scenarios, int(s), log=print)]
        print("\n".join(sweep(recs, fracs, utils) if fracs else
                        table(recs, ahead=a.ahead, confirm_s=a.confirm_s)))
        return 0
    if a.cmd == "room":
        from bench.suite import room, safety
        from bench.suite.telemetry import recordings

        try:
            scenarios = suite(a.half)
            interval_s = parse_config(f"dt@{a.interval}").interval_s
            if a.config != "dt":
                safety.check([a.config], flag="--config")
            if a.gen is not None and not a.gen > 0:
                raise ValueError(f"--gen: {a.gen:g} s, must be more than 0")
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        recs = recordings(scenarios, a.seed, log=print, config=a.config,
                          interval="100ms" if a.config == "dt" else a.interval, gen=a.gen)
        print("\n".join(room.table(recs, interval_s)))
        return 0
    if a.cmd == "safety":
        from bench.suite import safety
        from bench.suite.telemetry import recordings

        try:
            scenarios = suite(a.half)
            names = [n for n in a.schemes.split(",") if n]
            safety.check(names)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print("\n".join(safety.table(recordings(scenarios, a.seed, log=print), names)))
        return 0
    if a.cmd in ("power", "raises"):
        from bench.suite import power, raises, safety
        from bench.suite.telemetry import recordings

        try:
            scenarios = suite(a.half)
            safety.check([a.scheme], flag="--scheme")
            parse_config(f"{a.scheme}@{a.interval}")
            if a.gen is not None and not a.gen > 0:
                raise ValueError(f"--gen: {a.gen:g} s, must be more than 0")
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        runs = recordings(scenarios, a.seed, log=print, config=a.scheme, interval=a.interval,
                          gen=a.gen)
        if a.cmd == "raises":
            print("\n".join(raises.table(runs, a.scheme)))
            return 0
        dts = recordings(scenarios, a.seed, log=print, gen=a.gen)
        pls = recordings(scenarios, a.seed, log=print, config="placebo", gen=a.gen)
        print("\n".join(power.table([(sc, r, d, p) for (sc, r), (_, d), (_, p)
                                     in zip(runs, dts, pls)], a.scheme)))
        return 0
    if a.cmd == "decisions":
        from alphad_ns3.run import RunError

        from bench.suite.decisions import decisions, report

        try:
            print(report(decisions(a.scenario, a.config, a.seed, a.gen)))
        except (ValueError, RunError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return 0
    if a.cmd == "trace":
        from bench.suite.trace import trace

        try:
            print(trace(a.scenario, a.config, a.seed, a.switch, a.gen))
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # a reader that stopped early (| head): not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    from bench.suite.report import write_report

    write_report(a.results, a.out)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
