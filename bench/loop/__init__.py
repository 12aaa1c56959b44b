"""Benchmark: the cost of one control step and of one full cycle. Run from the
repository root: ``python -m bench.loop`` (``make bench-loop``); see
:mod:`bench.loop.run`.
"""
