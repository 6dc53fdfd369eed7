# quest: xmltodict.py::_DictSAXHandler._should_force_list
from xmltodict import _DictSAXHandler, parse


def test_no_force_list_means_never():
    assert _DictSAXHandler()._should_force_list("a", "x") is False
    assert _DictSAXHandler(force_list=())._should_force_list("a", "x") is False


def test_true_forces_every_key():
    handler = _DictSAXHandler(force_list=True)
    assert handler._should_force_list("anything", None) is True


def test_a_collection_names_the_keys_to_force():
    handler = _DictSAXHandler(force_list=("server", "port"))
    assert handler._should_force_list("server", "x") is True
    assert handler._should_force_list("host", "x") is False
    assert parse("<a><server>s</server><host>h</host></a>",
                 force_list=("server",)) == {"a": {"server": ["s"], "host": "h"}}


def test_a_callable_gets_the_parent_path_key_and_value():
    seen = []

    def decide(path, key, value):
        seen.append((path, key, value))
        return key == "item" and value != "skip"

    handler = _DictSAXHandler(force_list=decide)
    handler.path = [("root", None), ("list", None), ("item", None)]
    assert handler._should_force_list("item", "v") is True
    assert handler._should_force_list("item", "skip") is False
    assert handler._should_force_list("other", "v") is False
    assert seen[0] == ([("root", None), ("list", None)], "item", "v")


def test_a_callable_through_parse():
    doc = parse("<a><b>1</b><c>2</c></a>",
                force_list=lambda path, key, value: key == "b")
    assert doc == {"a": {"b": ["1"], "c": "2"}}
