"""The one thing pyproject.toml cannot say stably: the optional C extension.

``pytest_quest._kernel`` makes the system calls that confine each run without ctypes in the
run's memory (``pytest_quest/_kernel.c``, docs/security.md). It is optional: where no C
compiler is found the install goes on, and ``pytest_quest.syscalls`` makes the same calls
through ctypes.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("pytest_quest._kernel", ["pytest_quest/_kernel.c"], optional=True)])
