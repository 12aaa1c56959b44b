"""``python -m p4ref``: measurements of the P4 reference's model.

  errgrid      mean / max relative error of the table threshold over the input grid
  replay       decision agreement of model and exact scheme on trace files
  synth        write a SYNTHETIC trace (Python packet simulator, not ns-3)
  closed-loop  drops of the exact scheme vs the P4 model driving the synthetic switch
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import errgrid, synth, trace
from .replay import replay

__all__ = ["main"]


def _errgrid(args: argparse.Namespace) -> int:
    grid = errgrid.Grid(rem_points=args.rem_points, max_np=args.max_np)
    print(f"grid: alpha in {list(grid.alphas)}, n_p 1..{grid.max_np}, active 1..{grid.max_active}, "
          f"B-Q {grid.rem_points} log-spaced in [{grid.rem_min}, {grid.rem_max}] units; "
          "error over T_real >= 1024 units")
    for m in args.mantissa_bits:
        print(errgrid.measure(m, grid).row())
    return 0


def _replay(args: argparse.Namespace) -> int:
    for path in args.traces:
        tr = trace.read_trace(path)
        print(replay(tr, cell_bytes=args.cell_bytes, sync_ns=args.sync_ns,
                     mantissa_bits=args.mantissa_bits).text())
    return 0


def _config(args: argparse.Namespace) -> synth.SynthConfig:
    return synth.SynthConfig(scheme=args.scheme, seed=args.seed,
                             cong_frac=0.0 if args.scheme == "fb" else 0.9,
                             alpha_unsched=64.0 if args.scheme == "abm" else None)


def _synth(args: argparse.Namespace) -> int:
    res = synth.simulate(_config(args))
    Path(args.out).write_text(trace.write_trace(res.rows, res.meta), encoding="utf-8")
    print(f"wrote {len(res.rows)} SYNTHETIC packets to {args.out} "
          f"(dropped per priority: {res.dropped.tolist()})")
    return 0


def _closed_loop(args: argparse.Namespace) -> int:
    from .closed_loop import compare

    cfg = _config(args)
    for line in compare(cfg, cell_bytes=args.cell_bytes, sync_ns=args.sync_ns):
        print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m p4ref", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("errgrid", help="table threshold vs float formula")
    p.add_argument("--mantissa-bits", type=int, nargs="+", default=[4, 5, 6, 7, 8])
    p.add_argument("--rem-points", type=int, default=400)
    p.add_argument("--max-np", type=int, default=64)
    p.set_defaults(fn=_errgrid)
    p = sub.add_parser("replay", help="replay trace files")
    p.add_argument("traces", nargs="+")
    p.add_argument("--cell-bytes", type=int, default=1)
    p.add_argument("--sync-ns", type=int, default=1000)
    p.add_argument("--mantissa-bits", type=int, default=6)
    p.set_defaults(fn=_replay)
    for name, fn in (("synth", _synth), ("closed-loop", _closed_loop)):
        p = sub.add_parser(name)
        p.add_argument("--scheme", choices=["abm", "fb", "dt"], default="abm")
        p.add_argument("--seed", type=int, default=1)
        if name == "synth":
            p.add_argument("--out", required=True)
        else:
            p.add_argument("--cell-bytes", type=int, default=80)
            p.add_argument("--sync-ns", type=int, nargs="+", default=[1000, 10000])
        p.set_defaults(fn=fn)
    args = ap.parse_args(argv)
    try:
        return int(args.fn(args))
    except (trace.TraceError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
