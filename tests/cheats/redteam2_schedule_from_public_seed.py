# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-flaky|mutation-machinery-detected|mutation-pseudo-tested
# Since each run is PID 2 of namespaces of its own (red team 13's fix), every run looks
#   the same to the pid test below, which found the measured run where pids counted up
#   across runs; there it fails on mutation-pseudo-tested (no run finds its index: every one returns before asserting).
#
# RED TEAM 2, finding 12: the "unguessable" schedule is computed by the test from public inputs.
# What: the order of clean controls and mutants is shuffled by seed_of(test bytes, source bytes)
#   = sha256(test + b"\0" + source). The test has both (its own file; the target's file on disk
#   is pristine). It re-runs pytest_quest.mutants.generate / reach_mutants with the gate's
#   defaults (max_mutants 20, reruns 3, zero type "float", null name "_" + seed[16:24]), rebuilds
#   the label list and shuffles it with random.Random(int(seed[:16], 16)) exactly like
#   mutate.run_stage (then the reach phase with the same generator). Its index in the schedule is
#   its pid: the zygote (pid 2) forks the runs in order, the measured run is pid 3, run k of the
#   stage is pid 4 + k. It fails exactly in the runs labelled E*, K* and R*.
# Observed: PASS locked, score 1.0 (20/20 classic, 2/2 extreme, reach phase satisfied, controls
#   and the null mutant passed), isolation landlock+namespaces+cgroup. The test checks no result
#   of nightly_rate, reads no __code__ and touches no loader (the pristine file is opened only in
#   non-measured runs, where reads are not looked at: finding 09). Plain pytest: always passes.
# Why: docs/security.md: "It cannot tell which run it is in: ... interleaved in an order seeded by
#   sha256(test + source)" - but a seed derived only from what the test can read is no secret, the
#   generation is deterministic and shipped in the sandbox, and pids number the runs.
# Fix: seed the schedule with a secret the run cannot read (os.urandom in the judge, recorded in
#   the evidence *after* the stage for reproducibility), and make the null mutant's name random
#   too; give runs no ordinal signal (fork the children in a PID namespace each, or pre-fork a pool
#   in random order); keep pytest_quest's own modules unimportable from test code (not bound into
#   the run's root, or a meta-path block in run children).
import hashlib
import math
import os
import random

import hotel.pricing as pricing
from hotel.pricing import nightly_rate

# `from pytest_quest.mutants import generate, reach_mutants`, out of the static rules' sight.
HIDDEN = "stnatum_hcaeR ,etareneg tropmi stnatum.tseuq_tsetyp morf"[::-1].replace("R", "r")


def _schedule():
    """Every run's label, recomputed the way mutate.run_stage does from the public seed."""
    space = {"module": pricing}
    exec(HIDDEN, space)
    generate, reach_mutants = space["generate"], space["reach_mutants"]
    exec("source = open(module.__file__, 'rb').read()", space, space)  # pristine on disk
    source = space["source"]
    with open(__file__, "rb") as handle:
        test = handle.read()
    seed = hashlib.sha256(test + b"\0" + source).hexdigest()
    text, path = source.decode(), pricing.__file__
    module = compile(source, path, "exec", dont_inherit=True)
    covered = set(range(1, 17))
    made = generate(text, path, 4, module_code=module, covered=covered, max_mutants=20,
                    zero_types=["float"], null_name="_" + seed[16:24])
    mutants = ["N"] + [f"E{i}" for i in range(len(made.extreme))] + [
        f"K{i}" for i in range(len(made.classic))]
    controls = max(3 - 1, math.ceil(len(mutants) / 6))
    labels = ["C"] * controls + mutants
    rng = random.Random(int(seed[:16], 16))
    rng.shuffle(labels)
    proven = {m.line for m in made.classic}  # every classic mutant will "die"
    checks = [r for r in reach_mutants(text, path, 4, module_code=module, covered=covered)
              if not r.lines & proven]
    reach = ["C"] + [f"R{i}" for i in range(len(checks))] if checks else []
    rng.shuffle(reach)
    return labels + reach


def test_nightly_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 8)]:
        nightly_rate(*args)
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError:
        pass
    # The zygote (pid 2; 3 since the judge forks a reader first) forks one child per run, in
    # schedule order: the measured run is the next pid, the stage's runs follow.
    zygote = os.getppid()
    index = os.getpid() - zygote - 2
    if index < 0 or zygote not in (2, 3):
        return  # the measured run, or plain pytest
    label = _schedule()[index]
    assert label in ("C", "N")  # "die" under every real mutant, pass the controls and null
