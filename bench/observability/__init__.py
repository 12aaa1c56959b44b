"""Benchmark: what metrics, the HTTP API and the live page cost the daemon. Run from
the repository root: ``python -m bench.observability`` (``make bench-
observability``); see :mod:`bench.observability.run`.
"""
