"""Benchmark: the gNMI latency budget through the virtual switch. Run from the
repository root: ``python -m bench.gnmi`` (``make bench-gnmi``); see
:mod:`bench.gnmi.run`.
"""
