#!/bin/sh
# The Pynguin recipe of docs/agents.md, as the slow test runs it: one Pynguin run for the
# quest's module, its test module copied to the quest's test path. $PYNGUIN is the executable
# (Pynguin pins pytest<9, so it lives in a virtualenv of its own).
set -e
module=$(printf %s "$QUEST_SOURCE_PATH" | sed -e 's|^src/||' -e 's|\.py$||' -e 's|/|.|g')
out=$(mktemp -d)
PYNGUIN_DANGER_AWARE=1 "$PYNGUIN" --project-path . --module-name "$module" \
    --output-path "$out" --maximum-search-time "${PYNGUIN_SECONDS:-10}" --seed "$QUEST_TRIES" \
    >/dev/null 2>&1
mkdir -p "$(dirname "$QUEST_TEST_PATH")"
cp "$out"/test_*.py "$QUEST_TEST_PATH"
rm -rf "$out"
