"""The HTML report: burn-down series, escaping, self-containment, and a real headless browser.

The browser tests run Debian's ``chromium`` headless: the page loads with no
console message at all (errors, CSP violations), the chart is drawn, the
script ran, the counts on the page equal ``status --json``, and a screenshot
is not blank. They are skipped, with the reason, only when chromium is absent.
"""

from __future__ import annotations

import itertools
import re
import shutil
import struct
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest

from pytest_quest.export import summary
from pytest_quest.ledger import Ledger
from pytest_quest.records import Attempt
from pytest_quest.report_html import Point, burndown, render, render_ledger, svg_chart
from tests.test_cli_status import build_ledger, invoke, status_json

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_browser = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (Debian: apt-get install -y chromium); "
    "the HTML report's browser tests need it",
)


# ------------------------------------------------------------------ burn-down
def scan(time: str, remaining: int, added: int) -> dict[str, object]:
    return {"time": time, "total": remaining, "remaining": remaining, "added": added,
            "retired": 0, "locked": 0}


def test_burndown_only_goes_down_except_at_scans_and_send_backs() -> None:
    scans = [scan("2026-01-01T00:00:00Z", 5, 5), scan("2026-01-03T00:00:00Z", 6, 3)]
    attempts = [Attempt.from_dict(a) for a in (
        {"kind": "submit", "time": "2026-01-01T01:00:00Z", "remaining": 4},
        {"kind": "submit", "time": "2026-01-01T02:00:00Z", "remaining": 4},  # FAIL: flat
        {"kind": "submit", "time": "2026-01-02T00:00:00Z", "remaining": 3},
        {"kind": "review", "quest": "a::f", "time": "2026-01-04T00:00:00Z", "remaining": 7},
        {"kind": "submit", "time": "2026-01-05T00:00:00Z", "remaining": 6},
        {"kind": "submit", "time": "2026-01-05T00:00:01Z"},  # no figure: ignored
    )]
    points = burndown(scans, attempts, 6, "2026-01-06T00:00:00Z")
    assert [p.remaining for p in points] == [5, 4, 4, 3, 6, 7, 6]
    assert [p.kind for p in points] == ["scan", "submit", "submit", "submit", "scan", "review",
                                        "submit"]
    for before, after in itertools.pairwise(points):
        if after.remaining > before.remaining:
            assert after.kind in ("scan", "review")
            assert after.rise == after.remaining - before.remaining
            assert after.label
    assert points[4].label == "scan: +3 new"
    assert points[5].label == "review: a::f sent back"


def test_burndown_clamps_parallel_agents_times_and_ends_at_the_ledger() -> None:
    attempts = [  # file order is lock order; agent B started earlier but recorded later
        Attempt.from_dict({"kind": "submit", "time": "2026-01-01T00:10:00Z", "remaining": 9}),
        Attempt.from_dict({"kind": "submit", "time": "2026-01-01T00:05:00Z", "remaining": 8}),
    ]
    points = burndown([scan("2026-01-01T00:00:00Z", 10, 10)], attempts, 7, "2026-01-01T01:00:00Z")
    times = [p.time for p in points]
    assert times == sorted(times)
    assert [p.remaining for p in points] == [10, 9, 8, 7]
    assert points[-1].kind == "now"


def test_empty_history_draws_a_placeholder() -> None:
    assert burndown([], [], 0, "2026-01-01T00:00:00Z") == [
        Point("2026-01-01T00:00:00Z", 0, "now")]
    assert "no scans yet" in svg_chart([])


def test_chart_is_a_step_line_with_marked_rises() -> None:
    points = [Point("2026-01-01T00:00:00Z", 5, "scan", 0, "scan"),
              Point("2026-01-02T00:00:00Z", 3, "submit"),
              Point("2026-01-03T00:00:00Z", 6, "scan", 3, "scan: +3 new")]
    svg = svg_chart(points)
    path = re.search(r'<path class="line" d="([^"]+)"', svg)
    assert path is not None and path.group(1).count("V") == 2
    assert svg.count('class="step"') == 1 and "scan: +3 new" in svg


# ----------------------------------------------------------------- the page
def test_page_is_self_contained_and_escapes_everything(tmp_path: Path) -> None:
    build_ledger(tmp_path, 20)
    ledger = Ledger.load(Ledger.for_root(tmp_path).path)
    evil = '<script>alert("x")</script>'
    quest = ledger.get("pkg/mod_0000.py::func_8")
    ledger.put(quest.with_(qualname=evil, facts=(quest.facts[0].__class__(
        "coverage-unreachable-claim", "review", evil, evil, evil),)))
    page = render_ledger(ledger, now="2026-01-02T00:00:00Z")
    assert evil not in page and "&lt;script&gt;" in page
    assert page.count("<script>") == 1  # ours, inline
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', page)
    assert "@import" not in page and "url(" not in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_counts_on_the_page_equal_status_json(tmp_path: Path) -> None:
    build_ledger(tmp_path, 100)
    page = invoke(tmp_path, "export", "--format", "html").stdout
    assert page_counts(page) == expected_counts(status_json(tmp_path))


