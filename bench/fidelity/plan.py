"""The fidelity sweep's scenarios, configurations and runs (scaled to a 2-core machine).

Scale (documented in ns3-harness/doc/harness.md): 2 leaves x 8 servers, 2 spines,
10 Gb/s, 10 us links (base RTT 80 us), 9.6 KiB per port per Gb/s; ``gen`` seconds of
flow arrivals per run instead of the ABM artifact's 3 s; incast query rates raised so
that a short run holds tens of queries.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from alphad_ns3.scenario import RunSpec, Scenario

INTERVALS_RTT = (1, 10, 100, 1000, 10000)
RTT_US = 80.0  # 8 links x 10 us


@dataclass(frozen=True)
class Setting:
    """One scenario of the sweep: traffic, classes, operator alphas, dt-static grid."""

    name: str
    title: str
    scenario: Scenario
    alphas: tuple[float, ...]  # operator's alpha_p per class (also DT's static alphas)
    priorities: list[dict[str, Any]]  # alphad priorities (class -> queues, alpha_p, group)
    grid: list[tuple[float, ...]]  # dt-static candidates: one alpha per class
    fb_groups: str = ""
    alphad_schemes: tuple[str, ...] = ("abm", "auto")
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _pow2(ks: range | list[int]) -> list[float]:
    return [2.0**k for k in ks]


def settings(gen: float = 0.05, drain: float = 0.03) -> dict[str, Setting]:
    common = {"gen": gen, "drain": drain, "sample_us": 50.0}
    a = Setting(
        name="a",
        title="(a) ABM §4.4: 40% web-search, incast 75% of the buffer, 8 queues, uniform",
        scenario=Scenario(load=0.4, qps=40.0, request_frac=0.75, ws_classes="0-7",
                          incast_classes="0-7", **common),
        alphas=(0.5,),
        priorities=[{"name": f"q{i}", "queues": [i], "alpha": 0.5} for i in range(8)],
        grid=[(x,) for x in _pow2(range(-3, 4))],
        alphad_schemes=("abm", "auto"),
        notes="every queue index is its own priority (n_p per index), as in ABM",
    )
    b = Setting(
        name="b",
        title="(b) classes separated: queries in class 0, web-search in classes 1-2",
        scenario=Scenario(queues=3, load=0.4, qps=40.0, request_frac=0.5, ws_classes="1-2",
                          incast_classes="0", **common),
        alphas=(1.0, 0.5, 0.25),
        priorities=[{"name": "query", "queues": [0], "alpha": 1.0, "group": "query"},
                    {"name": "web1", "queues": [1], "alpha": 0.5, "group": "web"},
                    {"name": "web2", "queues": [2], "alpha": 0.25, "group": "web"}],
        grid=[(x, y, y) for x, y in itertools.product(_pow2(range(4)), _pow2(range(-4, 0)))],
        fb_groups="0,1,1",
        alphad_schemes=("abm", "fb", "auto"),
        notes="operator alphas 1 / 0.5 / 0.25; dt-static searches (alpha_query, alpha_web)",
    )
    # (c): every gen/4 the bursting class, the burst size and the long-flow class change;
    # class 0 and class 1 alternate between burst and long-flow phases.
    ph = max(gen / 4, 0.005) * 1e3
    phases = ";".join([
        f"{ph:g},0.4,1,60,0.6,0",     # class 0 bursts hard, class 1 carries web-search
        f"{ph:g},0.4,0,120,0.3,1",    # class 1 bursts often, lightly; class 0 long flows
        f"{ph:g},0.6,0+1,20,0.2,0",   # mostly long flows in both, rare small bursts
        f"{ph:g},0.3,0,40,0.8,1",     # class 1 bursts very hard
    ])
    c = Setting(
        name="c",
        title="(c) time-varying: the bursting class and the burst size change every phase",
        scenario=Scenario(queues=2, phases=phases, ws_classes="0-1", incast_classes="0-1",
                          load=0.4, **common),
        alphas=(0.5, 0.5),
        priorities=[{"name": "c0", "queues": [0], "alpha": 0.5, "group": "all"},
                    {"name": "c1", "queues": [1], "alpha": 0.5, "group": "all"}],
        grid=[(x, y) for x, y in itertools.product(_pow2([-3, -1, 0, 2]), repeat=2)],
        fb_groups="0,0",
        alphad_schemes=("abm", "fb", "auto"),
        notes=f"4 phases of {ph:g} ms cycled (scaled from 'every few seconds')",
    )
    return {s.name: s for s in (a, b, c)}


def alphad_settings(st: Setting, scheme: str, mode: str, interval_rtt: float) -> dict[str, Any]:
    prios = st.priorities
    if scheme != "fb":  # groups matter to FB only
        prios = [{k: v for k, v in p.items() if k != "group"} for p in prios]
    return {
        "interval": f"{interval_rtt * RTT_US:g}us",
        "scheme": scheme,
        "priorities": prios,
        "quantize": {"mode": mode, "kmin": -8, "kmax": 7,
                     "hysteresis": 0.0 if mode == "continuous" else 0.25},
    }


def exact(st: Setting, seed: int, scheme: str, alphas: tuple[float, ...] | None = None,
          update_rtts: float = 1.0) -> RunSpec:
    return RunSpec(scenario=st.scenario.model_copy(update={"seed": seed}), scheme=scheme,
                   alphas=alphas or st.alphas, update_rtts=update_rtts,
                   groups=st.fb_groups if scheme == "fb" else "")


def cosim(st: Setting, seed: int, scheme: str, mode: str, interval_rtt: float) -> RunSpec:
    return RunSpec(scenario=st.scenario.model_copy(update={"seed": seed}), scheme="alphad",
                   alphas=st.alphas, alphad=alphad_settings(st, scheme, mode, interval_rtt))


def configs(st: Setting) -> list[tuple[str, str, float | None]]:
    """(config name, kind, interval in RTTs) of the interval sweep."""
    out: list[tuple[str, str, float | None]] = [("dt", "exact", None), ("dt-static", "exact", None)]
    for k in INTERVALS_RTT:
        out.append(("abm", "periodic", k))
        out.append(("abm-core", "periodic", k))
        for scheme in st.alphad_schemes:
            modes = ("continuous", "pow2") if scheme in ("abm", "fb") else ("pow2",)
            for mode in modes:
                out.append((f"alphad-{scheme}-{'cont' if mode == 'continuous' else '2k'}",
                            "cosim", k))
    return out


def spec_for(st: Setting, name: str, interval: float | None, seed: int,
             dt_static: tuple[float, ...] | None) -> RunSpec:
    if name == "dt":
        return exact(st, seed, "dt")
    if name == "dt-static":
        assert dt_static is not None
        return exact(st, seed, "dt", alphas=dt_static)
    if name in ("abm", "abm-core"):
        return exact(st, seed, name, update_rtts=float(interval or 1))
    _, scheme, mode = name.split("-")
    return cosim(st, seed, scheme, "continuous" if mode == "cont" else "pow2", float(interval or 1))


def burst_specs(seeds: list[int], gen: float, drain: float,
                fracs: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8),
                intervals: tuple[int, ...] = (10, 100, 1000)) -> list[tuple[dict[str, Any], RunSpec]]:
    """FB §6.2 multi-queue burst absorption, scaled: 5 queues (query = class 0, alpha 20;
    web-search = classes 1-4 at 90% load, alpha 0.5); DT, exact FB and FBA (alphad fb, 2^k)."""
    out = []
    for frac, seed in itertools.product(fracs, seeds):
        sc = Scenario(queues=5, load=0.9, qps=40.0, request_frac=frac, ws_classes="1-4",
                      incast_classes="0", gen=gen, drain=drain, seed=seed, sample_us=50.0)
        alphas = (20.0, 0.5, 0.5, 0.5, 0.5)
        base = {"frac": frac, "seed": seed}
        out.append(({**base, "config": "dt"}, RunSpec(scenario=sc, scheme="dt", alphas=alphas)))
        out.append(({**base, "config": "fb"},
                    RunSpec(scenario=sc, scheme="fb", alphas=alphas, groups="0,1,1,1,1")))
        prios = [{"name": "query", "queues": [0], "alpha": 16.0, "group": "high"},
                 {"name": "web", "queues": [1, 2, 3, 4], "alpha": 0.5, "group": "low"}]
        for k in intervals:
            cfg = {"interval": f"{k * RTT_US:g}us", "scheme": "fb", "priorities": prios,
                   "quantize": {"mode": "pow2", "kmin": -8, "kmax": 7, "hysteresis": 0.25}}
            out.append(({**base, "config": f"fba-{k}rtt"},
                        RunSpec(scenario=sc, scheme="alphad", alphas=alphas, alphad=cfg)))
    return out
