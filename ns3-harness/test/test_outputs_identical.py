"""The program's outputs, byte for byte: a few tiny runs that cover every admission scheme,
both schedulers, both TCPs, phases, size classes, the packet trace and the queue sampling.

- ``test_golden_digests``: the runs of ``GOLDEN`` against the SHA-256 of every output file
  committed in ``golden-outputs.json`` (summary.json without its wall-clock fields). A
  change to the simulation, on purpose or not, changes a digest; regenerate the file with
  ``python ns3-harness/test/test_outputs_identical.py --write-golden`` and say why in the
  commit.
- ``test_same_as_baseline``: every run of ``RUNS`` (and one co-simulated alphad run through
  the Python driver) with ``$ALPHAD_NS3_BIN`` and with ``$ALPHAD_NS3_BASELINE_BIN``, every
  output file compared. Without ``ALPHAD_NS3_BASELINE_BIN`` it is skipped (reported as such).

Compare two builds by hand::

    python ns3-harness/test/test_outputs_identical.py --compare OLD_BIN NEW_BIN
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from alphad_ns3.run import default_program, run
from alphad_ns3.scenario import RunSpec, Scenario

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN_FILE = Path(__file__).resolve().with_name("golden-outputs.json")
# summary.json fields that measure the machine, not the simulation
WALL_KEYS = {"run_wall_seconds", "total_wall_seconds", "cosim_wait_seconds", "wall_seconds",
             "controller_seconds", "sim_wait_seconds"}

SMALL = ["--linkRate=1Gbps", "--leaves=2", "--spines=2", "--servers=4", "--drain=0.05",
         "--sample=100", "--cdf=websearch.cdf"]
# name -> options after SMALL (the program runs in ns3-harness/data, so paths are relative)
RUNS: dict[str, list[str]] = {
    "dt-phases-traces": [
        "--scheme=dt", "--queues=3", "--alphas=0.5,1,2", "--gen=0.1", "--seed=2",
        "--phases=40,0.5,1+2,30,0.5,0;30,0.2,1,0,0.5,0", "--queueSwitch=leaf0",
        "--queueSample=500", "--traceSwitch=leaf0", "--tracePackets=3000", "--traceStart=0.01"],
    "cs-sp-dctcp": [
        "--scheme=cs", "--sched=sp", "--tcp=dctcp", "--ecnK=20", "--queues=2", "--load=0.5",
        "--qps=40", "--incastClasses=0", "--wsClasses=1", "--gen=0.08", "--queueSwitch=spine1",
        "--queueSample=1000"],
    "abm": [
        "--scheme=abm", "--queues=4", "--load=0.4", "--qps=60", "--requestFrac=0.5", "--gen=0.08",
        "--fanin=3", "--wsClasses=1-3", "--incastClasses=0", "--wsHosts=0,1",
        "--incastHosts=2-3", "--traceSwitch=spine0", "--tracePackets=2000"],
    "abm-core-sp": [
        "--scheme=abm-core", "--sched=sp", "--tcp=dctcp", "--queues=3", "--alphas=2,1,0.5",
        "--updateRtts=2", "--load=0.4", "--qps=40", "--wsClasses=1,2", "--incastClasses=0",
        "--gen=0.08", "--queueSwitch=leaf1", "--queueSample=1000"],
    "fb": [
        "--scheme=fb", "--queues=4", "--groups=0,0,1,1", "--alphas=1,1,0.5,0.5", "--load=0.5",
        "--qps=50", "--gen=0.08", "--wsClasses=2-3", "--incastClasses=0-1",
        "--traceSwitch=leaf1", "--tracePackets=2000"],
    "protean-size-classes": [
        "--scheme=protean", "--queues=3", "--proteanShort=0", "--proteanLong=1",
        "--sizeClasses=0,1", "--wsClasses=0-1", "--incastClasses=2", "--load=0.5", "--qps=40",
        "--gen=0.08", "--queueSwitch=leaf0", "--queueSample=1000", "--traceSwitch=leaf0",
        "--tracePackets=2000"],
    "external-static": [
        "--scheme=external", "--queues=2", "--alphas=0.25,4", "--load=0.3", "--qps=30",
        "--gen=0.05", "--minRto=5", "--wsClasses=1", "--incastClasses=0", "--delAck=1",
        "--wsInitCwnd=4"],
}
GOLDEN = ["dt-phases-traces", "abm", "protean-size-classes"]
# bad options: the exit status and the message naming the option must not change either
BAD: list[list[str]] = [
    ["--scheme=red"], ["--scheme=Dt"], ["--scheme=dt", "--cosim=1"],
    ["--leaves=1"], ["--queues=0"], ["--sched=wfq"], ["--tcp=reno"], ["--load=2"],
    ["--fanin=9"], ["--gen=0"], ["--alphas=1,2"], ["--alphas=0.5,x"], ["--groups=0,9"],
    ["--groups=0,1"], ["--proteanShort=8"], ["--linkRate=fast"], ["--cdf=missing.cdf"],
    ["--phases=10,0.5,1"], ["--phases=10,0.5,9,1,0.5,0"], ["--phases=-1,0.5,1,1,0.5,0"],
    ["--phases=10,0.5,1,1,0.5,0;10,3,1,1,0.5,0"], ["--phases=10,0.5,1,1,20,0"],
    ["--wsClasses=0-9"], ["--incastClasses=5-2"], ["--wsHosts=4"], ["--incastHosts=x"],
    ["--sizeClasses=1"], ["--queueSwitch=leaf9"], ["--traceSwitch=core0", "--tracePackets=5"],
    ["--out=/proc/version/x"], ["--sample=0"], ["--wsInitCwnd=0"],
]

ALPHAD_SPEC = RunSpec(
    scenario=Scenario(queues=3, load=0.4, qps=30.0, request_frac=0.5, ws_classes="1-2",
                      incast_classes="0", gen=0.1, drain=0.05, seed=3, link_rate="1Gbps",
                      sched="sp", tcp="dctcp", phases="50,0.4,1+2,30,0.5,0;50,0.2,1,60,0.5,0",
                      cdf=str(DATA / "websearch.cdf"), sample_us=100.0, queue_switch="leaf0",
                      queue_sample_us=1000.0, trace_switch="leaf1", trace_packets=2000),
    scheme="alphad", alphas=(0.5,),
    alphad={"interval": "1ms", "scheme": "abm",
            "priorities": [{"name": f"c{i}", "queues": [i], "alpha": 0.5} for i in range(3)],
            "quantize": {"mode": "pow2", "kmin": -8, "kmax": 7, "hysteresis": 0.25}})


def run_program(program: Path, name: str, out: Path) -> Path:
    """Run RUNS[name] with ``program``; its outputs land in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    argv = [str(program), *SMALL, *RUNS[name], f"--out={out}"]
    cp = subprocess.run(argv, cwd=DATA, stdin=subprocess.DEVNULL, capture_output=True,
                        text=True, timeout=600, check=False)
    if cp.returncode != 0:
        raise RuntimeError(f"{name}: exit {cp.returncode}\n{cp.stderr[-2000:]}")
    return out


