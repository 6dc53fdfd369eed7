#!/bin/bash
# usage: run_submit.sh QUEST TESTFILE  (fresh copy of example_project each time, in $PROJ)
# env: PROJ (default /tmp/rt2/proj), OUTER (outer timeout, default 600)
set -e
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/.venv/bin/activate"
Q="$1"; T="$(readlink -f "$2")"; P="${PROJ:-/tmp/rt2/proj}"
rm -rf "$P" && mkdir -p "$(dirname "$P")" && cp -r "$HERE/example_project" "$P" && cd "$P"
pytest-quest scan >/dev/null 2>&1
TP=$(python3 - "$Q" <<'PY'
import sys
q=sys.argv[1]; path,qual=q.split("::")
print("tests/quest/test_"+path.removesuffix(".py").replace("/","_")+"__"+qual.replace(".","_")+".py")
PY
)
mkdir -p tests/quest; cp "$T" "$TP"
set +e
timeout ${OUTER:-600} pytest-quest submit "$Q" --test "$TP" --json; echo "rc=$?"
