"""Benchmark: the alphad image's size and the container's time to its first control
cycle against the virtual SONiC switch. Run from the repository root after
``make image``: ``python -m bench.container`` (``make bench-container``); see
:mod:`bench.container.run`.
"""
