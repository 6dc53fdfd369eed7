# quest: xmltodict.py::_validate_comment
import pytest
from xmltodict import _validate_comment, unparse


def test_text_comments_come_back_unchanged():
    assert _validate_comment(" a fine comment ") == " a fine comment "
    assert _validate_comment("") == ""
    assert _validate_comment("a - b") == "a - b"


def test_bytes_are_decoded_as_utf8():
    assert _validate_comment("caf\u00e9".encode()) == "caf\u00e9"


def test_bytes_that_are_not_utf8_are_refused():
    with pytest.raises(ValueError, match="valid UTF-8") as info:
        _validate_comment(b"\xff\xfe")
    assert isinstance(info.value.__cause__, UnicodeDecodeError)


def test_non_text_is_refused():
    with pytest.raises(ValueError, match="must be a string"):
        _validate_comment(42)
    with pytest.raises(ValueError, match="must be a string"):
        _validate_comment(None)


def test_double_dash_is_refused_anywhere():
    with pytest.raises(ValueError, match="cannot contain '--'"):
        _validate_comment("a -- b")
    with pytest.raises(ValueError, match="cannot contain '--'"):
        _validate_comment(b"--")


def test_a_trailing_dash_is_refused():
    with pytest.raises(ValueError, match="cannot end with '-'"):
        _validate_comment("ends with -")


def test_unparse_writes_a_valid_comment_and_refuses_a_bad_one():
    out = unparse({"a": {"#comment": "note", "b": "1"}}, full_document=False)
    assert out == "<a><!--note--><b>1</b></a>"
    with pytest.raises(ValueError):
        unparse({"a": {"#comment": "bad--comment"}})
