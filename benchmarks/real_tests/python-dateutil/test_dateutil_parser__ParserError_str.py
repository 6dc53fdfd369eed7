# quest: src/dateutil/parser/_parser.py::ParserError.__str__
import pytest
from dateutil.parser import ParserError, parse


def test_the_first_argument_is_a_format_for_the_rest():
    assert str(ParserError("Unknown string format: %s", "abc")) == \
        "Unknown string format: abc"
    assert str(ParserError("%s is %d", "x", 3)) == "x is 3"


def test_a_single_argument_is_the_message():
    assert str(ParserError("plain message")) == "plain message"
    assert str(ParserError("100%% sure")) == "100% sure"


def test_too_few_arguments_fall_back_to_the_tuple():
    # "%s and %s" % ("a",) raises TypeError
    assert str(ParserError("%s and %s", "a")) == "('%s and %s', 'a')"


def test_arguments_without_a_placeholder_fall_back_to_the_tuple():
    # "no fmt" % ("x",) raises TypeError (not all arguments converted)
    assert str(ParserError("no fmt", "x")) == "('no fmt', 'x')"


def test_no_arguments_at_all_is_an_empty_message():
    # self.args[0] raises IndexError
    assert str(ParserError()) == ""


def test_it_is_a_value_error_and_parse_raises_it():
    assert issubclass(ParserError, ValueError)
    with pytest.raises(ParserError) as info:
        parse("foo bar")
    assert str(info.value) == "Unknown string format: foo bar"
