#!/bin/bash
# Reproduce finding 09: PASS although later runs read __code__ and the source file.
HERE=$(cd "$(dirname "$0")" && pwd)
PROJ=/tmp/rt2/proj09 "$HERE/run_submit.sh" hotel/pricing.py::nightly_rate "$HERE/09_reads_ignored_after_measured_run.py" 2>&1 | grep -E '"verdict"|"score"|"isolation"|rc='
