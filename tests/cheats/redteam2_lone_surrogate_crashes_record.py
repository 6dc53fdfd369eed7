# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
# pending: parent
#
# RED TEAM 2, finding 06: a lone surrogate in the run's output crashes `submit` while it records
#   the verdict: the attempt is never logged, the try never counted (free retries, max_tries void).
# What: a failing test whose assertion message holds "\ud800". The run, the judge and the event
#   validation all cope (json escapes it as \ud800); the gate reaches its FAIL verdict; then
#   submit._record -> ledger.append_attempt writes the output tail with ensure_ascii=False to a
#   utf-8 file: UnicodeEncodeError inside the ledger transaction, so the ledger is not saved.
# Observed: a Python traceback ending in `UnicodeEncodeError: 'utf-8' codec can't encode
#   character '\ud800' ... surrogates not allowed`, exit 1, no verdict printed; ledger: state
#   TODO, tries 0; attempts.jsonl empty. An agent that adds
#   `assert ok, "\ud800"`-style messages (or prints one in a fixture that runs only when
#   something fails) never spends a try and is never blocked by max_tries; a PASS is still
#   recorded (the surrogate only shows when a test fails). Under `loop`/MCP a traceback in
#   the middle of a submit is a crash of the driver.
# Why: text from the run (output tail, fact messages, nodeids) reaches the ledger and attempts
#   log as str with lone surrogates; json.dumps(ensure_ascii=False) + encoding="utf-8" refuses.
# Fix: sanitise run-provided text once where it enters the parent (decode/encode with
#   errors="replace" or "backslashreplace", or json.dumps with ensure_ascii=True); and record the
#   try *before* anything that can fail on run-provided content (an exception after judging must
#   still count the try: write the verdict first, then the extras).
from hotel.pricing import nightly_rate


def test_rate():
    got = nightly_rate(100.0, "high", 3)
    assert got == 1.0, "x\ud800y" + str(got)
