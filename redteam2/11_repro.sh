#!/bin/bash
# Reproduce finding 11: RecursionError traceback from submit, tries 0.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj11 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/11_deep_ast_crashes_static_stage.py" 2>&1 | tail -2
python3 -c "import json; d=json.load(open('/tmp/rt2/proj11/.quest/ledger.json')); print([(q['state'],q['tries']) for q in d['quests'] if q['id']=='hotel/pricing.py::nightly_rate'])"
