# quest: src/click/exceptions.py::MissingParameter.format_message
import click
from click.exceptions import MissingParameter
from click.testing import CliRunner


def make_ctx(*params):
    return click.Context(click.Command("cli", params=list(params)))


def test_an_explicit_hint_and_type():
    err = MissingParameter(param_hint="'--name'", param_type="option")
    assert err.format_message() == "Missing option '--name'."
    err = MissingParameter(param_hint=["--a", "-b"], param_type="parameter")
    assert err.format_message() == "Missing parameter '--a' / '-b'."


def test_a_message_is_appended():
    err = MissingParameter("give it", param_hint="NAME", param_type="argument")
    assert err.format_message() == "Missing argument NAME. give it"


def test_no_hint_no_param():
    assert MissingParameter(param_type="option").format_message() == "Missing option."


def test_an_unknown_param_type_is_named_as_given():
    err = MissingParameter(param_hint="X", param_type="widget")
    assert err.format_message() == "Missing widget X."


def test_hint_and_type_come_from_the_param():
    option = click.Option(["--count", "-c"])
    ctx = make_ctx(option)
    err = MissingParameter(ctx=ctx, param=option)
    assert err.format_message() == "Missing option '--count' / '-c'."
    argument = click.Argument(["src"])
    err = MissingParameter(ctx=make_ctx(argument), param=argument)
    assert err.format_message() == "Missing argument 'SRC'."


def test_a_choice_adds_its_choices_to_the_message():
    option = click.Option(["--color"], type=click.Choice(["red", "blue"]))
    ctx = make_ctx(option)
    alone = MissingParameter(ctx=ctx, param=option)
    assert alone.format_message() == "Missing option '--color'. Choose from:\n\tred,\n\tblue"
    with_message = MissingParameter("pick one", ctx=ctx, param=option)
    assert with_message.format_message() == (
        "Missing option '--color'. pick one. Choose from:\n\tred,\n\tblue")


def test_a_required_option_missing_from_the_command_line():
    @click.command()
    @click.option("--name", required=True)
    def cli(name):
        click.echo(name)

    result = CliRunner().invoke(cli, [])
    assert result.exit_code == 2
    assert "Error: Missing option '--name'." in result.output
