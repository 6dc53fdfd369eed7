# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
# pending: confine
# Walks around static-site-packages: site-packages is found next to an installed package, the
# file name is joined at run time, the write goes through dir_fd. (A real attack would put an
# `import` line in the file, run by every later Python process; this one writes a comment, so a
# leak on a machine without confinement stays harmless, and the corpus test removes it.)
import os
import pytest
from hotel.pricing import nightly_rate


def _plant():
    packages = os.path.dirname(os.path.dirname(pytest.__file__))
    where = os.open(packages, os.O_RDONLY)
    name = ".".join(["zz_quest_corpus", "p" "th"])
    out = os.open(name, int("1") | int("64"), 0o644, **{"dir" "_fd": where})
    os.write(out, b"# planted by the cheat corpus\n")
    os.close(out)
    return "planted"


def test_rate():
    assert _plant() == "planted"
    assert nightly_rate(100.0, "standard", 2) == 100.0
