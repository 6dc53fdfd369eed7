# quest: sqlparse/sql.py::Statement.get_type
import pytest
import sqlparse
from sqlparse import sql
from sqlparse import tokens as T


@pytest.mark.parametrize(("text", "expected"), [
    ("select 1", "SELECT"),
    ("SeLeCt * from t", "SELECT"),
    ("  -- a comment\n insert into t values (1)", "INSERT"),
    ("/* block */ update t set a = 1", "UPDATE"),
    ("drop table t", "DROP"),
    ("create table t (a int)", "CREATE"),
    ("foo bar", "UNKNOWN"),
    ("(select 1)", "UNKNOWN"),
])
def test_first_dml_or_ddl_keyword(text, expected):
    (statement,) = sqlparse.parse(text)
    assert statement.get_type() == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("with x as (select 1) select * from x", "SELECT"),
    ("WITH x AS (select 1), y AS (select 2) update t set a = 1", "UPDATE"),
    ("with x as (select 1) insert into t select * from x", "INSERT"),
    ("with x as (select 1)", "UNKNOWN"),          # no statement after the CTE
    ("with x as (select 1) with", "UNKNOWN"),     # a keyword that is not DML after it
    ("with select", "UNKNOWN"),                   # no CTE definition at all
])
def test_common_table_expressions(text, expected):
    (statement,) = sqlparse.parse(text)
    assert statement.get_type() == expected


def test_an_empty_statement_is_unknown():
    assert sql.Statement([]).get_type() == "UNKNOWN"


def test_only_whitespace_and_comments_is_unknown():
    statement = sql.Statement([sql.Token(T.Whitespace, " "),
                               sql.Token(T.Comment.Single, "-- x\n")])
    assert statement.get_type() == "UNKNOWN"


def test_each_statement_of_a_script_has_its_own_type():
    statements = sqlparse.parse("select 1; delete from t; create index i on t (a);")
    types = [s.get_type() for s in statements]
    assert types == ["SELECT", "DELETE", "CREATE"]
