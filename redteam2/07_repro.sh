#!/bin/bash
# Reproduce finding 07: PASS, score 1.0; the test never checks a result.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj07 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/07_detect_mutant_via_loader_code.py" 2>&1 | grep -E '"verdict"|"score"|"isolation"|rc='
