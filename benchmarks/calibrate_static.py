"""The static stage alone on real, human-written tests: which rules fire where. Run by hand.

    python benchmarks/calibrate_static.py [--lib boltons==26.2.0] [--json OUT]
    python benchmarks/calibrate_static.py --compare BEFORE.json AFTER.json

``benchmarks/calibrate.py`` submits a sample of 72 (function, test file) pairs through
the whole gate (minutes). A static rule, though, can only change a verdict where it
fires, and it fires from the file's text alone, so every pair can be judged in seconds:
this script takes the same libraries (``pip download`` of the sdist, unpacked into
``benchmarks/_work/``), scans them, and runs the static stage (``rules.static.check``)
for every test file against every function of every project module the file names.
Run it with the code before and after a rule change and ``--compare`` the two JSON
files: a pair where the new code fires a rule the old one did not is a false positive
to justify or fix (the human test files are the ground truth for "a good test").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate import DEFAULT_LIBS, KNOWN, WORK, fetch, test_files


def pairs_for(root: Path, source: str) -> list[Any]:
    """Every function (a ``Quest``) of the library's source folder."""
    from pytest_quest.quest import Quest
    from pytest_quest.scanner import iter_source_files, scan_file

    out = []
    for rel in iter_source_files(root, (source,), "tests/quest"):
        found = scan_file(root, rel)
        if isinstance(found, list):
            out += [Quest(id=f"{f.path}::{f.qualname}", path=f.path, qualname=f.qualname)
                    for f in found]
    return out


def judge_library(spec: str) -> dict[str, list[str]]:
    """``"test file -> quest id"`` -> the rule ids the static stage fires."""
    from pytest_quest.config import load_settings
    from pytest_quest.rules import static
    from pytest_quest.sandbox import module_name
    from pytest_quest.submission import Submission, parse

    name = spec.partition("==")[0]
    source = KNOWN.get(name, name.replace("-", "_"))
    root = fetch(spec)
    settings = load_settings(root).with_overrides(sources=(source,))
    quests = pairs_for(root, source)
    out: dict[str, list[str]] = {}
    for rel in test_files(root):
        data = (root / rel).read_bytes()
        text = data.decode("utf-8", errors="replace")
        for quest in quests:
            module = module_name(quest.path, settings)
            if module.rsplit(".", 1)[-1] not in text:
                continue  # the file does not name the function's module: not a pair
            sub = parse(Submission(settings=settings, quest=quest, snapshot={}, test_bytes=data,
                                   test_rel=f"tests/quest/{Path(rel).name}"))
            fired = sorted({f.rule for f in static.check(sub)})
            out[f"{rel} -> {quest.id}"] = fired
    return out


def compare(before: dict[str, list[str]], after: dict[str, list[str]]) -> int:
    """Print pairs whose static verdict changed; exit 1 when a pair got a new rule."""
    new_fail = 0
    changed: Counter[str] = Counter()
    for key in sorted(set(before) | set(after)):
        old, new = set(before.get(key, [])), set(after.get(key, []))
        if old == new:
            continue
        added, dropped = sorted(new - old), sorted(old - new)
        if added and not old:
            new_fail += 1
        for rule in added:
            changed[f"+{rule}"] += 1
        for rule in dropped:
            changed[f"-{rule}"] += 1
        print(f"{key}: +{added} -{dropped}")
    clean = [k for k in after if not after[k]]
    print(f"\npairs: {len(after)}; quiet before {sum(not v for v in before.values())}, "
          f"after {len(clean)}; pairs newly failed by the static stage: {new_fail}")
    for rule, n in sorted(changed.items()):
        print(f"  {rule}: {n} pairs")
    return 1 if new_fail else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", action="append", help="NAME==VERSION (repeatable)")
    parser.add_argument("--json", type=Path, default=WORK / "calibration_static.json")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(p.read_text(encoding="utf-8")) for p in args.compare)
        return compare(before, after)
    started = time.monotonic()
    result: dict[str, list[str]] = {}
    for spec in args.lib or DEFAULT_LIBS:
        result.update(judge_library(spec))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1, sort_keys=True), encoding="utf-8")
    fired = Counter(rule for rules in result.values() for rule in rules)
    print(f"{len(result)} pairs, {sum(not v for v in result.values())} quiet; "
          f"{time.monotonic() - started:.1f} s")
    for rule, n in fired.most_common():
        print(f"  {rule}: {n} pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
