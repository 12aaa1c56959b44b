"""The ns-3 harness from Python: scenarios, runs (exact schemes or alphad co-simulated),
analysis, many runs (cache, process pool, Dask) and plots."""

__all__ = ["analysis", "plots", "run", "scenario", "sweep"]
