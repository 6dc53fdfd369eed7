#!/bin/bash
# Reproduce finding 13 in a private TMPDIR (so no other /tmp user is affected):
#  1. the deep-tree test crashes submit (RecursionError), tries 0, sandbox left behind;
#  2. the leftover, aged two days, makes the next scan crash before doing anything.
HERE=$(cd "$(dirname "$0")" && pwd)
export TMPDIR=/tmp/rt2/tmp13; rm -rf "$TMPDIR"; mkdir -p "$TMPDIR"
PROJ=/tmp/rt2/proj13 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/13_deep_tree_crashes_cleanup_and_stale_removal.py" 2>&1 | tail -2
python3 -c "import json; d=json.load(open('/tmp/rt2/proj13/.quest/ledger.json')); print([(q['state'],q['tries']) for q in d['quests'] if q['id']=='hotel/pricing.py::nightly_rate'])"
echo "left behind:"; ls "$TMPDIR"
for d in "$TMPDIR"/pytest-quest-*; do touch -h -d '2 days ago' "$d"; done
. "$HERE/../.venv/bin/activate"
rm -rf /tmp/rt2/proj13b && cp -r "$HERE/../example_project" /tmp/rt2/proj13b && cd /tmp/rt2/proj13b
pytest-quest scan 2>&1 | tail -1          # RecursionError in remove_stale
rm -rf "$TMPDIR"                          # clean up (rm -rf copes with the depth)
