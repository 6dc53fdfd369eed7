# quest: src/click/termui.py::confirm
# Its Ctrl-C test raises KeyboardInterrupt in a stub prompt; static-process-exit refused that
# until the rule told a stub's raise from the test's own (see docs/calibration.md).
import click
import pytest
from click.testing import CliRunner


def ask(runner_input, **kwargs):
    """Run confirm inside a command; the answer and what the user saw."""

    @click.command()
    def cli():
        click.echo(f"answer={click.confirm('Go on', **kwargs)!r}")

    result = CliRunner().invoke(cli, [], input=runner_input)
    return result


def test_yes_and_no_in_any_case_and_spacing():
    assert ask("y\n").output == "Go on [y/N]: y\nanswer=True\n"
    assert ask(" YES \n").output.endswith("answer=True\n")
    assert ask("n\n", default=True).output == "Go on [Y/n]: n\nanswer=False\n"
    assert ask("No\n", default=True).output.endswith("answer=False\n")


def test_an_empty_answer_takes_the_default():
    assert ask("\n").output.endswith("answer=False\n")
    assert ask("\n", default=True).output.endswith("answer=True\n")


def test_invalid_input_asks_again():
    result = ask("maybe\ny\n")
    assert result.output == (
        "Go on [y/N]: maybe\nError: invalid input\nGo on [y/N]: y\nanswer=True\n")


def test_without_a_default_an_empty_answer_asks_again():
    result = ask("\nn\n", default=None)
    assert result.output == "Go on [y/n]: \nError: invalid input\nGo on [y/n]: n\nanswer=False\n"


def test_abort_on_no_and_on_end_of_input():
    result = ask("n\n", abort=True)
    assert result.exit_code == 1 and "Aborted!" in result.output
    assert "answer=" not in result.output
    assert ask("y\n", abort=True).output.endswith("answer=True\n")
    ended = ask("")  # EOF before any answer
    assert ended.exit_code == 1 and "Aborted!" in ended.output


def test_prompt_suffix_and_hidden_default():
    assert ask("y\n", prompt_suffix="? ", show_default=False).output == (
        "Go on? y\nanswer=True\n")


def test_errors_go_to_stderr_when_asked():
    result = ask("x\ny\n", err=True)
    assert result.stdout == "answer=True\n"
    assert result.stderr == "Go on [y/N]: x\nError: invalid input\nGo on [y/N]: y\n"


def test_keyboard_interrupt_becomes_abort(monkeypatch):
    def interrupted(prompt=""):
        raise KeyboardInterrupt

    monkeypatch.setattr(click.termui, "visible_prompt_func", interrupted)
    with pytest.raises(click.Abort):
        click.confirm("Go on")