def run_alphad(program: Path, out: Path) -> Path:
    """The co-simulated run, through the Python driver (spec.json and argv.txt name paths)."""
    run(ALPHAD_SPEC, out, program=program, timeout=600)
    for f in ("spec.json", "argv.txt", "stderr.log"):
        (out / f).unlink(missing_ok=True)
    return out


def run_bad(program: Path, args: list[str]) -> tuple[int, str]:
    """Exit status and stderr of a run with bad options (it must stop before simulating)."""
    cp = subprocess.run([str(program), *SMALL, *args], cwd=DATA, stdin=subprocess.DEVNULL,
                        capture_output=True, text=True, timeout=60, check=False)
    return cp.returncode, cp.stderr


def _strip_wall(obj: object) -> object:
    if isinstance(obj, dict):
        return {k: _strip_wall(v) for k, v in obj.items() if k not in WALL_KEYS}
    if isinstance(obj, list):
        return [_strip_wall(v) for v in obj]
    return obj


def contents(out: Path) -> dict[str, bytes]:
    """Every output file's bytes; summary.json re-serialised without its wall-clock fields."""
    files: dict[str, bytes] = {}
    for p in sorted(out.iterdir()):
        data = p.read_bytes()
        if p.name == "summary.json":
            data = json.dumps(_strip_wall(json.loads(data)), indent=1, sort_keys=True).encode()
        files[p.name] = data
    return files


