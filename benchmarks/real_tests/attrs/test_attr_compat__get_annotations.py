# quest: src/attr/_compat.py::_get_annotations
# unreachable: 27 defined only under `if PY_3_14_PLUS:` (annotationlib); this is Python 3.11
import sys

from attr._compat import PY_3_14_PLUS, _get_annotations


class Base:
    a: int


class Child(Base):
    b: "str"


class Bare:
    pass


def test_the_interpreter_is_older_than_3_14():
    assert PY_3_14_PLUS is (sys.version_info[:2] >= (3, 14))


def test_own_annotations_only():
    assert _get_annotations(Base) == {"a": int}
    # inherited annotations are not included; a string annotation stays a string
    assert _get_annotations(Child) == {"b": "str"}


def test_a_class_without_annotations_gives_an_empty_dict():
    assert _get_annotations(Bare) == {}
