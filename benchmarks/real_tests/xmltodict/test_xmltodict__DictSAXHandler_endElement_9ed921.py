# quest: xmltodict.py::_DictSAXHandler.endElement
import pytest
from xmltodict import ParsingInterrupted, _DictSAXHandler, parse


def test_streaming_hands_each_item_to_the_callback_and_keeps_none():
    seen = []

    def collect(path, item):
        seen.append((path[:], item))
        return True

    result = parse('<a prop="x"><b>1</b><b id="2">two</b><b/></a>',
                   item_depth=2, item_callback=collect)
    assert result is None  # streamed items are not attached to the root
    assert seen == [
        ([("a", {"prop": "x"}), ("b", None)], "1"),
        # at the streaming depth an element with attributes is handed over as its
        # attributes; its text is not merged in (only a bare element's text is)
        ([("a", {"prop": "x"}), ("b", {"id": "2"})], {"@id": "2"}),
        ([("a", {"prop": "x"}), ("b", None)], None),
    ]


def test_streaming_joins_text_chunks_with_the_separator():
    seen = []
    handler = _DictSAXHandler(item_depth=1, cdata_separator="|",
                              item_callback=lambda path, item: seen.append(item) or True)
    handler.startElement("a", [])
    handler.characters("x")
    handler.characters("y")
    handler.endElement("a")
    assert seen == ["x|y"]
    assert handler.path == [] and handler.item is None and handler.data == []


def test_a_false_callback_interrupts_parsing():
    calls = []

    def stop(path, item):
        calls.append(item)
        return False

    with pytest.raises(ParsingInterrupted):
        parse("<a><b>1</b><b>2</b></a>", item_depth=2, item_callback=stop)
    assert calls == ["1"]


def test_streaming_without_a_parent_on_the_stack_resets_state():
    seen = []
    handler = _DictSAXHandler(item_depth=1,
                              item_callback=lambda path, item: seen.append(item) or True)
    handler.path = [("a", None)]
    handler.item = {"k": "v"}
    handler.data = ["ignored"]
    handler.endElement("a")
    assert seen == [{"k": "v"}]
    assert handler.item is None and handler.data == [] and handler.path == []


def test_text_is_stripped_and_whitespace_only_text_becomes_none():
    assert parse("<a><b>  hi  </b><c>   </c></a>") == {"a": {"b": "hi", "c": None}}
    assert parse("<a><b>  hi  </b></a>", strip_whitespace=False) == {"a": {"b": "  hi  "}}


def test_attributes_and_text_together_keep_the_text_under_the_cdata_key():
    assert parse('<a><b id="1">text</b></a>') == {"a": {"b": {"@id": "1", "#text": "text"}}}
    assert parse('<a><b id="1">text</b></a>', cdata_key="_") == {
        "a": {"b": {"@id": "1", "_": "text"}}}


def test_force_cdata_wraps_plain_text_only_when_asked():
    assert parse("<a><b>1</b></a>", force_cdata=True) == {"a": {"b": {"#text": "1"}}}
    assert parse("<a><b>1</b><c>2</c></a>", force_cdata=("b",)) == {
        "a": {"b": {"#text": "1"}, "c": "2"}}
    assert parse("<a><b/></a>", force_cdata=True) == {"a": {"b": None}}


def test_children_are_attached_to_their_parent_and_repeat_into_lists():
    assert parse("<a><b><c>1</c></b><b>2</b></a>") == {"a": {"b": [{"c": "1"}, "2"]}}


def test_closing_above_the_streaming_depth_without_a_stack_drops_the_item():
    handler = _DictSAXHandler(item_depth=2, item_callback=lambda path, item: True)
    handler.startElement("root", [])
    handler.characters("text at the root")
    handler.endElement("root")
    assert handler.item is None and handler.data == [] and handler.path == []
