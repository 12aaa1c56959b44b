"""The scenario suite: a seeded draw of fabrics, workloads and operator alphas, split in two.

Every scenario is drawn from one stated distribution (``DISTRIBUTION``) by a seeded
generator, so ``draw(SUITE_SEED, N)`` gives the same suite on every machine. A scenario
belongs to the development half or the evaluation half by a hash of its name:
controllers are designed on ``dev`` and run on ``eval`` once, after their design is frozen.

The development half also holds two extensions drawn from the same distribution by other
seeds, each for a stratum the hash left almost all to the evaluation half
(docs/research/controller.md): ``d00``.. with DCTCP and data-mining sizes fixed
(``extension()``), and ``p00``.. with strict priority, DCTCP, static traffic and two or
three classes (``priority_extension()``).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from alphad_ns3.scenario import DATA_DIR, Scenario

__all__ = ["DISTRIBUTION", "EXTENSION_SEED", "GEN_S", "N_EXTENSION", "N_PRIORITY",
           "N_SCENARIOS", "PRIORITY_SEED", "STEADY", "STEADY_FRAC", "SUITE_SEED", "WARMUPS_S",
           "SuiteScenario", "draw", "extension", "half", "priority_extension", "suite"]

SUITE_SEED = 2026  # the generator's seed: changing it draws another suite
N_SCENARIOS = 40
EXTENSION_SEED = 2027  # the development extension's generator seed
N_EXTENSION = 10  # development scenarios drawn with DCTCP and data-mining sizes
EXTENSION_PREFIX = "d"  # their names: d00, d01, ...
PRIORITY_SEED = 2028  # the strict-priority extension's generator seed
N_PRIORITY = 4  # development scenarios drawn with strict priority, DCTCP, static traffic
PRIORITY_CLASSES = (2, 3)  # ... and this many classes
PRIORITY_PREFIX = "p"  # their names: p00, p01, ...
GEN_S = 4.0  # s during which flows and queries start
DRAIN_S = 0.3  # s after the last start before a run stops
# s: metrics count what starts after the warm-up (a switch whose controller has run for a
# while): 1 s, and two intervals for a 1 s controller (its first decision comes at 2 s).
WARMUPS_S = (1.0, 2.0)
# The steady-state window (``compare --steady``): what starts in the last STEADY_FRAC of the
# start period, the controller's start-up transient left out. Rows name it STEADY.
STEADY_FRAC = 0.5
STEADY = "steady"
LINK = "1Gbps"  # every link; the buffer and fan-in scale with it (see README)
LINK_BPS = 1e9
BASE_RTT_S = Scenario().base_rtt  # s: the harness's round trip (the suite keeps its links' delay)
CDFS = {"websearch": DATA_DIR / "websearch.cdf", "datamining": DATA_DIR / "datamining.cdf"}

# The distribution every scenario is drawn from (ranges inclusive).
DISTRIBUTION = {
    "leaves": (2, 4), "servers": (8, 16), "spines": (1, 4),
    "buffer_kb_per_port_per_gbps": (5.0, 20.0),
    "classes": (2, 8), "sched": ("rr", "sp"), "tcp": ("cubic", "dctcp"),
    "cdf": tuple(CDFS), "load": (0.2, 0.8),
    "incast": {"none": 0.2, "one class": 0.5, "two classes": 0.15, "every class": 0.15},
    "request_frac": (0.1, 0.9),  # query size, of the leaf buffer
    "qps": (4.0, 40.0),  # queries per second per server (log-uniform)
    "fanin": "0 (every server of another leaf) or 4..servers, even odds",
    "operator_alpha": "one 2^k for every class (even odds) or one per class; k in -2..3",
    "traffic": {"static": 0.5, "time-varying": 0.5},
    "phase_s": (0.3, 2.0),  # log-uniform; longer phases are static within a run
}


@dataclass(frozen=True)
class SuiteScenario:
    """One drawn scenario: what the harness runs, plus what the report needs to know."""

    name: str
    leaves: int
    servers: int
    spines: int
    buffer_per_port_per_gbps: float
    classes: int
    sched: Literal["rr", "sp"]
    tcp: Literal["cubic", "dctcp"]
    cdf: str
    load: float
    burst_classes: tuple[int, ...]  # classes that carry incast queries (empty: none)
    ws_classes: tuple[int, ...]  # classes that carry web-search flows
    request_frac: float
    qps: float
    fanin: int
    alphas: tuple[float, ...]  # the operator's alpha per class
    phases: str  # "" (static) or the harness's phase list

    @property
    def half(self) -> Literal["dev", "eval"]:
        return half(self.name)

    @property
    def one_burst_class(self) -> bool:
        """Incast in exactly one class, other classes without it: where a per-class static
        alpha (the burst class high, the others not) is what an expert would tune."""
        return len(self.burst_classes) == 1 and self.classes > 1

    def scenario(self, seed: int, gen: float | None = None) -> Scenario:
        """The harness scenario for one seed; flows start for ``gen`` seconds (GEN_S by
        default; time-varying traffic cycles its phases over them)."""
        return Scenario(
            leaves=self.leaves, spines=self.spines, servers=self.servers, link_rate=LINK,
            buffer_per_port_per_gbps=self.buffer_per_port_per_gbps, queues=self.classes,
            sched=self.sched, tcp=self.tcp, load=self.load, cdf=str(CDFS[self.cdf]),
            ws_classes=_classes(self.ws_classes),
            qps=self.qps if self.burst_classes else 0.0, request_frac=self.request_frac,
            fanin=self.fanin, incast_classes=_classes(self.burst_classes or (0,)),
            phases=self.phases, gen=GEN_S if gen is None else gen, drain=DRAIN_S,
            seed=seed, snd_buf=self.snd_buf, sample_us=1000.0, queue_sample_us=1000.0)

    @property
    def snd_buf(self) -> int:
        """Bytes of TCP send buffer per socket: a leaf's buffer plus the base BDP for DCTCP,
        unbounded for Cubic. ns-3's DCTCP has no HyStart and, with nothing like Linux's TCP
        small queues, grows its window in slow start to megabytes queued in the sending
        host; the bound keeps that surplus out of the host and still lets one flow fill a
        leaf's buffer. Cubic leaves slow start by HyStart (see README)."""
        if self.tcp != "dctcp":
            return 0
        leaf = self.buffer_per_port_per_gbps * (self.servers + self.spines) * LINK_BPS / 1e9
        return int(leaf + LINK_BPS / 8 * BASE_RTT_S)

    @property
    def cost(self) -> float:
        """Relative simulation cost: packets scale with the uplinks' traffic (DCTCP's marks
        and ACKs about double it) plus the incast's."""
        uplinks = self.leaves * self.spines * self.load * (2.0 if self.tcp == "dctcp" else 1.0)
        incast = self.leaves * self.servers * self.qps * self.request_frac / 100
        return uplinks + incast

    def describe(self) -> str:
        """One line for the report."""
        inc = (f"incast c{'+'.join(map(str, self.burst_classes))} {self.request_frac:.0%} "
               f"x {self.qps:.0f}/s" if self.burst_classes else "no incast")
        alphas = ",".join(f"{a:g}" for a in self.alphas)
        kind = f"phases {self.phases.count(';') + 1}" if self.phases else "static"
        return (f"{self.leaves}x{self.servers} s{self.spines} "
                f"{self.buffer_per_port_per_gbps / 1024:.0f}KB {self.classes}c {self.sched} "
                f"{self.tcp} {self.cdf} {self.load:.2f}, {inc}, alpha {alphas}, {kind}")


