# quest: src/marshmallow/fields.py::Enum.__init__
import enum

import pytest
from marshmallow import ValidationError, fields
from marshmallow.exceptions import _FieldInstanceResolutionError


class Color(enum.Enum):
    RED = "r"
    GREEN = "g"


class Maybe(enum.Enum):
    NOTHING = None
    ONE = 1


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def test_by_name_uses_a_string_field_and_lists_the_names():
    field = fields.Enum(Color)
    assert field.enum is Color
    assert field.by_value is False
    assert type(field.field) is fields.String
    assert field.choices_text == "RED, GREEN"
    assert field.allow_none is False
    assert field.serialize("c", {"c": Color.GREEN}) == "GREEN"
    assert field.deserialize("RED") is Color.RED
    with pytest.raises(ValidationError) as info:
        field.deserialize("BLUE")
    assert info.value.messages == ["Must be one of: RED, GREEN."]


def test_by_value_true_uses_a_raw_field_and_lists_the_values():
    field = fields.Enum(Color, by_value=True)
    assert field.by_value is True
    assert type(field.field) is fields.Raw
    assert field.choices_text == "r, g"
    assert field.allow_none is False
    assert field.serialize("c", {"c": Color.RED}) == "r"
    assert field.deserialize("g") is Color.GREEN
    with pytest.raises(ValidationError) as info:
        field.deserialize("RED")
    assert info.value.messages == ["Must be one of: r, g."]


def test_by_value_with_a_field_class_or_instance():
    by_class = fields.Enum(Level, by_value=fields.Integer)
    assert type(by_class.field) is fields.Integer
    assert by_class.choices_text == "1, 2"
    assert by_class.deserialize("2") is Level.HIGH

    instance = fields.String()
    by_instance = fields.Enum(Level, by_value=instance)
    assert by_instance.field is instance
    assert by_instance.choices_text == "1, 2"


@pytest.mark.parametrize("bad", [int, "String", 3])
def test_by_value_that_is_not_a_field_is_refused(bad):
    with pytest.raises(ValueError, match=r'^"by_value" must be either a bool or a subclass '
                       r"or instance of marshmallow\.fields\.Field\.$") as info:
        fields.Enum(Color, by_value=bad)
    assert isinstance(info.value.__cause__, _FieldInstanceResolutionError)


def test_a_none_member_value_allows_none_unless_told_otherwise():
    field = fields.Enum(Maybe, by_value=True)
    assert field.allow_none is True
    assert field.choices_text == "None, 1"
    assert field.deserialize(None) is None

    strict = fields.Enum(Maybe, by_value=True, allow_none=False)
    assert strict.allow_none is False
    with pytest.raises(ValidationError, match=r"Field may not be null\."):
        strict.deserialize(None)


def test_a_none_member_value_does_not_matter_by_name():
    field = fields.Enum(Maybe)
    assert field.allow_none is False
    assert field.choices_text == "NOTHING, ONE"
