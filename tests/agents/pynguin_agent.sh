#!/bin/sh
# The Pynguin recipe of docs/agents.md, as the slow test runs it: one Pynguin run for the
# quest's module; its tests that are marked xfail or assert nothing are dropped (the gate
# refuses both), the rest is copied to the quest's test path. $PYNGUIN is the executable
# (Pynguin pins pytest<9, so it lives in a virtualenv of its own).
set -e
module=$(printf %s "$QUEST_SOURCE_PATH" | sed -e 's|^src/||' -e 's|\.py$||' -e 's|/|.|g')
out=$(mktemp -d)
PYNGUIN_DANGER_AWARE=1 "$PYNGUIN" --project-path . --module-name "$module" \
    --output-path "$out" --maximum-search-time "${PYNGUIN_SECONDS:-10}" --seed "$QUEST_TRIES" \
    >/dev/null 2>&1
mkdir -p "$(dirname "$QUEST_TEST_PATH")"
python3 - "$out"/test_*.py "$QUEST_TEST_PATH" <<'PY'
import ast, sys
source, target = sys.argv[1], sys.argv[2]
tree = ast.parse(open(source).read())
def keep(node):
    if not isinstance(node, ast.FunctionDef):
        return True
    if any("xfail" in ast.unparse(d) for d in node.decorator_list):
        return False
    return any(isinstance(n, ast.Assert) or (isinstance(n, ast.With) and "raises" in ast.unparse(n))
               for n in ast.walk(node))
tree.body = [n for n in tree.body if keep(n)]
open(target, "w").write(ast.unparse(tree) + "\n")
PY
rm -rf "$out"
