# ruff: noqa  (corpus input: deliberately bad test code)  -*- coding: latin-1 -*-
# quest: hotel/pricing.py::nightly_rate
# expect: static-fd-write
#
# RED TEAM 51: a latin-1 coding cookie crashes `submit` with a UnicodeDecodeError (traceback, no verdict, no try spent)
#   submission.parse builds the tree with ast.parse(test_bytes), which honours the PEP 263
#   cookie (latin-1 here), so the tree's col_offsets count UTF-8 bytes of the *latin-1 decoded*
#   line. But Submission.test_text decodes the same bytes as UTF-8 with errors="replace": each
#   byte 0xE9 becomes U+FFFD (3 bytes in UTF-8, where the tree counted 2 for e-acute). Any rule
#   that quotes a node (rules/names.quote -> ast.get_source_segment(sub.test_text, node)) then
#   slices test_text's line at the tree's byte offsets; with three such bytes in the quoted
#   call the slice ends inside a U+FFFD, and get_source_segment's strict .decode() raises
#   UnicodeDecodeError out of rules/escapes.check_escapes -> gate.evaluate -> submit: a
#   traceback instead of a verdict (the try is not spent, nothing recorded). Lines that differ
#   in count (a UTF-7 cookie with "+AAo-" newlines) make the same call raise IndexError.
# Observed on dea27c5 (3.11.7): crash (UnicodeDecodeError traceback, exit 1, no JSON) 3 of 3 on proj; 3 of 3 on broken (same file)
# Fix suggested: decode the test once, the way Python does (tokenize.detect_encoding /
#   importlib.util.decode_source on test_bytes), and use that text both for ast.parse and for
#   test_text; or refuse a file that is not plain UTF-8 (a coding cookie other than utf-8, or
#   bytes that do not decode) as a static FAIL; and make quote() fall back to ast.unparse on any
#   exception from get_source_segment.
# Fixed by: the test's text is decoded as Python decodes it (Submission.test_text:
#   importlib.util.decode_source, its coding cookie), and a quote past the text falls back to
#   the tree (rules.names.quote): a verdict, static-fd-write, with the quoted call as written.
import os
from hotel.pricing import nightly_rate


def test_seasons():
    assert nightly_rate(100.0, "high", 1) == 125.0
    if nightly_rate(100.0, "low", 1) < 0:
        os.open("x", os.O_RDONLY, dir_fd="ייי")
