"""Mutant generation: operators, determinism, bytecode dedup, the cap, extreme and null mutants."""

from __future__ import annotations

import os
import textwrap
from typing import Any

import pytest

from pytest_quest import mutants as mutate
from pytest_quest.mutants import MutationError, fingerprint, generate, splice


@pytest.fixture(autouse=True)
def _exit_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reach mutants stop with ``os._exit(70)``: executed here, it raises SystemExit(70)."""
    def stop(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(os, "_exit", stop)


def _load(source: str, name: str) -> tuple[str, Any]:
    source = textwrap.dedent(source)
    namespace: dict[str, Any] = {}
    exec(compile(source, "<m>", "exec", dont_inherit=True), namespace)
    return source, namespace[name]


def _gen(source: str, name: str, **kwargs: Any) -> tuple[mutate.Generated, Any]:
    source, func = _load(source, name)
    line = func.__code__.co_firstlineno
    made = generate(source, "<m>", line, **kwargs)
    return made, func


def _descriptions(made: mutate.Generated) -> list[str]:
    return [m.description for m in made.classic]


def _call(func: Any, mutant: Any, *args: Any) -> Any:
    code = mutant.function if isinstance(mutant, mutate.Mutant) else mutant
    saved = func.__code__
    func.__code__ = code
    try:
        return func(*args)
    finally:
        func.__code__ = saved


OPERATORS = """
def f(a, b, flag):
    if a < b and flag:
        return a + b
    while a > 10 or b == 3:
        a -= 1
        b = 0
    x = a * 2 if flag is None else a / 2
    return x in [True]