def _rank(name: str) -> bytes:
    return hashlib.sha256(f"alphad-suite:{name}".encode()).digest()


def half(name: str, n: int = N_SCENARIOS) -> Literal["dev", "eval"]:
    """The scenario's half: the suite's names ranked by a hash, the first half ``dev``; the
    extensions' scenarios are ``dev``."""
    if name.startswith((EXTENSION_PREFIX, PRIORITY_PREFIX)):
        return "dev"
    names = sorted((f"s{i:02d}" for i in range(n)), key=_rank)
    return "dev" if names.index(name) < n // 2 else "eval"


def _classes(cs: tuple[int, ...]) -> str:
    return ",".join(str(c) for c in cs)


def _phases(rng: np.random.Generator, classes: int, ws: tuple[int, ...],
            burst: tuple[int, ...], load: float, qps: float, req: float) -> str:
    """A time-varying workload: each phase moves the bursts to other classes (or stops
    them) and changes the load and the query size; phases cycle over the run."""
    n = int(rng.integers(2, 5))
    out = []
    for i in range(n):
        dur = float(np.exp(rng.uniform(*np.log(DISTRIBUTION["phase_s"]))))
        ph_load = float(rng.uniform(*DISTRIBUTION["load"])) if i else load
        if burst and (i == 0 or rng.random() < 0.8):
            if i == 0:
                b = burst
            else:
                b = tuple(sorted(rng.choice(classes, size=len(burst), replace=False).tolist()))
            ph_qps = qps if i == 0 else float(np.exp(rng.uniform(*np.log(DISTRIBUTION["qps"]))))
            ph_req = req if i == 0 else float(rng.uniform(*DISTRIBUTION["request_frac"]))
            phase_ws = tuple(c for c in range(classes) if c not in b) or ws
        else:  # a phase without bursts: web-search where it was
            b, ph_qps, ph_req, phase_ws = (0,), 0.0, req, ws
        out.append(f"{dur * 1e3:.0f},{ph_load:.3f},{'+'.join(map(str, phase_ws))},"
                   f"{ph_qps:.2f},{ph_req:.3f},{'+'.join(map(str, b))}")
    return ";".join(out)


