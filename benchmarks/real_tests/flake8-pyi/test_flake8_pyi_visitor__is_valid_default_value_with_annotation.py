# quest: flake8_pyi/visitor.py::_is_valid_default_value_with_annotation
import ast

import pytest
from flake8_pyi.visitor import _is_valid_default_value_with_annotation as valid


def expr(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body


@pytest.mark.parametrize("source", [
    "...", "None", "True", "False", "0", "42", "1.5", "2j", "'text'", "b'bytes'",
])
def test_constants_are_simple_defaults(source):
    assert valid(expr(source)) is True
    assert valid(expr(source), allow_containers=False) is True


@pytest.mark.parametrize("source", ["-1", "-1.5", "-2j", "-0"])
def test_negated_numbers_are_allowed(source):
    assert valid(expr(source)) is True


@pytest.mark.parametrize("source", ["-True", "-'a'", "-b'a'", "-None", "-(...)"])
def test_negating_anything_but_a_number_is_not(source):
    assert valid(expr(source)) is False


@pytest.mark.parametrize("source", ["+1", "~1", "not 1", "--1"])
def test_other_unary_operators_are_not_simple(source):
    assert valid(expr(source)) is False


@pytest.mark.parametrize("name", ["inf", "e", "pi", "tau"])
def test_negated_math_constants_are_allowed(name):
    assert valid(expr(f"-math.{name}")) is True


@pytest.mark.parametrize("source", ["-math.nan", "-numpy.inf", "-cmath.pi", "-a.math.pi",
                                    "-inf", "-x"])
def test_other_negated_names_are_not(source):
    assert valid(expr(source)) is False


@pytest.mark.parametrize("source", ["1 + 2j", "1.5 - 2j", "-1 + 0j", "-1.5 - 3.25j", "0 + 1j"])
def test_complex_numbers_with_a_real_part_are_allowed(source):
    assert valid(expr(source)) is True


@pytest.mark.parametrize("source", [
    "1 + 2", "1 - 2.0", "1j + 2j", "'a' + 1j", "True + 1j", "-True + 1j", "-'a' + 1j",
    "x + 1j", "-x + 1j", "+1 + 1j", "1 * 2j", "1 / 2j", "(1 + 2j) + 3j",
])
def test_other_binary_operations_are_not(source):
    assert valid(expr(source)) is False


@pytest.mark.parametrize("source", ["math.inf", "Color.RED", "os.path.sep", "a.b.c.d"])
def test_attribute_access_is_allowed(source):
    assert valid(expr(source)) is True


def test_only_the_sentinel_name_is_allowed():
    assert valid(expr("sentinel")) is True
    assert valid(expr("Sentinel")) is False
    assert valid(expr("MISSING")) is False
    assert valid(expr("x")) is False


@pytest.mark.parametrize("source", [
    "f()", "lambda: 1", "x[0]", "f'{x}'", "1 if x else 2", "[i for i in x]", "(yield)",
])
def test_calls_and_other_expressions_are_not_simple(source):
    assert valid(expr(source)) is False


@pytest.mark.parametrize("source", [
    "[]", "()", "set()", "[1, 'a', None]", "(1,)", "(-1, 2.5, ...)", "{1, 2}", "{}",
    "{'a': 1, 'b': -2}", "[math.pi, sentinel, 1 + 2j]",
])
def test_flat_containers_of_simple_values_are_allowed(source):
    expected = source != "set()"  # a call, not a set display
    assert valid(expr(source)) is expected


@pytest.mark.parametrize("source", ["[1]", "(1,)", "{1}", "{'a': 1}", "[]", "{}"])
def test_containers_are_refused_where_they_are_not_allowed(source):
    assert valid(expr(source), allow_containers=False) is False


@pytest.mark.parametrize("source", [
    "[[1]]", "([],)", "{(1, 2)}", "{'a': {}}", "{(1,): 2}", "[f()]", "(x,)",
    "{'a': f()}", "{f(): 1}", "{'a': 1, **extra}", "{**extra}",
])
def test_nested_or_unsimple_elements_are_refused(source):
    assert valid(expr(source)) is False


@pytest.mark.parametrize("make", [
    lambda items: "[" + ", ".join(items) + "]",
    lambda items: "(" + ", ".join(items) + ",)",
    lambda items: "{" + ", ".join(items) + "}",
    lambda items: "{" + ", ".join(f"{i}: {i}" for i in items) + "}",
])
def test_at_most_ten_elements(make):
    ten = [str(i) for i in range(10)]
    assert valid(expr(make(ten))) is True
    assert valid(expr(make([*ten, "10"]))) is False
