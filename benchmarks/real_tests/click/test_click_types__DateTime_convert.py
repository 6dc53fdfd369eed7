# quest: src/click/types.py::DateTime.convert
from datetime import datetime

import click
import pytest
from click.testing import CliRunner


def test_a_datetime_is_returned_as_it_is():
    value = datetime(2024, 2, 29, 12, 30)
    assert click.DateTime().convert(value, None, None) is value


def test_the_default_formats_in_order():
    dt = click.DateTime()
    assert dt.convert("2024-02-29", None, None) == datetime(2024, 2, 29)
    assert dt.convert("2024-02-29T08:15:01", None, None) == datetime(2024, 2, 29, 8, 15, 1)
    assert dt.convert("2024-02-29 08:15:01", None, None) == datetime(2024, 2, 29, 8, 15, 1)


def test_custom_formats():
    dt = click.DateTime(["%d/%m/%Y", "%Y"])
    assert dt.convert("01/12/2026", None, None) == datetime(2026, 12, 1)
    assert dt.convert("1999", None, None) == datetime(1999, 1, 1)


def test_no_matching_format_fails_with_every_format_named():
    with pytest.raises(click.BadParameter) as info:
        click.DateTime(["%Y-%m-%d", "%H:%M"]).convert("nope", None, None)
    assert info.value.message == (
        "'nope' does not match the formats '%Y-%m-%d', '%H:%M'.")


def test_one_format_is_named_in_the_singular():
    with pytest.raises(click.BadParameter) as info:
        click.DateTime(["%Y"]).convert("2024-01-01", None, None)
    assert info.value.message == "'2024-01-01' does not match the format '%Y'."


def test_on_the_command_line():
    @click.command()
    @click.option("--when", type=click.DateTime(["%Y-%m-%d"]))
    def cli(when):
        click.echo(when.isoformat())

    runner = CliRunner()
    assert runner.invoke(cli, ["--when", "2020-05-04"]).output == "2020-05-04T00:00:00\n"
    bad = runner.invoke(cli, ["--when", "May"])
    assert bad.exit_code == 2
    assert "'May' does not match the format '%Y-%m-%d'." in bad.output
