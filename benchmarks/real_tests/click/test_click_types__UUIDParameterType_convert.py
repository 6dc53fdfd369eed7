# quest: src/click/types.py::UUIDParameterType.convert
import uuid

import click
import pytest
from click.testing import CliRunner

TEXT = "12345678-1234-5678-1234-567812345678"


def test_a_uuid_is_returned_as_it_is():
    value = uuid.UUID(TEXT)
    assert click.UUID.convert(value, None, None) is value


def test_text_is_parsed_and_surrounding_space_ignored():
    assert click.UUID.convert(TEXT, None, None) == uuid.UUID(TEXT)
    assert click.UUID.convert(f"  {TEXT.upper()}\n", None, None) == uuid.UUID(TEXT)
    assert click.UUID.convert("{" + TEXT + "}", None, None) == uuid.UUID(TEXT)


def test_invalid_text_fails_with_the_value_named():
    with pytest.raises(click.BadParameter) as info:
        click.UUID.convert(" not-a-uuid ", None, None)
    assert info.value.message == "'not-a-uuid' is not a valid UUID."


def test_on_the_command_line():
    @click.command()
    @click.argument("ident", type=click.UUID)
    def cli(ident):
        click.echo(ident.hex)

    runner = CliRunner()
    assert runner.invoke(cli, [TEXT]).output == TEXT.replace("-", "") + "\n"
    bad = runner.invoke(cli, ["xyz"])
    assert bad.exit_code == 2 and "'xyz' is not a valid UUID." in bad.output
