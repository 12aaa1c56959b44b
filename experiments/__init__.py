"""One-off studies: what was measured once to decide something, kept runnable with
their tests (``python -m experiments.<study>.<script>``). The benchmarks a maintainer
keeps green are under ``bench/``."""
