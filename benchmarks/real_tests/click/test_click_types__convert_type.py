# quest: src/click/types.py::convert_type
import click
import pytest
from click import types
from click.testing import CliRunner


def test_python_types_map_to_the_shared_param_types():
    assert types.convert_type(str) is types.STRING
    assert types.convert_type(None) is types.STRING
    assert types.convert_type(int) is types.INT
    assert types.convert_type(float) is types.FLOAT
    assert types.convert_type(bool) is types.BOOL


def test_the_type_is_guessed_from_a_default():
    assert types.convert_type(None, 3) is types.INT
    assert types.convert_type(None, 2.5) is types.FLOAT
    assert types.convert_type(None, True) is types.BOOL
    assert types.convert_type(None, "x") is types.STRING
    assert types.convert_type(None, [4, 5]) is types.INT  # multiple=True defaults
    assert types.convert_type(None, []) is types.STRING


def test_an_unknown_guessed_type_falls_back_to_string():
    assert types.convert_type(None, object()) is types.STRING
    assert types.convert_type(None, b"bytes") is types.STRING


def test_a_tuple_of_types_becomes_a_tuple_type():
    got = types.convert_type((int, str))
    assert isinstance(got, types.Tuple)
    assert got.types == [types.INT, types.STRING]
    assert got.convert(("1", "a"), None, None) == (1, "a")
    nested = types.convert_type(None, [(1, "x")])
    assert isinstance(nested, types.Tuple) and nested.types == [types.INT, types.STRING]


def test_a_param_type_instance_is_returned_as_it_is():
    choice = click.Choice(["a", "b"])
    assert types.convert_type(choice) is choice


def test_a_callable_becomes_a_func_param_type():
    def upper(value):
        return value.upper()

    got = types.convert_type(upper)
    assert isinstance(got, types.FuncParamType)
    assert got.func is upper and got.name == "upper"
    assert got.convert("abc", None, None) == "ABC"


def test_an_uninstantiated_param_type_is_refused():
    with pytest.raises(AssertionError, match="uninstantiated parameter type"):
        types.convert_type(click.Choice)


def test_options_use_it_for_their_type():
    @click.command()
    @click.option("--n", type=int)
    @click.option("--ratio", default=0.5)
    def cli(n, ratio):
        click.echo(f"{n!r} {ratio!r}")

    result = CliRunner().invoke(cli, ["--n", "4", "--ratio", "2"])
    assert result.output == "4 2.0\n"
