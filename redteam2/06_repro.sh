#!/bin/bash
# Reproduce finding 06: traceback (UnicodeEncodeError), tries stay 0, attempts log empty.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj06 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/06_lone_surrogate_crashes_record.py" 2>&1 | tail -3
python3 -c "import json; d=json.load(open('/tmp/rt2/proj06/.quest/ledger.json')); print([(q['state'],q['tries']) for q in d['quests'] if q['id']=='hotel/pricing.py::nightly_rate'])"
wc -c /tmp/rt2/proj06/.quest/attempts.jsonl
