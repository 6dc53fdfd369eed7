"""The only place commands reach rich: data for machines on stdout, decoration on stderr.

Colour is off when the stream is not a terminal or ``NO_COLOR`` is set. Width
falls back to 80 columns so output stays readable in CI logs.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["Terminal", "visible"]

#: Control characters a terminal acts on (ESC sequences that hide, move or erase what follows),
#: newline and tab aside.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str, newlines: bool = True) -> str:
    """``text`` with every control character written as its ``\\xNN`` escape.

    What humans read comes partly from the agent (an unreachable claim's reason, a test path,
    a failure message): an ESC sequence in it could hide the lines after it on the
    maintainer's terminal, the ``mutation: none recorded`` of ``review`` too (red team 4,
    finding 03). ``newlines``: keep line breaks (an output tail), else escape them too.
    """
    def escaped(match: re.Match[str]) -> str:
        return f"\\x{ord(match.group()):02x}"

    text = _CONTROL.sub(escaped, text)
    return text if newlines else text.replace("\n", "\\n").replace("\t", "\\t")


class Terminal:
    """A small facade over two rich consoles (stdout for data, stderr for decoration)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.theme import Theme

        theme = Theme({
            "pass": "bold green", "fail": "bold red", "review": "bold yellow",
            "todo": "cyan", "done": "magenta", "retired": "dim", "muted": "dim",
        })
        no_color = bool(os.environ.get("NO_COLOR"))
        width = None if sys.stdout.isatty() else 100
        self.out = Console(file=sys.stdout, theme=theme, no_color=no_color, width=width,
                           highlight=False, soft_wrap=False)
        self.err = Console(file=sys.stderr, theme=theme, no_color=no_color, stderr=True,
                           highlight=False, width=None if sys.stderr.isatty() else 100)

    # ------------------------------------------------------------- machines
    def json(self, data: Any) -> None:
        """JSON on stdout, nothing else: the machine interface."""
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def data(self, text: str) -> None:
        """Plain text on stdout, no markup interpretation."""
        self.out.print(visible(text), markup=False, highlight=False, soft_wrap=True)

    # ---------------------------------------------------------------- humans
    def print(self, text: Any = "", *, err: bool = False, style: str | None = None) -> None:
        (self.err if err else self.out).print(text, style=style)

    def info(self, text: str) -> None:
        """Decoration and progress: stderr."""
        self.err.print(text, style="muted")

    def rule(self, title: str = "", *, err: bool = False) -> None:
        (self.err if err else self.out).rule(title)

    @contextmanager
    def status(self, message: str) -> Iterator[Any]:
        """A spinner on stderr (silent when stderr is not a terminal)."""
        if not self.err.is_terminal:
            self.info(message)
            yield None
            return
        with self.err.status(message) as live:
            yield live

    @contextmanager
    def live(self) -> Iterator[Callable[[str], None] | None]:
        """A block of markup redrawn in place on stderr; None when stderr is not a terminal.

        Long-running commands (``loop``) show progress here and fall back to
        one line per event in logs, where a redrawn block would be noise.
        """
        if not self.err.is_terminal:
            yield None
            return
        from rich.live import Live
        from rich.text import Text

        with Live(console=self.err, refresh_per_second=4, transient=True) as live:
            yield lambda markup: live.update(Text.from_markup(markup))

    def fact(self, fact: Any, indent: str = "  ") -> None:
        """One fact as every command shows it: rule, level and place, then expected and actual.

        Takes a :class:`~pytest_quest.facts.Fact` or its dict. The place is
        escaped: a parametrized node id (``test_a[high]``) is not markup.
        """
        get = fact.get if isinstance(fact, dict) else lambda key: getattr(fact, key)
        self.print(f"{indent}[bold]{self.escape(get('rule'))}[/bold] "
                   f"[muted]({self.escape(get('level'))})[/muted] {self.escape(get('where'))}")
        self.data(f"{indent}  expected: {visible(str(get('expected')), newlines=False)}\n"
                  f"{indent}  actual:   {visible(str(get('actual')), newlines=False)}")

    def syntax(self, code: str, *, start_line: int = 1, marked: Sequence[int] = (),
               err: bool = False) -> None:
        from rich.syntax import Syntax

        syntax = Syntax(code, "python", line_numbers=True, start_line=start_line,
                        highlight_lines=set(marked), word_wrap=False, theme="ansi_dark")
        (self.err if err else self.out).print(syntax)

    def table(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
              title: str | None = None, err: bool = False) -> None:
        from rich.table import Table

        table = Table(title=title, show_lines=False, header_style="bold")
        for column in columns:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(str(c) for c in row))
        (self.err if err else self.out).print(table)

    def bar(self, done: int, total: int, width: int = 30) -> str:
        """A text progress bar (no live rendering: it must read the same in a log)."""
        filled = 0 if total == 0 else round(width * done / total)
        share = 0.0 if total == 0 else 100.0 * done / total
        return f"[pass]{'█' * filled}[/pass][muted]{'░' * (width - filled)}[/muted] {share:5.1f}%"

    # ------------------------------------------------------------- helpers
    @staticmethod
    def escape(text: Any) -> str:
        """``text`` with rich markup neutralised, for ids and facts printed inside markup."""
        from rich.markup import escape

        return escape(visible(str(text), newlines=False))

    def write(self, text: str) -> None:
        """Raw text on stdout, unwrapped: large machine documents (JSON Lines, CSV, HTML)."""
        sys.stdout.write(text)
        sys.stdout.flush()

    def grid(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
             right: Sequence[int] = (), err: bool = False) -> None:
        """A plain aligned table for long listings: one rich Text, ~10x faster than ``table``.

        A cell is a value or a ``(value, style)`` pair. The first column is
        shortened from the left (``…tail``) so every line fits the width.
        """
        from rich.text import Text

        console = self.err if err else self.out
        cells = [[c if isinstance(c, tuple) else (c, None) for c in row] for row in rows]
        texts = [[str(v) for v, _ in row] for row in cells]
        widths = [len(h) for h in columns]
        for row in texts:
            for i, value in enumerate(row):
                widths[i] = max(widths[i], len(value))
        spare = console.width - (sum(widths) + 2 * (len(widths) - 1))
        if spare < 0:
            widths[0] = max(len(columns[0]), widths[0] + spare)

        def fit(value: str, i: int) -> str:
            if len(value) > widths[i]:
                value = "…" + value[len(value) - widths[i] + 1:]
            return value.rjust(widths[i]) if i in right else value.ljust(widths[i])

        out = Text()
        out.append("  ".join(fit(h, i) for i, h in enumerate(columns)).rstrip(), style="bold")
        out.append("\n" + "  ".join("─" * w for w in widths) + "\n", style="muted")
        for row, raw in zip(texts, cells, strict=True):
            for i, value in enumerate(row):
                if i:
                    out.append("  ")
                out.append(fit(value, i), style=raw[i][1])
            out.append("\n")
        console.print(out, end="", soft_wrap=True)
