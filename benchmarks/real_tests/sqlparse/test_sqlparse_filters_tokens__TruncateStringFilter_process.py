# quest: sqlparse/filters/tokens.py::TruncateStringFilter.process
import pytest
import sqlparse
from sqlparse import tokens as T
from sqlparse.exceptions import SQLParseError
from sqlparse.filters.tokens import TruncateStringFilter


def test_only_single_quoted_strings_longer_than_the_width_are_cut():
    f = TruncateStringFilter(width=3, char="~")
    stream = [
        (T.Keyword.DML, "select"),
        (T.Literal.String.Single, "'abcd'"),    # 4 > 3: cut
        (T.Literal.String.Single, "'abc'"),     # exactly the width: kept
        (T.Literal.String.Single, "''"),        # empty string: kept
        (T.Name, "'abcdef'"),                   # not a string token: kept
        (T.Literal.String.Symbol, '"abcdef"'),  # double quotes: kept
    ]
    assert list(f.process(stream)) == [
        (T.Keyword.DML, "select"),
        (T.Literal.String.Single, "'abc~'"),
        (T.Literal.String.Single, "'abc'"),
        (T.Literal.String.Single, "''"),
        (T.Name, "'abcdef'"),
        (T.Literal.String.Symbol, '"abcdef"'),
    ]


def test_a_doubled_quote_prefix_is_kept_as_the_quote():
    f = TruncateStringFilter(width=2, char="…")
    got = list(f.process([(T.Literal.String.Single, "''abcdef''"),
                          (T.Literal.String.Single, "''ab''")]))
    assert got == [(T.Literal.String.Single, "''ab…''"),
                   (T.Literal.String.Single, "''ab''")]


def test_it_is_a_generator():
    f = TruncateStringFilter(width=1, char="!")
    gen = f.process(iter([(T.Literal.String.Single, "'xy'")]))
    assert next(gen) == (T.Literal.String.Single, "'x!'")
    with pytest.raises(StopIteration):
        next(gen)


@pytest.mark.parametrize(("sql", "width", "expected"), [
    ("select 'abcdef' from t", 3, "select 'abc[...]' from t"),
    ("select 'abc' from t", 3, "select 'abc' from t"),
    ("select 'it''s a long string'", 3, "select 'it'[...]'"),
    ("select '''abcdefgh'''", 2, "select '''a[...]''"),
])
def test_format_truncate_strings(sql, width, expected):
    assert sqlparse.format(sql, truncate_strings=width) == expected


def test_format_with_a_custom_truncate_char():
    assert (sqlparse.format("insert into t values ('hello world')",
                            truncate_strings=5, truncate_char="...")
            == "insert into t values ('hello...')")


@pytest.mark.parametrize("bad", [0, -1, "x"])
def test_format_refuses_a_width_below_one(bad):
    with pytest.raises(SQLParseError, match="Invalid value for truncate_strings"):
        sqlparse.format("select 'abc'", truncate_strings=bad)
