"""Every flag, config key and exit code the documents name is the CLI's, and every flag is named.

The CLI is the one source: click's command objects, the plugin's
``pytest_addoption`` and the settings model. A documented flag that does not
exist, a flag nobody documented, a config key the settings do not know and an
exit code that is not what the command returns all fail here.
"""

from __future__ import annotations

import builtins
import re
import shlex
from dataclasses import fields
from pathlib import Path
from typing import Any

import click
import pytest

from pytest_quest import errors
from pytest_quest.cli import COMMANDS, cli
from pytest_quest.config import Settings
from tests.test_docs import ALL, DOCUMENTS

#: Options every command that has them documents once for all (README: "Every command takes
#: --root DIR"; "With --json, ...").
GENERIC = frozenset({"--root", "--json", "--help", "-h"})
_SEPARATORS = frozenset({"|", "||", "&&", ";", ">", "2>&1"})


def _options(command: click.Command) -> set[str]:
    return {name for p in command.params if isinstance(p, click.Option)
            for name in (*p.opts, *p.secondary_opts)}


def cli_options() -> dict[str, set[str]]:
    """command -> every option string it accepts."""
    ctx = click.Context(cli)
    out = {}
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None, name
        out[name] = _options(command)
    return out


def plugin_options() -> set[str]:
    """The ``pytest --quest-*`` options the plugin registers."""
    from pytest_quest import plugin

    seen: set[str] = set()

    class Group:
        def addoption(self, *names: str, **_: Any) -> None:
            seen.update(names)

    class Parser:
        def getgroup(self, *_: Any, **__: Any) -> Group:
            return Group()

    plugin.pytest_addoption(Parser())  # type: ignore[arg-type]
    return seen


def _snippets() -> list[tuple[str, str]]:
    """(where, text) for every inline code span and every logical line of every code block."""
    out: list[tuple[str, str]] = []
    for document in DOCUMENTS:
        prose = document.read_text()
        for block in ALL:
            if block.document == document:
                prose = prose.replace(block.text, "")
        for span in re.findall(r"`([^`\n]+)`", prose):
            # `--quest-ledger PATH` in prose is the pytest plugin's option.
            out.append((document.name, "pytest " + span if span.startswith("--quest-") else span))
    for block in ALL:
        if block.info in ("console", "sh", "bash", "shell", "text", "yaml"):
            joined = re.sub(r"\\\n\s*", " ", block.script() if block.info == "console"
                            else block.text)
            if block.info == "text":  # a synopsis continues on indented lines
                joined = re.sub(r"\n\s+(?=\[|-)", " ", joined)
            out.extend((block.name, line) for line in joined.splitlines())
    return out


def mentions() -> list[tuple[str, str, str]]:
    """(where, command, flag) for each flag written after ``[pytest-quest] COMMAND``."""
    commands = set(COMMANDS)
    found: list[tuple[str, str, str]] = []
    for where, text in _snippets():
        for start in re.finditer(r"(?:(?<=pytest-quest )|^|(?<=run: ))([a-z][a-z-]+)\b", text):
            command = start.group(1)
            if command not in commands and command != "pytest":
                continue
            rest = text[start.end():].split("#")[0].replace("[", " ").replace("]", " ")
            try:
                words = shlex.split(rest)
            except ValueError:
                continue  # a span cut inside a quote: nothing reliable to read
            for word in words:
                if word in _SEPARATORS or word == "--":
                    break  # what follows belongs to another command, or to pytest
                if word.startswith("-") and len(word) > 1 and not word[1].isdigit():
                    found.append((where, command, word.split("=")[0]))
    return found


def test_every_documented_flag_exists() -> None:
    options = cli_options()
    plugin = plugin_options()
    wrong = []
    for where, command, flag in mentions():
        if command == "pytest":
            if flag.startswith("--quest") and flag not in plugin:
                wrong.append((where, "pytest", flag))
        elif flag not in options[command]:
            wrong.append((where, command, flag))
    assert wrong == []


