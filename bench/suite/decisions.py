"""What an `auto`-family scheme decided in one run, and why: the run again, its state logged.

``python -m bench.suite decisions SCN CFG --seed N [--gen G]`` runs the co-simulation of
``CFG`` on ``SCN`` once more, outside the cache (the ns-3 program and the scheme are
deterministic, so it writes what the cached run wrote), with the scheme's state read after
each decision made while a class was raised: the levels before and after, the floor of
schemes that keep one, and whether the safety rule fired (on the loss since the raise
began, for the probes that judge it), on which classes, whether
each tripped class's reference (its loss under DT) was exactly zero, whether a busy
queue's loss was among the trips, and which tripped classes had a burst of their own in
that interval (their loss is then also what the burst test raises on).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import alphad.schemes.superseded  # noqa: F401  (the candidates' classes)
from alphad.schemes.auto import Auto

from bench.suite.runs import (
    RUN_TIMEOUT_S,
    cache_dir,
    parse_config,
    program_snapshot,
    spec,
)
from bench.suite.safety import tripped
from bench.suite.scenarios import suite


@dataclass(frozen=True)
class Decision:
    switch: int  # the order in which the run built its controllers
    t: float  # s since the controller started
    before: tuple[float, ...]  # levels in force while the interval was measured
    after: tuple[float, ...]
    floor_before: tuple[float, ...] | None  # the scheme's floor, if it keeps one
    fired: bool  # the safety rule saw harm
    tripped: tuple[int, ...]  # classes whose loss tripped it (idle or busy queues)
    zero_reference: bool  # every tripped class had a reference of exactly zero
    own_burst: tuple[int, ...] = ()  # tripped classes with a burst in the interval
    busy: bool = False  # a busy queue's loss (sustained flows) was among what tripped it


def _scheme_class(name: str) -> type[Auto]:
    todo: list[type[Auto]] = [Auto]
    while todo:
        k = todo.pop()
        if k.name == name:
            return k
        todo += k.__subclasses__()
    raise ValueError(f"{name}: not an auto-family scheme")


@contextmanager
def logged(name: str) -> Iterator[list[Decision]]:
    """While open, every decision of scheme ``name`` made with a class raised is logged."""
    cls = _scheme_class(name)
    call, backs_off = cls.__call__, cls._backs_off
    since_backs_off = getattr(cls, "_since_backs_off", None)
    harmed_since = getattr(cls, "_harmed_since", None)
    log: list[Decision] = []
    ids: dict[int, int] = {}

    def record(self: Any, trips: list[tuple[int, int]], fires: bool) -> bool:
        """Log a safety test's verdict: the entries that tripped it, if it fired."""
        self._logged_trips = trips if fires else None
        return fires

    def fired(self: Any, t: float) -> bool:
        # the levels are still those in force: the entries that tripped the rule now
        harm = getattr(self, "_harm", None)  # a scheme with a test of its own reports it
        trips = harm() if harm else tripped(self.loss, self.base, [k > 0 for k in self.level],
                                          self.p)
        self._logged_bursting = set(self.cls[self._burst].tolist())
        return record(self, trips, backs_off(self, t))

    def since_fired(self: Any, raised: list[bool]) -> bool:
        # a probe that judges the loss since the raise began: its own entries and test
        self._logged_bursting = set(self.cls[self._burst].tolist())
        return record(self, self._trips(self._since_loss(), raised),
                      since_backs_off(self, raised))

    def harmed_since_fired(self: Any, raised: list[bool]) -> bool:
        # a candidate that judges the loss since the raise began: its own entries and test
        self._logged_bursting = set(self.cls[self._burst].tolist())
        return record(self, self._trips_since(raised), harmed_since(self, raised))

    def decide(self: Any, est: Any) -> Any:
        before, self._logged_trips, self._logged_bursting = list(self.level), None, set()
        floor = getattr(self, "floor", None)
        floor = tuple(floor) if floor is not None else None
        out = call(self, est)
        if any(before) or any(self.level):
            trips = self._logged_trips or []
            classes = tuple(sorted({c for _, c in trips}))
            log.append(Decision(
                ids.setdefault(id(self), len(ids)), round(self.t, 6), tuple(before),
                tuple(self.level), floor, self._logged_trips is not None, classes,
                bool(trips) and all(self.base[i][c] == 0 for i, c in trips),
                tuple(c for c in classes if c in self._logged_bursting),
                any(i == 1 for i, _ in trips)))
        return out

    hooks = {"__call__": decide, "_backs_off": fired}
    if since_backs_off is not None:
        hooks["_since_backs_off"] = since_fired
    if harmed_since is not None:
        hooks["_harmed_since"] = harmed_since_fired
    own = {k: cls.__dict__[k] for k in hooks if k in cls.__dict__}
    for k, f in hooks.items():
        setattr(cls, k, f)
    try:
        yield log
    finally:
        for k in hooks:
            if k in own:
                setattr(cls, k, own[k])
            else:
                delattr(cls, k)


def summary(log: list[Decision]) -> str:
    """Decisions with a class raised, the safety rule's firings, those on zero references,
    those with a busy queue among the trips, those on the tripped classes' own bursts, and
    the steps below a floor the rule caused."""
    fired = [d for d in log if d.fired]
    below = sum(any(a < min(b, f) for a, b, f in zip(d.after, d.before, d.floor_before,
                                                     strict=True))
                for d in fired if d.floor_before is not None)
    return (f"{len(log)} decisions with a class raised, the safety rule fired in {len(fired)}, "
            f"{sum(d.zero_reference for d in fired)} of them on zero references only, "
            f"{sum(d.busy for d in fired)} with a busy queue's loss among the trips, "
            f"{sum(bool(d.tripped) and d.own_burst == d.tripped for d in fired)} on "
            "tripped classes that each had a burst of their own, "
            f"{below} steps below a floor on its firings")


def decisions(scenario: str, config: str, seed: int, gen: float | None = None
              ) -> list[Decision]:
    """The run of ``config`` on ``scenario`` again, its scheme's decisions logged, on the
    program snapshot ``run`` uses (the program with its own harness library)."""
    from alphad_ns3.run import RunError, run

    sc = {s.name: s for s in suite("all")}.get(scenario)
    if sc is None:
        raise ValueError(f"no scenario {scenario!r} (python -m bench.suite list)")
    cfg = parse_config(config)
    if cfg.kind != "alphad":
        raise ValueError(f"{config}: only co-simulated configs decide")
    try:
        program, _ = program_snapshot(cache_dir())
    except SystemExit as e:  # the program is not built: a named error, as ``run`` gives
        raise RunError(str(e)) from None
    with logged(cfg.scheme) as log, tempfile.TemporaryDirectory() as d:
        run(spec(sc, cfg, seed, gen), d, program=program, timeout=RUN_TIMEOUT_S)
    return log


def report(log: list[Decision]) -> str:
    lines = []
    for d in log:
        fl = f" floor {_levels(d.floor_before)}" if d.floor_before is not None else ""
        why = (f" fired on c{',c'.join(map(str, d.tripped))}"
               + (" (zero references)" if d.zero_reference else "")
               + (" (busy)" if d.busy else "")
               + (f" (own burst: c{',c'.join(map(str, d.own_burst))})" if d.own_burst
                  else "")) if d.fired else ""
        lines.append(f"switch {d.switch} {d.t:6.2f}s {_levels(d.before)} -> "
                     f"{_levels(d.after)}{fl}{why}")
    return "\n".join([*lines, summary(log)])


def _levels(v: tuple[float, ...]) -> str:
    return "[" + " ".join(f"{x:g}" for x in v) + "]"
