"""The compiled part of alphad (metadata: pyproject.toml)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "alphad._kernels", ["alphad/_kernels.c"],
    # the kernels must round as numpy does: no fused multiply-add
    extra_compile_args=["-O2", "-ffp-contract=off", "-Wall", "-Wextra"],
)])
