# quest: flake8_pyi/visitor.py::_analyse_union
import ast

from flake8_pyi.visitor import _analyse_union


def members(source: str) -> list[ast.expr]:
    """The members of a `Union[...]` written in source."""
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Subscript)
    return node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]


def unparsed(nodes: list[ast.expr]) -> list[str]:
    return [ast.unparse(node) for node in nodes]


def test_no_members():
    analysis = _analyse_union([])
    assert dict(analysis.members_by_dump) == {}
    assert analysis.dupes_in_union is False
    assert analysis.builtins_classes_in_union == set()
    assert analysis.multiple_literals_in_union is False
    assert analysis.non_literals_in_union is False
    assert analysis.combined_literal_members == []
    assert analysis.multiple_type_subscripts_in_union is False
    assert analysis.combined_type_subscripts == []


def test_members_are_grouped_by_their_dump_and_duplicates_found():
    union = members("Union[int, str, int, list[int], list[int]]")
    analysis = _analyse_union(union)
    assert list(analysis.members_by_dump) == [ast.dump(union[0]), ast.dump(union[1]),
                                              ast.dump(union[3])]
    assert analysis.members_by_dump[ast.dump(union[0])] == [union[0], union[2]]
    assert analysis.members_by_dump[ast.dump(union[1])] == [union[1]]
    assert analysis.members_by_dump[ast.dump(union[3])] == [union[3], union[4]]
    assert analysis.dupes_in_union is True
    assert _analyse_union(members("Union[int, str, bytes]")).dupes_in_union is False


def test_class_names_and_builtins_attributes_are_collected():
    analysis = _analyse_union(members("Union[int, builtins.str, Foo, typing.Any, list[int], None]"))
    assert analysis.builtins_classes_in_union == {"int", "str", "Foo"}
    assert analysis.non_literals_in_union is True


def test_literal_members_are_combined_in_order():
    analysis = _analyse_union(members('Union[Literal["a", "b"], Literal[1], typing.Literal[None]]'))
    assert unparsed(analysis.combined_literal_members) == ["'a'", "'b'", "1", "None"]
    assert analysis.multiple_literals_in_union is True
    assert analysis.non_literals_in_union is False
    assert analysis.builtins_classes_in_union == set()


def test_one_literal_is_not_multiple_literals():
    analysis = _analyse_union(members('Union[Literal["a", "b"], int]'))
    assert analysis.multiple_literals_in_union is False
    assert analysis.non_literals_in_union is True
    assert unparsed(analysis.combined_literal_members) == ["'a'", "'b'"]
    only = _analyse_union(members('Union[Literal["x"]]'))
    assert (only.multiple_literals_in_union, only.non_literals_in_union) == (False, False)
    assert unparsed(only.combined_literal_members) == ["'x'"]


def test_literal_lookalikes_are_not_literals():
    analysis = _analyse_union(members('Union[Lit["a"], enum.Literal["b"], Literal]'))
    assert analysis.combined_literal_members == []
    assert analysis.multiple_literals_in_union is False
    assert analysis.non_literals_in_union is True


def test_type_subscripts_are_combined():
    analysis = _analyse_union(members("Union[type[int], builtins.type[str], Type[bytes], int]"))
    assert analysis.multiple_type_subscripts_in_union is True
    assert unparsed(analysis.combined_type_subscripts) == ["int", "str"]
    one = _analyse_union(members("Union[type[int], typing.Type[str], int]"))
    assert one.multiple_type_subscripts_in_union is False
    assert unparsed(one.combined_type_subscripts) == ["int"]


def test_mixed_union_like_the_docstring_example():
    union = members('Union[int, memoryview, memoryview, Literal["foo"], Literal[1], '
                    'type[float], type[str]]')
    analysis = _analyse_union(union)
    assert analysis.dupes_in_union is True
    assert analysis.builtins_classes_in_union == {"int", "memoryview"}
    assert analysis.multiple_literals_in_union is True
    assert analysis.non_literals_in_union is True
    assert unparsed(analysis.combined_literal_members) == ["'foo'", "1"]
    assert analysis.multiple_type_subscripts_in_union is True
    assert unparsed(analysis.combined_type_subscripts) == ["float", "str"]
