# quest: src/marshmallow/fields.py::Mapping.__init__
import pytest
from marshmallow import Schema, ValidationError, fields
from marshmallow.exceptions import _FieldInstanceResolutionError


class Inner(Schema):
    a = fields.Int()
    b = fields.Int()


def test_no_keys_or_values_field():
    field = fields.Dict()
    assert field.key_field is None
    assert field.value_field is None
    assert field.deserialize({"x": [1]}) == {"x": [1]}


def test_field_classes_are_instantiated_and_instances_kept():
    values = fields.Int()
    field = fields.Dict(keys=fields.Str, values=values)
    assert type(field.key_field) is fields.String
    assert field.value_field is values
    assert field.deserialize({"x": "1"}) == {"x": 1}
    with pytest.raises(ValidationError) as info:
        field.deserialize({1: "one"})
    assert info.value.messages == {1: {"key": ["Not a valid string."],
                                       "value": ["Not a valid integer."]}}


def test_a_nested_values_field_passes_on_only_and_exclude():
    only = fields.Dict(values=fields.Nested(Inner, only=("a",)))
    assert only.only == ("a",)
    assert only.exclude == ()
    excluded = fields.Dict(values=fields.Nested(Inner, exclude=("b",)))
    assert excluded.only is None
    assert excluded.exclude == ("b",)


def test_a_plain_values_field_sets_no_only_or_exclude():
    field = fields.Dict(values=fields.Int())
    assert not hasattr(field, "only")
    assert not hasattr(field, "exclude")


@pytest.mark.parametrize("bad", [int, "Str", 3, object()])
def test_keys_that_are_not_a_field_are_refused(bad):
    with pytest.raises(ValueError, match=r'^"keys" must be a subclass or instance of '
                       r"marshmallow\.fields\.Field\.$") as info:
        fields.Dict(keys=bad, values=fields.Int())
    assert isinstance(info.value.__cause__, _FieldInstanceResolutionError)


@pytest.mark.parametrize("bad", [int, "Int", 3])
def test_values_that_are_not_a_field_are_refused(bad):
    with pytest.raises(ValueError, match=r'^"values" must be a subclass or instance of '
                       r"marshmallow\.fields\.Field\.$") as info:
        fields.Dict(keys=fields.Str(), values=bad)
    assert isinstance(info.value.__cause__, _FieldInstanceResolutionError)


def test_keyword_arguments_reach_the_field():
    field = fields.Dict(required=True, allow_none=True, data_key="m")
    assert field.required is True
    assert field.allow_none is True
    assert field.data_key == "m"
