"""The candidates for the default controller that a switch does not run (the superseded
ones, and those under study), for the harnesses that reproduce their rows in the
evaluation (docs/evaluation.md), never for a switch.

`auto18`, the default, is built on the superseded ones' classes, so their code stays;
`auto20` to `auto39` are built on `auto18`'s. Importing this module registers
their factories as candidates: ``schemes.get`` finds them and a configuration validated
in the same process may name them, while ``schemes.known()`` (what the daemon offers and
documents) leaves them out. The daemon never imports it.

- ``auto``: the raise on every queue of the class (the default before `auto9`);
- ``auto4``: `auto` whose burst test knows strict priority (``priorities[].strict``);
- ``auto9``: the raise on idle queues only, with ``margin`` and every parameter tunable
  (the default before `auto18`; its ablations are run as ``auto9[key=value]``);
- ``auto20``: `auto18` that falls back to DT for ``HOLD_S`` when a raise harms;
- ``auto21``: `auto18` that raises and backs off to the level that absorbed the bursts;
- ``auto22``: `auto18` that raises to, and stays on, one level above the level that lost
  a burst;
- ``auto23``: `auto22` that raises only once the safety rule's reference covers
  ``HOLD_S``;
- ``auto24``: `auto18` whose raises stop below the level at which the safety rule last
  fired, one level higher per ``HOLD_S``;
- ``auto25``: `auto20` whose wait after harm doubles with each harm in a row;
- ``auto26``: `auto18` that raises nothing while a queue at line rate has no room left;
- ``auto27``: `auto26` whose evidence lasts ``HOLD_S``;
- ``auto28``: `auto18` that returns a class to alpha_p while its bursts overflow the cap
  and its loss stays at DT's;
- ``auto29``: `auto28` whose bar lifts on a burst that a level below the cap admits;
- ``auto30``: `auto18` that raises no class served after busy strict-priority traffic;
- ``auto31``: `auto18` whose safety rule judges a raise by the classes it leaves alone;
- ``auto32``: `auto18` whose safety rule judges a raise by the classes it does not raise;
- ``auto33``: `auto32` whose safety rule reads only those classes' idle queues;
- ``auto34``: `auto18` whose safety rule's reference is measured again while it raises;
- ``auto35``: `auto34` judging a raise once its reference stands for one probe of DT;
- ``auto36``: `auto25` judging the loss since a raise began, over the intervals it was used
  in, and raising only once its reference stands for a second of DT;
- ``auto37``: the probe `oracle18-memo` told every class: the raise to the cap, judged on
  the loss since it began, with DT measured again while it holds and a back-off that
  doubles;
- ``auto38``: `auto37` whose raise goes to a class's idle queues only;
- ``auto39``: `auto38` whose probes of DT take at most one raised interval in ten;
- ``oracle18``: not a candidate but a probe, `auto18` told which classes carry incast;
- ``oracle18-busy``: a probe, `oracle18` whose raise reaches the raised class's busy queues;
- ``oracle18-rules``: a probe, `oracle18-busy` with each dynamic rule behind a switch;
- ``oracle18-held``: a probe, `oracle18-rules` without the safety rule;
- ``oracle18-harm``: a probe, `oracle18-rules` with harm tests of fewer false alarms;
- ``oracle18-fresh``: a probe, `oracle18-rules` whose reference is measured while it raises;
- ``oracle18-evidence``: a probe, `oracle18-fresh` judging a raise once its reference
  stands for a second of DT;
- ``oracle18-floor``: a probe, `oracle18-evidence` without the floor of harm on busy queues;
- ``oracle18-since``: a probe, `oracle18-floor` judging the loss since a raise began;
- ``oracle18-memo``: a probe, `oracle18-since` whose back-off doubles on each harm in a row
  and whose count keeps only the intervals a raise was used in;
- ``oracle18-cf``: a probe, `oracle18-memo` whose reference is DT's loss on the same
  arrivals, from a twin simulation the harness runs in step;
- ``oracle18-shadow``: a probe, `oracle18-cf` whose reference is the run's loss less the
  drops DT would have admitted, counted by the harness program.
"""

from __future__ import annotations

from alphad.schemes import (
    auto,
    auto4,
    auto9,
    auto20,
    auto21,
    auto22,
    auto23,
    auto24,
    auto25,
    auto26,
    auto27,
    auto28,
    auto29,
    auto30,
    auto31,
    auto32,
    auto33,
    auto34,
    auto35,
    auto36,
    auto37,
    auto38,
    auto39,
    oracle18,
    oracle18_busy,
    oracle18_cf,
    oracle18_evidence,
    oracle18_floor,
    oracle18_fresh,
    oracle18_harm,
    oracle18_held,
    oracle18_memo,
    oracle18_rules,
    oracle18_shadow,
    oracle18_since,
)
from alphad.schemes._base import register

for _name, _make in (("auto", auto.make), ("auto4", auto4.make), ("auto9", auto9.make),
                     ("auto20", auto20.make), ("auto21", auto21.make),
                     ("auto22", auto22.make), ("auto23", auto23.make),
                     ("auto24", auto24.make), ("auto25", auto25.make),
                     ("auto26", auto26.make), ("auto27", auto27.make),
                     ("auto28", auto28.make), ("auto29", auto29.make),
                     ("auto30", auto30.make), ("auto31", auto31.make),
                     ("auto32", auto32.make), ("auto33", auto33.make),
                     ("auto34", auto34.make), ("auto35", auto35.make),
                     ("auto36", auto36.make), ("auto37", auto37.make),
                     ("auto38", auto38.make), ("auto39", auto39.make),
                     ("oracle18", oracle18.make), ("oracle18-busy", oracle18_busy.make),
                     ("oracle18-rules", oracle18_rules.make),
                     ("oracle18-held", oracle18_held.make),
                     ("oracle18-harm", oracle18_harm.make),
                     ("oracle18-fresh", oracle18_fresh.make),
                     ("oracle18-evidence", oracle18_evidence.make),
                     ("oracle18-floor", oracle18_floor.make),
                     ("oracle18-since", oracle18_since.make),
                     ("oracle18-memo", oracle18_memo.make),
                     ("oracle18-cf", oracle18_cf.make),
                     ("oracle18-shadow", oracle18_shadow.make)):
    register(_name, candidate=True)(_make)
