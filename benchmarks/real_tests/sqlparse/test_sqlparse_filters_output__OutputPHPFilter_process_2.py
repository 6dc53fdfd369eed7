# quest: sqlparse/filters/output.py::OutputPHPFilter._process
import sqlparse
from sqlparse import sql
from sqlparse import tokens as T
from sqlparse.filters.output import OutputPHPFilter


def test_one_line_statement():
    assert sqlparse.format("select * from foo;", output_format="php") == \
        '$sql = "select * from foo;";'


def test_each_line_break_opens_a_concatenation_and_keeps_what_follows():
    assert sqlparse.format("select *\n  from foo;", output_format="php") == (
        '$sql  = "select * ";\n'
        '$sql .= "  from foo;";'
    )


def test_a_line_break_with_nothing_after_it_adds_no_whitespace_token():
    assert sqlparse.format("select *\nfrom foo;", output_format="php") == (
        '$sql  = "select * ";\n'
        '$sql .= "from foo;";'
    )


def test_backslashes_quotes_and_dollars_are_escaped():
    got = sqlparse.format("select 'a\"b$c\\' from t", output_format="php")
    assert got == '$sql = "select \'a\\"b\\$c\\\\\' from t";'


def test_a_second_statement_gets_a_numbered_variable_on_a_new_line():
    assert sqlparse.format("select 1; select 2;", output_format="php") == (
        '$sql = "select 1; ";\n'
        '$sql2 = "select 2;";'
    )


def test_the_filter_directly_with_a_custom_variable_name():
    f = OutputPHPFilter(varname="q")
    f.count = 1
    stream = [sql.Token(T.Keyword.DML, "select"), sql.Token(T.Whitespace, " "),
              sql.Token(T.Number.Integer, "1")]
    got = [(tok.ttype, tok.value) for tok in f._process(stream, "$q", has_nl=False)]
    assert got == [
        (T.Name, "$q"), (T.Whitespace, " "), (T.Operator, "="), (T.Whitespace, " "),
        (T.Text, '"'), (T.Text, "select"), (T.Text, " "), (T.Text, "1"),
        (T.Text, '"'), (T.Punctuation, ";"),
    ]


def test_a_line_break_token_with_indentation_keeps_the_indentation():
    # a whitespace token holding the newline and the indentation after it, as a
    # filter ahead of this one may produce
    f = OutputPHPFilter(varname="q")
    stream = [sql.Token(T.Keyword.DML, "select"), sql.Token(T.Whitespace, "\n    "),
              sql.Token(T.Name, "a"), sql.Token(T.Whitespace, "\n"), sql.Token(T.Name, "b")]
    got = [(tok.ttype, tok.value) for tok in f._process(stream, "$q", has_nl=True)]
    assert got == [
        (T.Name, "$q"), (T.Whitespace, " "), (T.Whitespace, " "), (T.Operator, "="),
        (T.Whitespace, " "), (T.Text, '"'), (T.Text, "select"),
        (T.Text, ' ";'), (T.Whitespace, "\n"),
        (T.Name, "$q"), (T.Whitespace, " "), (T.Operator, ".="), (T.Whitespace, " "),
        (T.Text, '"'), (T.Whitespace, "    "), (T.Text, "a"),
        (T.Text, ' ";'), (T.Whitespace, "\n"),
        (T.Name, "$q"), (T.Whitespace, " "), (T.Operator, ".="), (T.Whitespace, " "),
        (T.Text, '"'), (T.Text, "b"),
        (T.Text, '"'), (T.Punctuation, ";"),
    ]


def test_a_later_statement_starts_on_a_new_line():
    f = OutputPHPFilter(varname="q")
    f.count = 2
    got = [(tok.ttype, tok.value)
           for tok in f._process([sql.Token(T.Number.Integer, "1")], "$q2", has_nl=False)]
    assert got == [
        (T.Whitespace, "\n"), (T.Name, "$q2"), (T.Whitespace, " "), (T.Operator, "="),
        (T.Whitespace, " "), (T.Text, '"'), (T.Text, "1"), (T.Text, '"'),
        (T.Punctuation, ";"),
    ]