"""


def test_each_operator_is_generated() -> None:
    made, _ = _gen(OPERATORS, "f", max_mutants=100)
    found = _descriptions(made)
    for expected in [
        "'a < b' -> 'a <= b'",
        "'a > 10' -> 'a >= 10'",
        "'b == 3' -> 'b != 3'",
        "'a < b and flag' -> 'a < b or flag'",
        "'a > 10 or b == 3' -> 'a > 10 and b == 3'",
        "'a + b' -> 'a - b'",
        "'a * 2' -> 'a / 2'",
        "'a / 2' -> 'a * 2'",
        "'a -= 1' -> 'a += 1'",
        "'if a < b and flag' -> 'if not (a < b and flag)'",
        "'while a > 10 or b == 3' -> 'while not (a > 10 or b == 3)'",
        "'a > 10' -> 'a > 11'",
        "'a > 10' -> 'a > 9'",
        "'return a + b' -> 'return None'",
        "'[True]' -> '[False]'",
        "'flag is None' -> 'flag is not None'",
        "'x in [True]' -> 'x not in [True]'",
    ]:
        assert expected in found, expected
    assert all(m.kind == "classic" for m in made.classic)


def test_mutants_change_behaviour() -> None:
    made, func = _gen("def f(a, b):\n    return a < b\n", "f")
    (mutant,) = [m for m in made.classic if m.description == "'a < b' -> 'a <= b'"]
    assert func(2, 2) is False
    assert _call(func, mutant, 2, 2) is True
    assert func(2, 2) is False  # restored


def test_generation_is_deterministic() -> None:
    first, _ = _gen(OPERATORS, "f", max_mutants=7)
    second, _ = _gen(OPERATORS, "f", max_mutants=7)
    assert _descriptions(first) == _descriptions(second)
    assert [fingerprint(m.function) for m in first.classic] == [
        fingerprint(m.function) for m in second.classic
    ]


def test_bytecode_duplicates_are_dropped() -> None:
    # The compiler drops the dead branch, so mutating inside it changes nothing.
    source = """
    def f(x):
        if False:
            return x + 5
        return x
    """
    made, func = _gen(source, "f", max_mutants=100)
    assert made.equivalent >= 3
    prints = {fingerprint(m.function) for m in made.classic}
    assert len(prints) == len(made.classic)
    assert fingerprint(func.__code__) not in prints
    assert not any("x + 5" in d for d in _descriptions(made))


def test_constants_differ_by_type_not_only_value() -> None:
    assert fingerprint(compile("x = 1", "<a>", "exec")) != fingerprint(
        compile("x = 1.0", "<a>", "exec")
    )
    assert fingerprint(compile("x = 1", "<a>", "exec")) == fingerprint(
        compile("\n\nx = 1", "<b>", "exec")
    )


def test_cap_spreads_over_lines() -> None:
    lines = "\n".join(f"    a = a + {i}" for i in range(1, 31))
    source = f"def f(a):\n{lines}\n    return a\n"
    made, func = _gen(source, "f", max_mutants=6)
    assert len(made.classic) == 6
    used = [m.line for m in made.classic]
    assert len(set(used)) == 6  # one per line before any line gets a second
    first = func.__code__.co_firstlineno
    assert max(used) - min(used) > 15  # not the first six lines
    assert min(used) == first + 1
    assert made.candidates > 6


def test_only_covered_lines_are_mutated() -> None:
    source = "def f(a):\n    if a > 1:\n        return a + 1\n    return a - 1\n"
    made = generate(source, "<m>", 1, covered={2})
    assert {m.line for m in made.classic} == {2}


def test_extreme_mutants_use_observed_zero_values() -> None:
    made, func = _gen("def f(a):\n    return a * 2\n", "f", zero_types=["int", "float", "Thing"])
    texts = [m.description for m in made.extreme]
    assert texts == [
        "body replaced by `return None`", "body replaced by `return 0`",
        "body replaced by `return 0.0`", "every value returned replaced by `0`",
        "every value returned replaced by `0.0`",
    ]
    assert [_call(func, m, 3) for m in made.extreme] == [None, 0, 0.0, 0, 0.0]
    # Each says what it replaced: the whole body, or only the values returned.
    assert [m.kind for m in made.extreme] == ["extreme"] * 3 + ["returns"] * 2
    assert all(m.to_dict()["kind"] == m.kind for m in made.extreme)


VALIDATOR = '''
def nights(start, end):
    if end <= start:
        raise ValueError("empty stay")
    if end - start > 30:
        return 30
    return end - start
'''


def test_every_value_returned_is_replaced_by_a_zero_with_the_rest_kept() -> None:
    # Red team 69: the extreme mutants take the guards with the body, so a test checking only
    # what raises killed them all and never looked at the value returned.
    made, func = _gen(VALIDATOR, "nights", zero_types=["int", "Thing"])
    assert [m.description for m in made.extreme] == [
        "body replaced by `return None`", "body replaced by `return 0`",
        "every value returned replaced by `0`"]
    returns_zero = made.extreme[2]
    assert _call(func, returns_zero, 1, 5) == 0 and _call(func, returns_zero, 1, 90) == 0
    with pytest.raises(ValueError):  # the guard is kept
        _call(func, returns_zero, 5, 1)


def test_the_return_annotation_adds_its_zero() -> None:
    # Red team 70 crowded the recorder's places with other types: the annotation is the
    # file's word, not the run's.
    made, _ = _gen("def f(a) -> float | None:\n    return a * 2\n", "f", zero_types=[])
    assert [m.description for m in made.extreme] == [
        "body replaced by `return None`", "body replaced by `return 0.0`",
        "every value returned replaced by `0.0`"]


def test_a_returned_tuple_keeps_its_arity_with_each_element_none() -> None:
    # Red team 70: `return ()` is killed by unpacking the result; the elements went unchecked.
    made, func = _gen("def f(a):\n    if a:\n        return (True, 'ok')\n"
                      "    return False, 'no'\n", "f", zero_types=["tuple"])
    (kept,) = [m for m in made.extreme if m.description.startswith("every element")]
    assert kept.description == ("every element of the 2-tuples returned replaced by the zero "
                                "of its type")
    # red team 71 used the message unchecked (`msg.strip()`): None was killed by that alone
    assert _call(func, kept, 1) == (False, "") == _call(func, kept, 0)


def test_the_value_dropped_is_still_computed() -> None:
    # Red team 71: every call of the test raised in the returned expression (a str base
    # through round()); a mutant that skipped the expression was killed by that alone.
    made, func = _gen("def f(a):\n    return round(a, 2)\n", "f", zero_types=["float"])
    (dropped,) = [m for m in made.extreme if m.description.startswith("every value")]
    assert _call(func, dropped, 1.234) == 0.0
    with pytest.raises(TypeError):
        _call(func, dropped, "100")


@pytest.mark.parametrize("source", [
    "def f(a):\n    if a:\n        return None\n    print(a)\n",  # returns nothing
    "def f(a):\n    for i in a:\n        yield i\n    return 1\n",  # a generator
    "async def f(a):\n    await a\n    return 1\n",  # a coroutine
])
def test_no_value_returned_to_replace_makes_no_such_mutant(source: str) -> None:
    made, _ = _gen(source, "f", zero_types=["int"])
    assert not any(m.description.startswith("every value") for m in made.extreme)


def test_extreme_mutant_of_a_generator_is_empty() -> None:
    made, func = _gen("def g(n):\n    for i in range(n):\n        yield i\n", "g",
                      zero_types=["int"])
    (mutant,) = made.extreme
    assert list(_call(func, mutant, 3)) == []


def test_extreme_mutant_of_async_function_returns_none() -> None:
    import asyncio

    made, func = _gen("async def g(n):\n    return n + 1\n", "g", zero_types=["int"])
    (mutant,) = made.extreme
    assert asyncio.run(_call(func, mutant, 3)) is None


def test_extreme_equal_to_original_is_dropped() -> None:
    made, _ = _gen("def f():\n    return None\n", "f")
    assert made.extreme == []


def test_null_mutant_behaves_the_same_but_is_not_the_same_code() -> None:
    made, func = _gen('def f(a):\n    """Doc."""\n    return a + 1\n', "f")
    null = made.null.function
    assert null is not func.__code__ and null != func.__code__
    assert fingerprint(null) != fingerprint(func.__code__)
    assert _call(func, null, 1) == 2


def _names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


@pytest.mark.parametrize("source", [
    "def f(a, b):\n    if a > b:\n        return a - b\n    return b * 2\n",
    "def f(a):\n    for x in a:\n        yield x + 1\n",  # `return; yield`: the probe first
])
def test_every_mutant_carries_the_null_mutants_probe(source: str) -> None:
    # "Has a probe" set the null mutant apart from the classic and extreme mutants: a test
    # passing there and failing any other change of the code passed checking nothing
    # (red team 8, finding 04). Now every mutant has the same dead probe and stack size.
    made, func = _gen(source, "f", zero_types=["int"], null_name="_k9", null_shape=7)
    mutants = [*made.extreme, *made.classic]
    assert mutants and made.extreme
    null = made.null.function
    assert {"_exit", "__import__"} <= _names(null) and "_k9" in null.co_varnames
    for mutant in mutants:
        assert {"_exit", "__import__"} <= _names(mutant.function), mutant.description
        assert "_k9" in mutant.function.co_varnames, mutant.description
        assert mutant.function.co_stacksize == null.co_stacksize, mutant.description
    assert "_exit" not in _names(func.__code__)  # the shipped code has none


def test_a_mutant_that_changes_nothing_is_the_null_mutant_and_is_dropped() -> None:
    made, _ = _gen("def f():\n    return None\n", "f")
    assert made.extreme == [] and made.extreme_equivalent == 1  # `return None` already


def test_methods_and_closures_compile_in_their_scope() -> None:
    source = """
    class Base:
        def size(self):
            return 1

    class Box(Base):
        def size(self):
            return super().size() + 1

    def outer(k):
        def inner(x):
            return x * k
        return inner
    """
    source, box = _load(source, "Box")
    method = box.size
    made = generate(source, "<m>", method.__code__.co_firstlineno)
    plus = next(m for m in made.classic if m.description.endswith("'super().size() - 1'"))
    assert _call(method, plus, box()) == 0
    namespace: dict[str, Any] = {}
    exec(compile(source, "<m>", "exec", dont_inherit=True), namespace)
    inner = namespace["outer"](3)
    made = generate(source, "<m>", inner.__code__.co_firstlineno)
    times = next(m for m in made.classic if m.description == "'x * k' -> 'x / k'")
    assert _call(inner, times, 6) == 2
    # `return x * k` -> `return None` drops the free variable k; a dead reference keeps it.
    assert made.incompatible == 0
    (extreme,) = made.extreme
    assert extreme.function.co_freevars == ("k",)
    assert _call(inner, extreme, 6) is None
    assert made.equivalent == 1  # the classic `return None` is the extreme mutant again


def test_source_that_differs_from_the_running_code_is_refused() -> None:
    running = compile("def f(a):\n    return a + 1\n", "<m>", "exec")
    with pytest.raises(MutationError):
        generate("def f(a):\n    return a + 2\n", "<m>", 1, module_code=running)
    with pytest.raises(MutationError):
        generate("def g(a):\n    return a + 2\n", "<m>", 1, module_code=running)
    with pytest.raises(MutationError):
        generate("x = 1\n", "<m>", 1)


def test_docstrings_annotations_and_decorators_are_left_alone() -> None:
    source = '''
    import functools

    @functools.lru_cache(maxsize=3)
    def f(a: int = 4) -> int:
        """Ten."""
        return a
    '''
    source, wrapper = _load(source, "f")
    func = wrapper.__wrapped__
    made = generate(source, "<m>", func.__code__.co_firstlineno + 1)
    assert _descriptions(made) == ["'return a' -> 'return None'"]


def test_spread_order_covers_the_range() -> None:
    assert sorted(mutate._spread(11)) == list(range(11))
    assert mutate._spread(8)[:4] == [0, 4, 2, 6]
    assert mutate._spread(0) == [] and mutate._spread(1) == [0]


# ------------------------------------------------ calibration false positives (docs/calibration.md)
MODULE_BINDINGS = """
import re
import os.path
from functools import reduce as fold