def digests(out: Path) -> dict[str, str]:
    return {n: hashlib.sha256(b).hexdigest() for n, b in contents(out).items()}


def differences(a: Path, b: Path) -> list[str]:
    """Files that differ (or exist in one directory only), each with its first differing line."""
    ca, cb = contents(a), contents(b)
    msgs = [f"{n}: only in {a if n in ca else b}" for n in sorted(set(ca) ^ set(cb))]
    for n in sorted(set(ca) & set(cb)):
        if ca[n] != cb[n]:
            la, lb = ca[n].splitlines(), cb[n].splitlines()
            i = next((i for i, (x, y) in enumerate(zip(la, lb, strict=False)) if x != y),
                     min(len(la), len(lb)))
            msgs.append(f"{n}: line {i + 1} differs ({len(la)} vs {len(lb)} lines)")
    return msgs


def _program() -> Path:
    prog = default_program()
    if not prog.is_file():
        pytest.fail(f"{prog} is missing: build it with `make ns3`")
    return prog


@pytest.mark.parametrize("name", GOLDEN)
def test_golden_digests(name: str, tmp_path: Path) -> None:
    golden = json.loads(GOLDEN_FILE.read_text())[name]
    got = digests(run_program(_program(), name, tmp_path / name))
    assert got == golden, f"{name}: outputs changed (see the module docstring)"
    assert {"flows.csv", "queries.csv", "buffer.csv", "summary.json"} <= set(got)


@pytest.mark.parametrize("name", [*RUNS, "alphad-cosim"])
def test_same_as_baseline(name: str, tmp_path: Path) -> None:
    base = os.environ.get("ALPHAD_NS3_BASELINE_BIN")
    if not base:
        pytest.skip("set ALPHAD_NS3_BASELINE_BIN to a previous build to compare with it")
    outs = []
    for tag, prog in (("old", Path(base)), ("new", _program())):
        out = tmp_path / tag
        outs.append(run_alphad(prog, out) if name == "alphad-cosim"
                    else run_program(prog, name, out))
    assert differences(*outs) == []


def test_bad_options_as_baseline() -> None:
    base = os.environ.get("ALPHAD_NS3_BASELINE_BIN")
    if not base:
        pytest.skip("set ALPHAD_NS3_BASELINE_BIN to a previous build to compare with it")
    for args in BAD:
        old, new = run_bad(Path(base), args), run_bad(_program(), args)
        assert old == new, args
        assert new[0] == 2 and new[1].startswith("error: --"), (args, new)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write-golden", action="store_true",
                   help="rewrite golden-outputs.json from $ALPHAD_NS3_BIN")
    g.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), type=Path,
                   help="run every case with both programs and diff every output file")
    ap.add_argument("--keep", type=Path, help="keep the outputs in this directory")
    a = ap.parse_args()
    work = a.keep or Path(tempfile.mkdtemp(prefix="ns3-outputs-"))
    if a.write_golden:
        golden = {n: digests(run_program(default_program(), n, work / n)) for n in GOLDEN}
        GOLDEN_FILE.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
        return 0
    bad = 0
    for name in [*RUNS, "alphad-cosim"]:
        outs = []
        for tag, prog in zip(("old", "new"), a.compare, strict=True):
            out = work / name / tag
            outs.append(run_alphad(prog, out) if name == "alphad-cosim"
                        else run_program(prog, name, out))
        diff = differences(*outs)
        files = sorted(contents(outs[0]))
        print(f"{name}: {'IDENTICAL' if not diff else 'DIFFERENT'} ({', '.join(files)})")
        for d in diff:
            print(f"  {d}")
        bad += bool(diff)
    for args in BAD:
        old, new = (run_bad(p, args) for p in a.compare)
        same = old == new
        print(f"{' '.join(args)}: {'SAME' if same else 'DIFFERENT'} (exit {new[0]}: "
              f"{new[1].strip()[:90]})")
        if not same:
            print(f"  old: exit {old[0]}: {old[1].strip()}")
        bad += not same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
