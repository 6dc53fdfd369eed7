#!/bin/bash
# Reproduce finding 08: REVIEW (mutation-not-verified: the harness reported none), tries 0.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj08 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/08_sigint_the_judge_review.py" 2>&1 | grep -E '"verdict"|"root_cause"|"actual"|rc='
python3 -c "import json; d=json.load(open('/tmp/rt2/proj08/.quest/ledger.json')); print([(q['state'],q['tries']) for q in d['quests'] if q['id']=='hotel/pricing.py::nightly_rate'])"
