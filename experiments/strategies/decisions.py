"""What an `auto`-family config decided in scenario (a) or (b), and why: its run again,
its state logged after each decision made while a class was raised (the suite's
``decisions``: levels before and after, the safety rule's firings, their classes, zero
references, busy queues and own bursts). With ``--from S`` it also prints the run's
metrics measured from S seconds on (the benchmark's rows of (a) measure from 0).

    python -m experiments.strategies.decisions --scenario a --config auto18@100ms --seed 1
    python -m experiments.strategies.decisions --scenario a --config auto32@100ms --from 1.5
    python -m experiments.strategies.decisions --scenario b --variant load0.4-req0.75 \
        --config auto31@100ms --seed 3
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from alphad_ns3.run import run
from alphad_ns3.scenario import RunSpec
from alphad_ns3.window import windowed

from bench.suite.decisions import logged, report
from bench.suite.runs import parse_config
from experiments.strategies import run as campaign

VARIANTS_B = {f"load{lo:g}-req{r:g}": (lo, r) for lo in (0.4, 0.6) for r in (0.5, 0.75)}


def spec(scenario: str, variant: str, config: str, seed: int) -> tuple[str, RunSpec]:
    """The scheme's name and the run of ``config`` (``scheme[k=v]@100ms``, the suite's
    config names) as the strategy benchmark makes it."""
    try:
        cfg = parse_config(config)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    if cfg.kind != "alphad":
        raise SystemExit(f"{config}: only co-simulated configs decide")
    scheme, iv, params = cfg.scheme, cfg.interval_s, dict(cfg.params) or None
    if scenario == "a":
        return scheme, campaign.alphad(campaign.scen_a(seed, 4.0), scheme, iv, (0.5,), params)
    if variant not in VARIANTS_B:
        raise SystemExit(f"--variant: one of {', '.join(VARIANTS_B)}")
    sc = campaign.scen_b(*VARIANTS_B[variant], seed=seed, gen=12.0)
    return scheme, campaign.alphad(sc, scheme, iv, (0.5,) * 3, params)


def measured(path: str, t_from: float) -> str:
    """The run's query and short-flow figures from ``t_from`` seconds on, in one line."""
    m = windowed(path, t_from)
    return (f"from {t_from:g} s: queries timed out {m['query_timeouts']:.3f}, query p99 "
            f"{m['qct_ms_p99']:.1f} ms, short-flow p99 slowdown "
            f"{m['short_slowdown_p99']:.1f}, short flows with a timeout {m['short_rto_flows']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", choices=("a", "b"), default="a")
    ap.add_argument("--variant", default="load0.4-req0.75", help="(b)'s variant")
    ap.add_argument("--config", default="auto18@100ms")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--from", dest="t_from", type=float, default=None, metavar="S",
                    help="also print the run's metrics from S seconds on")
    a = ap.parse_args(argv)
    if a.t_from is not None and a.t_from < 0:
        raise SystemExit(f"--from: {a.t_from:g} must be a time in seconds, >= 0")
    scheme, s = spec(a.scenario, a.variant, a.config, a.seed)
    line = ""
    try:
        with logged(scheme) as log, tempfile.TemporaryDirectory() as d:
            run(s, d, timeout=14400)
            if a.t_from is not None:
                line = measured(d, a.t_from)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    print(report(log))
    if line:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
