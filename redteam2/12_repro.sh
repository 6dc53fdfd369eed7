#!/bin/bash
# Reproduce finding 12: PASS, score 1.0, by predicting the schedule (no result checked).
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj12 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/12_schedule_from_public_seed.py" 2>&1 | grep -E '"verdict"|"score"|"isolation"|rc='