def test_render_uses_the_summary_document(tmp_path: Path) -> None:
    ledger = build_ledger(tmp_path, 30)
    page = render(summary(ledger), [], "t & t", "now")
    assert "<title>t &amp; t</title>" in page and page.count('class="quest"') == 30


def page_counts(dom: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r'data-count="(\w+)">(\d+)<', dom)}


def expected_counts(data: dict) -> dict[str, int]:  # type: ignore[type-arg]
    return {"total": data["total"], "remaining": data["remaining"], **data["counts"]}


# ---------------------------------------------------------- real browser
def chromium(tmp_path: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """One headless run with a throwaway profile and no network-facing services."""
    assert CHROMIUM is not None
    profile = tmp_path / "chromium-profile"
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
        "--enable-logging=stderr", "--v=0", *args, url,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def console_messages(stderr: str) -> list[str]:
    """Every console message the page produced (chromium logs them as ``:CONSOLE``)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.fixture
def report(tmp_path: Path) -> tuple[Path, dict]:  # type: ignore[type-arg]
    root = tmp_path / "proj"
    build_ledger(root, 300, per_file=12)
    target = root / "report.html"  # inside the project: export refuses other places unforced
    assert invoke(root, "export", "--format", "html", "-o", str(target)).exit_code == 0
    return target, status_json(root)


@needs_browser
@pytest.mark.slow
def test_the_console_check_catches_errors(tmp_path: Path) -> None:
    """The harness itself: a broken page must produce console messages we see."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><p>x</p><script>undefinedFunction();</script>")
    result = chromium(tmp_path, bad.as_uri(), "--dump-dom")
    assert any("undefinedFunction" in line for line in console_messages(result.stderr))


@needs_browser
@pytest.mark.slow
def test_browser_loads_without_console_messages_and_counts_match(
        tmp_path: Path, report: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    target, data = report
    result = chromium(tmp_path, target.as_uri(), "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_messages(result.stderr) == []
    dom = result.stdout
    assert 'data-ready="1"' in dom  # the inline script ran to its end
    assert page_counts(dom) == expected_counts(data)
    assert dom.count('class="quest"') == len(data["quests"])
    assert re.search(r'<span id="shown">(\d+)</span>', dom).group(1) == str(len(data["quests"]))
    chart = re.search(r'<path class="line" d="(M[^"]+)"', dom)
    assert chart is not None and chart.group(1).count("V") >= 2  # the burn-down is drawn
    assert len(re.findall(r"<tr class=\"file\"", dom)) == len(data["files"])


def decode_png(data: bytes) -> tuple[int, int, list[bytes], int]:
    """A tiny PNG decoder (8-bit RGB/RGBA, all five filters): no Pillow needed."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, width, height, ctype = 8, [], 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8
        elif kind == b"IDAT":
            chunks.append(body)
    bpp = {2: 3, 6: 4}[ctype]
    raw, stride = zlib.decompress(b"".join(chunks)), width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if kind == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev, strict=True))
        elif kind == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + (left + prev[x]) // 2) & 255
        elif kind == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


@needs_browser
@pytest.mark.slow
def test_screenshot_is_not_blank(tmp_path: Path, report: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    target, _ = report
    shot = tmp_path / "report.png"
    result = chromium(tmp_path, target.as_uri(), f"--screenshot={shot}", "--window-size=1200,900",
                      "--hide-scrollbars")
    assert shot.is_file(), result.stderr[-2000:]
    width, height, rows, bpp = decode_png(shot.read_bytes())
    assert (width, height) == (1200, 900)
    colours: Counter[bytes] = Counter()
    for row in rows[::3]:
        for x in range(0, len(row), bpp * 3):
            colours[row[x:x + 3]] += 1
    sampled = sum(colours.values())
    white = colours[b"\xff\xff\xff"]
    assert len(colours) > 50, "too few colours: the page looks blank"
    assert sampled - white > sampled * 0.05, "almost every pixel is white"
    # the burn-down's line colour (#0969da) and the PASS green (#1a7f37) are on screen
    near = lambda rgb: any(sum(abs(a - b) for a, b in zip(c, rgb, strict=True)) < 40  # noqa: E731
                           for c in colours)
    assert near((0x09, 0x69, 0xDA)) and near((0x1A, 0x7F, 0x37))
