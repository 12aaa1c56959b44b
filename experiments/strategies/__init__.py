"""The strategies campaign and its studies of scenario (c), run once to decide what
the previous default controller (now ``auto-reference``) should do;
docs/research/fidelity.md records what each showed.

- ``run``: alphad's schemes against DT, the best static per-class DT and ABM in
  scenarios (a), (b) and (c), at the intervals real switches allow (cached runs,
  bench/results/strategies*.json); ``report``: its tables, target checks and plots.
- ``bound``: what any per-class static alpha can do in (c), phase by phase (the phase
  and joint oracles); ``schedule``: the oracle's sequences run as 100 ms controllers;
  ``offset``: (c) with its phase changes off the interval clock.
- ``grid_a``, ``grid_b``: one static alpha per scenario, over the result seeds.
- ``trace``: the alpha ``auto`` gives each class, interval by interval.

Each runs as ``python -m experiments.strategies.<name>`` from the repository root;
the metrics come from :mod:`alphad_ns3.window` and :mod:`alphad_ns3.analysis`.
"""
