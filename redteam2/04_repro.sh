#!/bin/bash
# Reproduce finding 04: REVIEW (exit 3), tries 0, for a test that checks nothing.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj04 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/04_slow_measured_run_review.py" 2>&1 | grep -E '"verdict"|"root_cause"|"actual"|rc='
python3 -c "import json; d=json.load(open('/tmp/rt2/proj04/.quest/ledger.json')); print([(q['state'],q['tries']) for q in d['quests'] if q['id']=='hotel/pricing.py::nightly_rate'])"