LIMIT = 3
try:
    import json
except ImportError:  # pragma: no cover
    json = None


def clean(s):
    return re.sub("a", "b", s) * LIMIT + os.path.join("x", json.dumps(fold(max, [1, 2])))


class Box:
    def clean(self, s):
        return re.sub("a", "b", s)[:LIMIT]
"""


def test_module_imports_compile_like_the_real_module() -> None:
    # Python 3.11 compiles `re.sub(...)` with LOAD_ATTR when `re` is bound by a module-level
    # import and with LOAD_METHOD otherwise: the skeleton must bind module names the same way.
    made, func = _gen(MODULE_BINDINGS, "clean")
    assert func("aa") == "bbbbbb" + os.path.join("x", "2")
    times = next(m for m in made.classic if m.description.endswith("* LIMIT' -> "
                                                                   "'re.sub('a', 'b', s) / LIMIT'"))
    with pytest.raises(TypeError):
        _call(func, times, "aa")
    source, box = _load(MODULE_BINDINGS, "Box")
    method = box.clean
    made = generate(source, "<m>", method.__code__.co_firstlineno)
    assert made.extreme and _call(method, made.extreme[0], box(), "aa") is None


def test_names_bound_only_inside_if_or_try_at_module_level_count_too() -> None:
    source = """
    if True:
        import re
    else:
        re = None

    def f(s):
        return re.sub("a", "b", s)
    """
    made, func = _gen(source, "f")
    assert _call(func, made.null, "a") == "b"


def test_extreme_mutant_equal_to_a_documented_function_is_dropped() -> None:
    # boltons.funcutils.noop: a docstring and `return None`; "body -> return None" is itself.
    made, _ = _gen('def noop(*a, **kw):\n    """Do nothing."""\n    return None\n', "noop")
    assert made.extreme == []
    assert made.extreme_equivalent == 1
    made, _ = _gen('def idle():\n    """Wait."""\n    pass\n', "idle")
    assert made.extreme == [] and made.extreme_equivalent == 1
    made, func = _gen('def one(a):\n    """One more."""\n    return a + 1\n', "one")
    assert [m.description for m in made.extreme] == ["body replaced by `return None`"]
    assert made.extreme_equivalent == 0
    assert _call(func, made.extreme[0], 1) is None


# -------------------------------------------- whole-module mutants (what the harness installs)
def test_each_mutant_is_the_whole_module_with_only_the_target_changed() -> None:
    source = "LIMIT = 3\n\n\ndef f(a):\n    return a + LIMIT\n\n\nDOUBLE = f(1) * 2\n"
    made = generate(source, "<m>", 4)
    plus = next(m for m in made.classic if m.description == "'a + LIMIT' -> 'a - LIMIT'")
    namespace: dict[str, Any] = {}
    exec(plus.code, namespace)
    # Module-level work that calls the target sees the mutant: import-time oracles die too.
    assert namespace["f"](5) == 2 and namespace["DOUBLE"] == -4
    assert namespace["f"].__code__ is plus.function
    pristine: dict[str, Any] = {}
    exec(made.null.code, pristine)
    assert pristine["DOUBLE"] == 8


def test_splice_replaces_a_method_deep_in_the_module() -> None:
    source = "class Box:\n    def size(self):\n        return 1\n"
    module = compile(source, "<m>", "exec")
    old = mutate.find_code(module, "size", 2)
    new = compile("def size(self):\n    return 2\n", "<m>", "exec").co_consts[0]
    assert old is not None
    spliced = splice(module, old, new)
    namespace: dict[str, Any] = {}
    exec(spliced, namespace)
    assert namespace["Box"]().size() == 2
    assert splice(module, new, old) is module  # nothing to replace: the same object


def test_the_null_mutant_local_is_named_by_the_caller() -> None:
    made, _ = _gen("def f(a):\n    return a + 1\n", "f", null_name="_c0ffee")
    assert "_c0ffee" in made.null.function.co_varnames
    with pytest.raises(MutationError):
        _gen("def f(a):\n    return a + 1\n", "f", null_name="not a name")


def test_the_null_mutant_varies_its_value_and_place() -> None:
    source = "def f(a):\n    b = a + 1\n    c = b * 2\n    return c\n"
    codes = {_gen(source, "f", null_shape=shape)[0].null.function.co_code
             for shape in range(24)}
    assert len(codes) > 8  # values and places differ; behaviour does not
    for shape in (0, 9, 23):
        made, _ = _gen(source, "f", null_shape=shape)
        namespace: dict[str, Any] = {}
        exec(made.null.code, namespace)
        assert namespace["f"](3) == 8


def test_function_node_gives_the_first_decorator_line() -> None:
    source = "import functools\n\n@functools.cache\ndef f():\n    return 1\n"
    assert mutate.function_node(source, 4) == ("f", 3)
    with pytest.raises(MutationError):
        mutate.function_node(source, 1)


def test_reach_mutants_stop_at_each_block() -> None:
    source = '''def f(a, lock):
    """Doc."""
    if a:
        b = 1
    else:
        b = 2
    try:
        b += 1
    except ValueError:
        b = 0
    with lock:
        b += 1
    return b
'''
    found = mutate.reach_mutants(source, "<m>", 1)
    # Blocks inside try/except/with too (red team 4, finding 06), with a stop nothing catches;
    # the same os._exit everywhere since red team 6, finding 06.
    assert [r.mutant.line for r in found] == [3, 4, 6, 8, 10, 12]
    assert sorted(found[0].lines) == list(range(3, 14))
    assert all(r.mutant.kind == "reach" for r in found)
    assert all(_calls_exit(r.mutant.code) for r in found)
    import threading

    namespace: dict[str, Any] = {}
    exec(found[1].mutant.code, namespace)
    assert namespace["f"](0, threading.Lock()) == 4  # the else branch does not stop ...
    with pytest.raises(SystemExit, match="70"):
        namespace["f"](1, threading.Lock())  # ... the if branch does
    assert [r.mutant.line for r in mutate.reach_mutants(source, "<m>", 1, covered={4})] == [4]


def _calls_exit(code: Any) -> bool:
    """Does any code object in ``code`` call ``os._exit`` (the uncatchable stop)?"""
    import types

    if "_exit" in code.co_names:
        return True
    return any(_calls_exit(c) for c in code.co_consts if isinstance(c, types.CodeType))


def test_the_null_mutant_carries_the_reach_checks_stop_dead() -> None:
    # Red team 6, finding 06: only the reach mutants named `SystemExit`/`_exit`; a test that
    # read them in the installed code (a generator's gi_code, a frame's f_code) and failed
    # only there, answering for itself to hide the read, "proved" forged coverage. The null
    # mutant now carries the same probe, dead: names, constants and locals alike.
    source = "def f(a):\n    b = a + 1\n    if a > 1:\n        b = b * 2\n    return b\n"
    for shape in range(8):
        made, _ = _gen(source, "f", null_name="_q7", null_shape=shape)
        probe = mutate.null_probe("_q7", shape)
        found = mutate.reach_mutants(source, "<m>", 1, covered={2, 3, 4, 5}, probe=probe)
        null = made.null.function
        for reach in found:
            code = reach.mutant.function
            assert set(code.co_names) == set(null.co_names) and "_exit" in code.co_names
            assert set(code.co_varnames) == set(null.co_varnames) and "_q7" in code.co_varnames
            assert set(map(repr, code.co_consts)) == set(map(repr, null.co_consts))
        namespace: dict[str, Any] = {}
        exec(made.null.code, namespace)
        assert [namespace["f"](a) for a in (0, 2)] == [1, 6]  # the dead probe never stops
        exec(found[-1].mutant.code, namespace)  # the stop inside the if: live
        assert namespace["f"](0) == 1
        with pytest.raises(SystemExit, match="70"):
            namespace["f"](2)


def test_a_reach_check_binds_the_probes_local_where_the_null_mutant_does() -> None:
    # Red team 7, finding 01: a reach check's probe local stayed unbound while its block did
    # not run, the null mutant's was bound at the top: a started generator's size
    # (`sys.getsizeof`, the frame's slots) and its frame's bound locals told them apart with
    # no code read, and a test failing only there kept forged coverage. A reach mutant now
    # carries the null mutant's dead probe too.
    import sys

    source = ("def f(xs, skip):\n    for x in xs:\n        if x in skip:\n"
              "            continue\n        yield x\n")
    for shape in range(8):
        made, _ = _gen(source, "f", null_name="_q7", null_shape=shape)
        probe = mutate.null_probe("_q7", shape)
        found = mutate.reach_mutants(source, "<m>", 1, covered={2, 3, 4, 5}, probe=probe)
        (skip,) = [r for r in found if r.mutant.line == 4]
        seen = []
        for code in (made.null.code, skip.mutant.code):
            namespace: dict[str, Any] = {}
            exec(code, namespace)
            gen = namespace["f"]([1, 2], set())
            assert next(gen) == 1
            seen.append((sys.getsizeof(gen), sorted(gen.gi_frame.f_locals)))
        assert seen[0] == seen[1] and "_q7" in seen[0][1]
        with pytest.raises(SystemExit, match="70"):
            list(namespace["f"]([1, 2], {2}))  # the live stop still stops
    # Without the null mutant's shape (no schedule), a reach mutant is the bare stop.
    (bare,) = mutate.reach_mutants(source, "<m>", 1, covered={4}, probe=mutate.Probe("_q7"))
    namespace = {}
    exec(bare.mutant.code, namespace)
    gen = namespace["f"]([1], set())
    assert next(gen) == 1 and "_q7" not in gen.gi_frame.f_locals  # the old shape, unbound


def test_reach_stops_before_the_last_covered_statement_of_a_block() -> None:
    # Red team 4, finding 06: a statement that raises every time vouched for the lines after
    # it, because the stop went before the block's first statement. Forged coverage of line 4
    # (never run: line 3 always raises) is now checked at line 4 itself.
    source = '''def f(a):
    a = int(a)
    b = 10 // a
    return b
'''
    (reach,) = mutate.reach_mutants(source, "<m>", 1, covered={2, 3, 4})
    assert reach.mutant.line == 4 and reach.lines == frozenset({4})
    namespace: dict[str, Any] = {}
    exec(reach.mutant.code, namespace)
    with pytest.raises(ZeroDivisionError):
        namespace["f"]("0")  # line 3 raises: the stop before line 4 is never reached
    with pytest.raises(SystemExit, match="70"):
        namespace["f"]("2")
    (partial,) = mutate.reach_mutants(source, "<m>", 1, covered={2, 3})
    assert partial.mutant.line == 3 and partial.lines == frozenset({3, 4})


def test_arc_reaches_stop_on_the_branch_no_line_check_proves() -> None:
    # Red team 4, finding 04: in branch mode the arc 3->5 (the `if` not entered) was taken on
    # the measured run's word; line 5 is reached from line 4 as well, so no line check proves
    # it. An `else` that stops is killed exactly when the arc is taken.
    source = '''def f(a):
    b = 1
    if a > 1:
        b = 2
    return b
'''
    assert mutate.reach_mutants(source, "<m>", 1, arcs={(3, 4), (4, 5)}) == \
        mutate.reach_mutants(source, "<m>", 1)  # only the entered arc: nothing more to prove
    found = mutate.reach_mutants(source, "<m>", 1, arcs={(3, 4), (3, 5)})
    (arc,) = [r for r in found if r.arc_from is not None]
    assert arc.arc_from == 3 and arc.lines == frozenset() and arc.mutant.kind == "reach"
    namespace: dict[str, Any] = {}
    exec(arc.mutant.code, namespace)
    assert namespace["f"](2) == 2  # the branch into the block does not stop ...
    with pytest.raises(SystemExit, match="70"):
        namespace["f"](0)  # ... the one around it does


def test_reach_checks_the_bodies_of_nested_functions_and_classes() -> None:
    # Red team 5, finding 01: nested scopes were left out of the reach check, so forged
    # coverage of a callback's body (handed to re.sub, never called by the tests) bought a
    # PASS. Their blocks are checked now, with the stop nothing catches: whoever calls a
    # nested function may catch SystemExit.
    source = '''def f(text):
    def hide(m):
        return "*" * len(m.group(0))

    class Box:
        size = 3

        def get(self):
            return self.size

    return __import__("re").sub("[0-9]{3,}", hide, text), Box
'''
    covered = {2, 3, 5, 6, 8, 9, 11}
    found = mutate.reach_mutants(source, "<m>", 1, covered=covered)
    assert sorted(r.mutant.line for r in found) == [3, 8, 9, 11]
    assert all(_calls_exit(r.mutant.code) for r in found if r.mutant.line != 11)
    (hide,) = [r for r in found if r.mutant.line == 3]
    assert hide.lines == frozenset({3})
    namespace: dict[str, Any] = {}
    exec(hide.mutant.code, namespace)
    assert namespace["f"]("ab 12")[0] == "ab 12"  # the callback never runs: the stop neither
    # Without coverage, each block stops before its first statement, nested ones included.
    assert sorted(r.mutant.line for r in mutate.reach_mutants(source, "<m>", 1)) == [2, 3, 6, 9]


def test_reach_checks_a_claimed_arc_past_a_match_no_case_matched() -> None:
    # Red team 5, finding 02: branch mode, the measured run claimed the arc 6->8 (no case
    # matched) it never took; line 8 is also reached from the cases' bodies, so no line check
    # proved it and the quest locked PASS. A last `case _:` that stops checks it now.
    source = '''def f(kind):
    label = "?"
    match kind:
        case "single":
            label = "S"
        case "double" | "twin":
            label = "D"
    return label
'''
    covered = {2, 3, 5, 7, 8}
    taken = {(4, 5), (4, 6), (6, 7)}
    assert [r.arc_from for r in mutate.reach_mutants(source, "<m>", 1, covered=covered,
                                                     arcs=taken)] == [None] * 3
    found = mutate.reach_mutants(source, "<m>", 1, covered=covered, arcs=taken | {(6, 8)})
    (arc,) = [r for r in found if r.arc_from is not None]
    assert arc.arc_from == 6 and arc.lines == frozenset() and arc.mutant.line == 6
    namespace: dict[str, Any] = {}
    exec(arc.mutant.code, namespace)
    assert [namespace["f"](k) for k in ("single", "twin")] == ["S", "D"]
    with pytest.raises(SystemExit, match="70"):
        namespace["f"]("suite")
    # A last case that always matches has no such arc: nothing to check.
    total = source.replace('"double" | "twin"', 'other')
    assert [r.arc_from for r in mutate.reach_mutants(total, "<m>", 1, covered=covered,
                                                     arcs=taken | {(6, 8)})] == [None] * 3
    # Inside a with block the stop is the one nothing catches.
    held = source.replace("    match kind:", "    with open(__file__):\n     match kind:")
    held = held.replace("\n        case", "\n         case").replace("\n            label",
                                                                  "\n             label")
    found = mutate.reach_mutants(held, "<m>", 1, arcs={(5, 6), (7, 9)})
    assert [(r.arc_from, _calls_exit(r.mutant.code)) for r in found if r.arc_from] == \
        [(7, True)]


def test_reach_checks_the_body_of_a_case_on_its_patterns_line() -> None:
    # Red team 6, finding 01: branch mode, `case 1: return 2.5` on one line, never matched;
    # the measured run claimed the arc 3->exit (the body). The line runs whenever the
    # pattern is tried, and killed mutants of the pattern (`case 2:`, `case 0:`) proved the
    # line, which dropped its only check: PASS. A stop at the body's start checks the arc.
    source = '''def f(size):
    match size:
        case 1: return 2.5  # noqa: E701
        case 2:
            fee = 4.0
        case _:
            raise ValueError(size)
    return fee
'''
    covered = {2, 3, 4, 5, 6, 7, 8}
    honest = {(3, 4), (4, 5), (4, 6)}
    assert [r.arc_from for r in mutate.reach_mutants(source, "<m>", 1, covered=covered,
                                                     arcs=honest)] == [None] * 4
    found = mutate.reach_mutants(source, "<m>", 1, covered=covered, arcs=honest | {(3, -1)})
    (arc,) = [r for r in found if r.arc_from is not None]
    assert arc.arc_from == 3 and arc.lines == frozenset() and arc.mutant.line == 3
    namespace: dict[str, Any] = {}
    exec(arc.mutant.code, namespace)
    assert namespace["f"](2) == 4.0  # the pattern tried, not matched: no stop
    with pytest.raises(SystemExit, match="70"):
        namespace["f"](1)


def test_reach_checks_no_case_matched_past_a_last_case_on_its_patterns_line() -> None:
    # Red team 6, finding 02: branch mode, the last case `case 9: return 14` on one line; the
    # run claimed the arc 5->6 (no case matched), which the check of red team 5, 02 skipped
    # when the body is on the pattern's line (line 6 is also reached from case 1): PASS.
    source = '''def f(zone, days=2):
    match zone:
        case 1:
            days = 1
        case 9: return 14  # noqa: E701
    return days
'''
    covered = {2, 3, 4, 5, 6}
    honest = {(3, 4), (3, 5), (5, -1)}
    assert [r.arc_from for r in mutate.reach_mutants(source, "<m>", 1, covered=covered,
                                                     arcs=honest)] == [None] * 3
    found = mutate.reach_mutants(source, "<m>", 1, covered=covered, arcs=honest | {(5, 6)})
    arcs = [r for r in found if r.arc_from is not None]
    assert [(r.arc_from, r.mutant.description) for r in arcs] == [
        (5, "stop when the case at line 5 matches"),
        (5, "stop when no case of line 2 matches")]
    namespace: dict[str, Any] = {}
    exec(arcs[1].mutant.code, namespace)
    assert [namespace["f"](1), namespace["f"](9)] == [1, 14]
    with pytest.raises(SystemExit, match="70"):
        namespace["f"](5)


def test_reach_checks_a_claimed_arc_through_a_body_on_its_headers_line() -> None:
    # Red team 5, finding 04: branch mode, `if vip: return "VIP"` on one line; the measured
    # run claimed the arc 3->exit (the body) it never took. The line runs either way and a
    # killed mutant of `vip` proves the line only, so nothing checked the arc: PASS. A stop
    # at the start of the body checks it when the arcs claim two ways out of the line.
    source = '''def f(n, vip):
    n = int(n)
    if vip: return "VIP"  # noqa: E701
    return "LONG" if n >= 7 else "SHORT"
'''
    one = mutate.reach_mutants(source, "<m>", 1, covered={2, 3, 4}, arcs={(3, 4)})
    assert [r.arc_from for r in one] == [None, None]
    found = mutate.reach_mutants(source, "<m>", 1, covered={2, 3, 4}, arcs={(3, 4), (3, -1)})
    (arc,) = [r for r in found if r.arc_from is not None]
    assert arc.arc_from == 3 and arc.lines == frozenset() and arc.mutant.line == 3
    namespace: dict[str, Any] = {}
    exec(arc.mutant.code, namespace)
    assert namespace["f"]("9", False) == "LONG"  # not entered: no stop
    with pytest.raises(SystemExit, match="70"):
        namespace["f"]("1", True)
    # A loop on one line inside a try: the stop nothing catches.
    loop = '''def f(xs):
    try:
        for x in xs: return x  # noqa: E701
    finally:
        pass
    return None
'''
    found = mutate.reach_mutants(loop, "<m>", 1, arcs={(3, -1), (3, 6)})
    assert [(r.arc_from, _calls_exit(r.mutant.code)) for r in found if r.arc_from] == \
        [(3, True)]
