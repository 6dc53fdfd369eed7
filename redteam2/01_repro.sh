#!/bin/bash
# Reproduce finding 01: PASS, then show the locked test passes against a broken nightly_rate.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj01 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/01_snapshot_oracle_across_runs.py" | grep -E '"verdict"|"score"|"isolation"|rc='
cd /tmp/rt2/proj01 && . "$HERE/../.venv/bin/activate"
sed -i 's/    return round(rate, 2)/    return 0.0/' hotel/pricing.py
python -m pytest -q tests/quest | tail -1        # 1 passed: the locked test checks nothing
