# quest: src/attr/_make.py::pipe
from typing import TypeVar

import attr
import attrs
import pytest
from attr import _make
from attrs import Converter
from attrs.converters import pipe


def to_int(x: str) -> int:
    return int(x)


def double(x: int) -> float:
    return x * 2.0


def no_annotations(x):
    return x


def tagged(value, instance, field) -> str:
    return f"{value}@{type(instance).__name__}.{field.name}"


def test_plain_converters_run_in_order_and_the_last_value_is_returned():
    conv = pipe(to_int, double)
    assert not isinstance(conv, Converter)
    assert conv("21") == 42.0
    assert conv.__annotations__ == {"val": str, "return": float}
    with pytest.raises(ValueError):
        conv("x")


def test_no_converters_is_the_identity_typed_with_one_typevar():
    conv = pipe()
    marker = object()
    assert conv(marker) is marker
    ann = conv.__annotations__
    assert isinstance(ann["val"], TypeVar)
    assert ann["return"] is ann["val"]


def test_converters_without_annotations_add_none():
    conv = pipe(no_annotations, no_annotations)
    assert conv(3) == 3
    assert conv.__annotations__ == {}


def test_a_converter_instance_makes_a_converter_taking_self_and_field():
    conv = pipe(to_int, Converter(tagged, takes_self=True, takes_field=True), str.upper)
    assert isinstance(conv, Converter)
    assert conv.takes_self is True
    assert conv.takes_field is True

    @attrs.define
    class Box:
        size: int = attrs.field(converter=conv)

    assert Box("7").size == "7@BOX.SIZE"
    assert conv.converter.__annotations__["val"] is str


def test_a_plain_converter_instance_gets_only_the_value():
    calls = []
    conv = pipe(Converter(lambda v: calls.append(v) or v + 1), lambda v: v * 10)

    @attr.s
    class C:
        x = attr.ib(converter=conv)

    assert C(1).x == 20
    assert calls == [1]


def test_return_type_of_a_converter_instance_on_this_python():
    # On 3.11+ a Converter instance is inspected as it is: its own signature has no
    # return annotation, so none is inferred.
    conv = pipe(to_int, Converter(tagged, takes_self=True, takes_field=True))
    assert conv.converter.__annotations__ == {"val": str}


def test_return_type_of_a_converter_instance_before_python_3_11(monkeypatch):
    # Before 3.11 the wrapped callable's __call__ is inspected instead.
    monkeypatch.setattr(_make, "PY_3_11_PLUS", False)
    conv = pipe(to_int, Converter(tagged, takes_self=True, takes_field=True))
    assert conv.converter.__annotations__ == {"val": str, "return": str}
    # a plain function last is unaffected by the switch
    assert pipe(to_int, double).__annotations__ == {"val": str, "return": float}


def test_used_as_attrs_converter_on_setattr():
    @attrs.define
    class P:
        n: int = attrs.field(converter=pipe(str.strip, to_int))

    p = P(" 5 ")
    assert p.n == 5
    p.n = "6 "
    assert p.n == 6
