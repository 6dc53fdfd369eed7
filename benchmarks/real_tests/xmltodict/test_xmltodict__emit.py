# quest: xmltodict.py::_emit
from collections import OrderedDict

import pytest
from xmltodict import _emit, unparse


class Recorder:
    """A SAX content handler that records the calls _emit makes."""

    def __init__(self):
        self.calls = []

    def startElement(self, name, attrs):
        self.calls.append(("start", name, dict(attrs)))

    def endElement(self, name):
        self.calls.append(("end", name))

    def characters(self, data):
        self.calls.append(("text", data))

    def ignorableWhitespace(self, data):
        self.calls.append(("ws", data))

    def comment(self, data):
        self.calls.append(("comment", data))


def emit(key, value, **kwargs):
    recorder = Recorder()
    _emit(key, value, recorder, **kwargs)
    return recorder.calls


def test_text_and_none_and_numbers():
    assert emit("a", "x") == [("start", "a", {}), ("text", "x"), ("end", "a")]
    assert emit("a", None) == [("start", "a", {}), ("end", "a")]
    assert emit("a", 3) == [("start", "a", {}), ("text", "3"), ("end", "a")]
    assert emit("a", True) == [("start", "a", {}), ("text", "true"), ("end", "a")]
    assert emit("a", b"caf\xc3\xa9") == [("start", "a", {}), ("text", "caf\u00e9"), ("end", "a")]


def test_attributes_children_and_cdata():
    value = OrderedDict([("@id", 7), ("@empty", None), ("@s", "v"),
                         ("#text", "body"), ("b", "1"), ("c", [])])
    assert emit("a", value) == [
        ("start", "a", {"id": "7", "empty": "", "s": "v"}),
        ("start", "b", {}), ("text", "1"), ("end", "b"),
        ("text", "body"),
        ("end", "a"),
    ]
    assert emit("a", {"#text": None, "b": None}) == [
        ("start", "a", {}), ("start", "b", {}), ("end", "b"), ("end", "a")]


def test_lists_repeat_the_element_and_multiple_roots_are_refused():
    assert emit("a", ["1", "2"], full_document=False) == [
        ("start", "a", {}), ("text", "1"), ("end", "a"),
        ("start", "a", {}), ("text", "2"), ("end", "a")]
    with pytest.raises(ValueError, match="multiple roots"):
        emit("a", ["1", "2"])


def test_namespaces_and_xmlns_declarations():
    ns = {"http://a.com/": "ns_a"}
    value = {"@xmlns": {"": "http://d.com/", "b": "http://b.com/", "n": None},
             "@http://a.com/:attr": "v"}
    assert emit("http://a.com/:x", value, namespaces=ns) == [
        ("start", "ns_a:x", {"xmlns": "http://d.com/", "xmlns:b": "http://b.com/",
                             "xmlns:n": "", "ns_a:attr": "v"}),
        ("end", "ns_a:x")]


def test_preprocessor_can_rename_or_drop():
    def pre(key, value):
        if key == "drop":
            return None
        return key.upper(), value

    assert emit("keep", {"drop": "1", "x": "2"}, preprocessor=pre) == [
        ("start", "KEEP", {}), ("start", "X", {}), ("text", "2"), ("end", "X"), ("end", "KEEP")]


def test_expand_iter_wraps_nested_iterables():
    assert emit("a", {"b": [[1, 2]]}, expand_iter="item") == [
        ("start", "a", {}), ("start", "b", {}),
        ("start", "item", {}), ("text", "1"), ("end", "item"),
        ("start", "item", {}), ("text", "2"), ("end", "item"),
        ("end", "b"), ("end", "a")]
    assert emit("a", {"b": [(1, 2)]}) == [
        ("start", "a", {}), ("start", "b", {}), ("text", "(1, 2)"), ("end", "b"), ("end", "a")]


def test_pretty_printing_with_an_integer_indent():
    assert emit("a", {"b": "1"}, pretty=True, indent=2) == [
        ("ws", ""), ("start", "a", {}), ("ws", "\n"),
        ("ws", "  "), ("start", "b", {}), ("text", "1"), ("end", "b"), ("ws", "\n"),
        ("ws", ""), ("end", "a")]


def test_comments_single_list_none_empty_and_pretty():
    assert emit("#comment", "note") == [("comment", "note")]
    assert emit("#comment", ["one", None, "", b"two"]) == [("comment", "one"), ("comment", "two")]
    assert emit("#comment", "c", pretty=True, indent=3, depth=1) == [
        ("ws", "   "), ("comment", "c"), ("ws", "\n")]
    assert emit("note", "n", comment_key="note") == [("comment", "n")]


def test_invalid_names_are_refused():
    with pytest.raises(ValueError, match="element"):
        emit("a b", "x")
    with pytest.raises(ValueError, match="attribute"):
        emit("a", {"@bad name": "x"})
    with pytest.raises(ValueError, match="attribute"):
        emit("a", {"@xmlns": {"bad name": "x"}})


def test_unparse_round_trip_through_emit():
    out = unparse({"a": {"@id": "1", "b": ["x", "y"], "#comment": "hi"}}, full_document=False)
    assert out == '<a id="1"><b>x</b><b>y</b><!--hi--></a>'
