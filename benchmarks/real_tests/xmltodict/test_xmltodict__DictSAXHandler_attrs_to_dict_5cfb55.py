# quest: xmltodict.py::_DictSAXHandler._attrs_to_dict
from collections import OrderedDict

from xmltodict import _DictSAXHandler, parse


def test_a_dict_of_attributes_is_returned_as_it_is():
    handler = _DictSAXHandler()
    attrs = {"id": "1", "lang": "en"}
    assert handler._attrs_to_dict(attrs) is attrs


def test_a_flat_name_value_list_becomes_pairs_in_order():
    handler = _DictSAXHandler(dict_constructor=OrderedDict)
    got = handler._attrs_to_dict(["b", "2", "a", "1", "c", "3"])
    assert isinstance(got, OrderedDict)
    assert list(got.items()) == [("b", "2"), ("a", "1"), ("c", "3")]


def test_an_empty_list_gives_an_empty_mapping():
    handler = _DictSAXHandler()
    assert handler._attrs_to_dict([]) == {}


def test_parse_keeps_attribute_order_from_expat():
    # expat hands ordered attributes as a flat list; parse relies on the pairing.
    doc = parse('<r z="26" a="1" m="13"/>')
    assert list(doc["r"].items()) == [("@z", "26"), ("@a", "1"), ("@m", "13")]
