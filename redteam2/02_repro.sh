#!/bin/bash
# Reproduce finding 02: EnvironmentFault echoing the test's text; tries stay 0.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj02 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/02_forged_answer_free_probe.py" 2>&1 | tail -4
python3 -c "import json; d=json.load(open('/tmp/rt2/proj02/.quest/ledger.json')); print([(q['state'],q['tries']) for q in d['quests'] if q['id']=='hotel/pricing.py::nightly_rate'])"
