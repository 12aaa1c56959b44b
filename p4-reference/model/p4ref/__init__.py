"""Bit-exact executable model of the alphad P4 reference (``p4src/alphad_ref.p4``).

Modules: :mod:`arith` (fixed point, table values), :mod:`entries` (table entries),
:mod:`schema` (tables of the P4 program), :mod:`match` (P4 match semantics),
:mod:`pipeline` (the pipeline), :mod:`reference` (exact schemes in floating point),
:mod:`trace` / :mod:`replay` (admission traces), :mod:`synth` / :mod:`closed_loop`
(synthetic traffic), :mod:`errgrid` (threshold error over an input grid), :mod:`cli`.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
