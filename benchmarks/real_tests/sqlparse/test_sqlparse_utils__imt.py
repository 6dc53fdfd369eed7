# quest: sqlparse/utils.py::imt
import pytest
from sqlparse import sql
from sqlparse import tokens as T
from sqlparse.utils import imt

SELECT = sql.Token(T.Keyword.DML, "select")
NAME = sql.Token(T.Name, "foo")
IDENT = sql.Identifier([sql.Token(T.Name, "bar")])


def test_none_is_never_a_match():
    assert imt(None, i=sql.Token, m=(T.Keyword.DML, "select"), t=T.Keyword) is False


def test_nothing_to_compare_with_is_no_match():
    assert imt(SELECT) is False


@pytest.mark.parametrize(("token", "i", "expected"), [
    (IDENT, sql.Identifier, True),
    (IDENT, (sql.Function, sql.Identifier), True),
    (NAME, sql.Identifier, False),
    (NAME, None, False),
])
def test_instance(token, i, expected):
    assert imt(token, i=i) is expected


@pytest.mark.parametrize(("m", "expected"), [
    ((T.Keyword.DML, "SELECT"), True),          # keywords match case-insensitively
    ((T.Keyword.DML, "insert"), False),
    ((T.Keyword, "select"), False),              # match wants the exact ttype
    ([(T.Keyword.DML, "insert"), (T.Keyword.DML, "select")], True),
    ([(T.Keyword.DML, "insert"), (T.Name, "select")], False),
    ([], False),
])
def test_match(m, expected):
    assert imt(SELECT, m=m) is expected


@pytest.mark.parametrize(("t", "expected"), [
    (T.Keyword, True),                            # a parent type contains its children
    (T.Keyword.DML, True),
    (T.Keyword.DDL, False),
    (T.Name, False),
    ([T.Name, T.Keyword], True),
    ([T.Name, T.Punctuation], False),
    ((T.Name, T.Keyword.DML), True),              # a tuple is a single ttype, checked with `in`
])
def test_ttype(t, expected):
    assert imt(SELECT, t=t) is expected


def test_a_failed_instance_check_falls_through_to_match_and_ttype():
    assert imt(NAME, i=sql.Identifier, m=(T.Name, "foo")) is True
    assert imt(NAME, i=sql.Identifier, m=(T.Name, "nope"), t=T.Name) is True
    assert imt(NAME, i=sql.Identifier, m=(T.Name, "nope"), t=T.Keyword) is False
