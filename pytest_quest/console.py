"""The ``pytest-quest`` console script: ``next --json`` answered before click and rich load.

An agent calls ``next --json`` thousands of times on a large ledger, so its
answer should cost about what reading the ledger costs. Importing click,
rich and the command table alone would add half of that again. This entry
point recognises exactly the argument forms of ``next --json`` with
``--agent``, ``--shard`` and ``--root`` and answers them itself, through the
same :func:`~pytest_quest.handout.hand_out` the click command calls, with the
same JSON (``tests/test_console.py`` compares the two byte for byte). Anything
else, help and usage errors included, goes to the click group unchanged.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["fast_next", "main"]

_VALUED = ("--agent", "--shard", "--root")


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["next"]:
        code = fast_next(args[1:])
        if code is not None:
            raise SystemExit(code)
    from pytest_quest.cli import main as click_main

    click_main(args)


def _parse(args: list[str]) -> dict[str, str] | None:
    """The options of a ``next --json`` call, or None for anything this path does not answer."""
    found: dict[str, str] = {}
    json_flag = False
    i = 0
    while i < len(args):
        arg = args[i]
        name, sep, value = arg.partition("=")
        if arg == "--json":
            json_flag = True
        elif name in _VALUED and sep:
            found[name] = value
        elif arg in _VALUED and i + 1 < len(args):
            found[arg] = args[i + 1]
            i += 1
        else:
            return None
        i += 1
    return found if json_flag else None


def fast_next(args: list[str]) -> int | None:
    """Answer ``next ARGS`` and return the exit code, or None to let click handle it."""
    options = _parse(args)
    if options is None:
        return None
    root = options.get("--root")
    if root is not None and (not root or Path(root).is_file()):
        return None  # click's own message for a bad --root
    from pytest_quest.errors import QuestError

    try:
        from pytest_quest.handout import hand_out
        from pytest_quest.pool import Shard

        shard = options.get("--shard")
        document = hand_out(Path(root) if root else None, options.get("--agent") or None,
                            Shard.parse(shard) if shard else None).to_dict()
    except QuestError as exc:
        # As the click group reports it: the message on stderr, the error as JSON on stdout.
        sys.stderr.write(f"pytest-quest: {exc}\n")
        error = {"error": str(exc), "kind": type(exc).__name__, "exit_code": exc.exit_code}
        sys.stdout.write(json.dumps(error, sort_keys=True) + "\n")
        sys.stdout.flush()
        return exc.exit_code
    sys.stdout.write(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 0
