#!/bin/bash
# Reproduce finding 03: PASS; then the locked test passes against a broken nightly_rate.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj03 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/03_differential_oracle_loader_source.py" | grep -E '"verdict"|"score"|"isolation"|rc='
cd /tmp/rt2/proj03 && . "$HERE/../.venv/bin/activate"
sed -i 's/    return round(rate, 2)/    return 0.0/' hotel/pricing.py
python -m pytest -q -p no:cacheprovider tests/quest | tail -1
