"""Benchmark: alphad on the virtual ASIC for a long run (memory, overruns, cycle
times). Run from the repository root: ``python -m bench.soak`` (``make bench-
soak``); see :mod:`bench.soak.run`.
"""
