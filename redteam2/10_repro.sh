#!/bin/bash
# Reproduce finding 10: PASS with line 7 in covered_lines; coverage.py shows line 7 never runs.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj10 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/10_forged_coverage_skips_reach_check.py" 2>&1 | grep -E '"verdict"|"score"|"install"|rc='
cd /tmp/rt2/proj10 && . "$HERE/../.venv/bin/activate"
python3 -c "import json; d=json.load(open('.quest/ledger.json')); q=[q for q in d['quests'] if q['id']=='hotel/pricing.py::nightly_rate'][0]; print('evidence covered_lines', q['evidence']['covered_lines'])"
python -m coverage run --include='hotel/pricing.py' -m pytest -q -p no:cacheprovider tests/quest >/dev/null
python - <<'PY'
import coverage
c = coverage.Coverage(); c.load()
print("really missing in nightly_rate:", [l for l in c.analysis2("hotel/pricing.py")[3] if 6 <= l <= 16])
PY
