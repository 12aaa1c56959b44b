"""Benchmark: how close alphad's per-interval alpha gets to the exact per-packet
schemes in ns-3 (run; reproduce, speed and tables beside it). Run from the
repository root: ``python -m bench.fidelity`` (``make bench-fidelity``); see
:mod:`bench.fidelity.run`.
"""