def test_every_flag_is_documented_with_its_command() -> None:
    documented = {(command, flag) for _, command, flag in mentions()}
    missing = sorted((command, flag) for command, flags in cli_options().items()
                     for flag in flags if flag.startswith("--") and flag not in GENERIC
                     and (command, flag) not in documented)
    assert missing == []
    text = "\n".join(d.read_text() for d in DOCUMENTS)
    assert "Every command takes\n`--root DIR`" in text or "Every command takes `--root DIR`" in text
    assert re.search(r"With `--json`, an expected error is JSON", text)


def test_every_plugin_option_is_documented() -> None:
    documented = {flag for _, command, flag in mentions() if command == "pytest"}
    assert plugin_options() - documented == set()


def test_the_mention_reader_attributes_flags_to_their_command() -> None:
    assert ("README.md", "submit", "--unreachable") in {
        (w, c, f) for w, c, f in mentions() if w == "README.md"}
    assert not [m for m in mentions() if m[2] == "--permission-mode"]  # inside the agent's quotes


def test_every_config_key_in_a_toml_example_is_a_setting() -> None:
    keys = {f.name for f in fields(Settings)} - {"root"}
    seen = set()
    for block in ALL:
        if block.info != "toml" or "[tool.pytest-quest]" not in block.text:
            continue
        section = block.text.split("[tool.pytest-quest]", 1)[1].split("\n[", 1)[0]
        for key in re.findall(r"^([a-z_]+)\s*=", section, re.M):
            assert key in keys, (block.name, key)
            seen.add(key)
    assert {"sources", "test_dir", "exclude_quests", "isolation"} <= seen


def test_config_keys_named_in_prose_are_settings() -> None:
    keys = {f.name for f in fields(Settings)}
    for document in DOCUMENTS:
        for key in re.findall(r"`\[tool\.pytest-quest\]\s+([a-z_]+)`", document.read_text()):
            assert key in keys, (document.name, key)
        for key in re.findall(r"\[tool\.pytest-quest\]`?\s+`([a-z_]+)`", document.read_text()):
            assert key in keys, (document.name, key)


def test_the_exit_codes_in_the_readme_are_the_commands() -> None:
    from pytest_quest.cli import submit

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    line = re.search(r"# (0 PASS, .*)", readme)
    assert line is not None
    pairs = re.findall(r"(\d) (PASS|FAIL|REVIEW)", line.group(1))
    codes = {word: int(n) for n, word in pairs}
    assert codes == submit._EXIT
    assert "2 usage error" in line.group(1) and errors.UsageError.exit_code == 2
    assert "4 locked" in line.group(1) and errors.QuestLocked.exit_code == 4
    help_text = click.Context(cli).command.get_command(click.Context(cli), "submit")
    assert help_text is not None and line.group(1).split(",")[0] in (help_text.help or "")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d.name)
def test_every_error_kind_named_is_one_the_cli_reports(document: Path) -> None:
    kinds = {name for name in dir(errors) if isinstance(getattr(errors, name), type)
             and issubclass(getattr(errors, name), errors.QuestError)}
    looks_like_a_kind = re.compile(
        r"^(No|Corrupt|Unknown)[A-Z]\w+$|^\w+(Error|Fault|Needed|Locked|Busy)$")
    for name in re.findall(r"`([A-Z][a-z]+(?:[A-Z][a-z]+)+)`", document.read_text()):
        if looks_like_a_kind.match(name) and not hasattr(builtins, name):
            assert name in kinds, (document.name, name)


def test_the_readme_config_table_gives_each_settings_default() -> None:
    """The Default column is the settings model's default, written as TOML."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| ([^|]+) \|", readme, re.M))
    defaults = {f.name: f.default for f in fields(Settings)}
    checked = 0
    for key, written in rows.items():
        written = written.strip().strip("`")
        default = defaults[key]
        if written in ("auto-detected", "the interpreter running pytest-quest"):
            assert key in ("sources", "python"), key
            continue
        if isinstance(default, tuple):
            assert written == "[]" and default == (), key
        elif isinstance(default, bool):
            assert written == str(default).lower(), key
        elif isinstance(default, str):
            assert written == f'"{default}"', key
        else:
            assert float(written) == default, key
        checked += 1
    assert checked == len(rows) - 2
