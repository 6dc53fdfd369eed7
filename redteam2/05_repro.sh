#!/bin/bash
# Reproduce finding 05: PASS on merit, then one rescan locks every remaining quest.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj05 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/05_locked_test_forges_baseline_via_event_pipe.py" 2>&1 | grep -E '"verdict"|"score"|rc='
cd /tmp/rt2/proj05 && . "$HERE/../.venv/bin/activate"
python3 -c "import json,collections; d=json.load(open('.quest/ledger.json')); print('before scan', collections.Counter(q['state'] for q in d['quests']))"
pytest-quest scan >/dev/null 2>&1
python3 -c "import json,collections; d=json.load(open('.quest/ledger.json')); print('after scan', collections.Counter(q['state'] for q in d['quests']), d['scans'][-1])"
