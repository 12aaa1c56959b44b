"""Benchmark: one SONiC cycle of the sonic backend against a real redis-server. Run
from the repository root: ``python -m bench.sonic`` (``make bench-sonic``); see
:mod:`bench.sonic.run`.
"""
