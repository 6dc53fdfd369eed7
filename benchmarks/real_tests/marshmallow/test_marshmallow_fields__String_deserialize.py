# quest: src/marshmallow/fields.py::String._deserialize
import pytest
from marshmallow import Schema, ValidationError, fields


@pytest.mark.parametrize(("value", "expected"), [
    ("abc", "abc"),
    ("", ""),
    (b"abc", "abc"),
    ("h\u00e9llo", "h\u00e9llo"),
    ("h\u00e9llo".encode(), "h\u00e9llo"),
])
def test_text_and_utf8_bytes_become_str(value, expected):
    got = fields.String()._deserialize(value, "f", {})
    assert got == expected
    assert type(got) is str


@pytest.mark.parametrize("value", [1, 1.5, True, ["a"], {"a": 1}, bytearray(b"a")])
def test_anything_else_is_invalid(value):
    with pytest.raises(ValidationError) as info:
        fields.String()._deserialize(value, "f", {})
    assert info.value.messages == ["Not a valid string."]


@pytest.mark.parametrize("value", [b"\xff", b"abc\xc3"])
def test_bytes_that_are_not_utf8_are_invalid_utf8(value):
    with pytest.raises(ValidationError) as info:
        fields.String()._deserialize(value, "f", {})
    assert info.value.messages == ["Not a valid utf-8 string."]
    assert isinstance(info.value.__cause__, UnicodeDecodeError)


def test_custom_error_messages_are_used():
    field = fields.String(error_messages={"invalid": "bad", "invalid_utf8": "bad bytes"})
    with pytest.raises(ValidationError, match=r"^bad$"):
        field.deserialize(3)
    with pytest.raises(ValidationError, match=r"^bad bytes$"):
        field.deserialize(b"\x80")


def test_through_a_schema_load():
    class S(Schema):
        name = fields.String()

    assert S().load({"name": b"bob"}) == {"name": "bob"}
    with pytest.raises(ValidationError) as info:
        S().load({"name": 42})
    assert info.value.messages == {"name": ["Not a valid string."]}