def draw(seed: int = SUITE_SEED, n: int = N_SCENARIOS, tcp: str = "", cdf: str = "",
         prefix: str = "s", sched: str = "", classes_range: tuple[int, int] | None = None,
         static: bool = False) -> list[SuiteScenario]:
    """``n`` scenarios drawn from DISTRIBUTION by a generator seeded with ``seed``, named
    ``prefix`` and a number; a ``tcp``, ``cdf`` or ``sched`` given fixes it in every
    scenario, and ``static`` the traffic (the draw of everything else is the same);
    ``classes_range`` narrows the number of classes."""
    fixed_tcp, fixed_cdf, fixed_sched = tcp, cdf, sched
    rng = np.random.default_rng(seed)
    d = DISTRIBUTION
    out = []
    for i in range(n):
        leaves = int(rng.integers(d["leaves"][0], d["leaves"][1] + 1))
        servers = int(rng.integers(d["servers"][0], d["servers"][1] + 1))
        spines = int(rng.integers(d["spines"][0], d["spines"][1] + 1))
        buf = float(rng.uniform(*d["buffer_kb_per_port_per_gbps"])) * 1024
        lo, hi = classes_range or d["classes"]
        classes = int(rng.integers(lo, hi + 1))
        sched = str(rng.choice(d["sched"]))  # drawn even when fixed, as tcp and cdf below
        tcp = str(rng.choice(d["tcp"]))  # drawn even when fixed: the rest stays the same
        cdf = str(rng.choice(d["cdf"]))
        tcp, cdf, sched = fixed_tcp or tcp, fixed_cdf or cdf, fixed_sched or sched
        load = float(rng.uniform(*d["load"]))
        kinds = list(d["incast"])
        kind = kinds[int(rng.choice(len(kinds), p=list(d["incast"].values())))]
        if kind == "none":
            burst: tuple[int, ...] = ()
        elif kind == "every class":
            burst = tuple(range(classes))
        else:
            k = 1 if kind == "one class" else 2
            burst = tuple(sorted(rng.choice(classes, size=k, replace=False).tolist()))
        ws = tuple(c for c in range(classes) if c not in burst) or tuple(range(classes))
        req = float(rng.uniform(*d["request_frac"]))
        qps = float(np.exp(rng.uniform(*np.log(d["qps"]))))
        fanin = 0 if rng.random() < 0.5 else int(rng.integers(4, servers + 1))
        ks = rng.integers(-2, 4, size=classes)
        if rng.random() < 0.5:
            ks[:] = ks[0]
        alphas = tuple(float(2.0 ** k) for k in ks)
        varying = rng.random() < d["traffic"]["time-varying"]
        phases = _phases(rng, classes, ws, burst, load, qps, req) if varying else ""
        phases = "" if static else phases  # drawn even when fixed, as sched, tcp and cdf
        out.append(SuiteScenario(
            name=f"{prefix}{i:02d}", leaves=leaves, servers=servers, spines=spines,
            buffer_per_port_per_gbps=round(buf, 1), classes=classes,
            sched=sched,  # type: ignore[arg-type]
            tcp=tcp,  # type: ignore[arg-type]
            cdf=cdf, load=round(load, 3), burst_classes=burst, ws_classes=ws,
            request_frac=round(req, 3), qps=round(qps, 2), fanin=fanin, alphas=alphas,
            phases=phases))
    return out


def extension() -> list[SuiteScenario]:
    """The development half's DCTCP extension (see the module's docstring)."""
    return draw(EXTENSION_SEED, N_EXTENSION, tcp="dctcp", cdf="datamining",
                prefix=EXTENSION_PREFIX)


def priority_extension() -> list[SuiteScenario]:
    """The development half's strict-priority extension (see the module's docstring)."""
    return draw(PRIORITY_SEED, N_PRIORITY, tcp="dctcp", sched="sp",
                classes_range=PRIORITY_CLASSES, static=True, prefix=PRIORITY_PREFIX)


def suite(which: str = "all") -> list[SuiteScenario]:
    """The suite's scenarios: ``dev`` (with the extensions), ``eval``, ``extension``,
    ``priority`` or ``all``; or a comma-separated list of names (``s03,s17,d02``)."""
    if which == "extension":
        return extension()
    if which == "priority":
        return priority_extension()
    every = draw() + extension() + priority_extension()
    if which == "all":
        return every
    if which in ("dev", "eval"):
        return [s for s in every if s.half == which]
    names = set(which.split(","))
    unknown = names - {s.name for s in every}
    if unknown:
        raise ValueError(f"unknown scenario {min(unknown)!r} (s00..s{N_SCENARIOS - 1:02d}, "
                         f"{EXTENSION_PREFIX}00..{EXTENSION_PREFIX}{N_EXTENSION - 1:02d}, "
                         f"{PRIORITY_PREFIX}00..{PRIORITY_PREFIX}{N_PRIORITY - 1:02d})")
    return [s for s in every if s.name in names]


def as_dict(s: SuiteScenario) -> dict[str, object]:
    d = asdict(s)
    d["half"] = s.half
    d["snd_buf"] = s.snd_buf
    d["describe"] = s.describe()
    d["cdf_file"] = Path(CDFS[s.cdf]).name
    return d
