"""The HTML report: one self-contained static page a maintainer can open or attach.

No server, no network, no CDN: the CSS and the few lines of JavaScript (a
filter for the quest table) are inline, the burn-down chart is an inline SVG
drawn here in Python, and a Content-Security-Policy forbids every outside
fetch, so the page reads the same offline, in a CI artifact or in a mail.
The numbers come from :func:`pytest_quest.export.summary`, the same document
``status --json`` prints, so page and CLI cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import Any

from pytest_quest.export import summary
from pytest_quest.ledger import Ledger, now_iso, read_attempts
from pytest_quest.provenance import annotate
from pytest_quest.records import Attempt
from pytest_quest.states import State

__all__ = ["Point", "burndown", "render", "render_ledger", "svg_chart"]

@dataclass(frozen=True)
class Point:
    """One moment of the burn-down: remaining TODO quests after an event."""

    time: str
    remaining: int
    kind: str
    #: How much ``remaining`` rose at this point (0 for every ordinary step down).
    rise: int = 0
    label: str = ""


def _seconds(value: str) -> float | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, AttributeError, TypeError):
        return None


def burndown(scans: list[dict[str, Any]], attempts: list[Attempt], remaining: int,
             now: str) -> list[Point]:
    """The remaining-quests series from the scans, the attempts log and the ledger now.

    Attempts are taken in file order, which is the order their ``remaining``
    was computed under the ledger lock; their ``time`` is when a submission
    started, so with parallel agents it can run backwards and is clamped to
    stay monotone. The series only goes down except at a rescan that added
    functions or a review that sent a quest back: those rises are kept as
    labelled steps, never smoothed away.
    """
    events: list[tuple[str, int, str, dict[str, Any]]] = []
    clamp = ""
    pending = [s for s in scans if isinstance(s.get("remaining"), int)]
    i = 0
    for attempt in attempts:
        if attempt.remaining is None:
            continue
        clamp = max(clamp, attempt.time)
        while i < len(pending) and str(pending[i].get("time", "")) <= clamp:
            scan = pending[i]
            events.append((str(scan.get("time", "")), scan["remaining"], "scan", scan))
            i += 1
        events.append((clamp, attempt.remaining, attempt.kind, {"quest": attempt.quest}))
    for scan in pending[i:]:
        events.append((str(scan.get("time", "")), scan["remaining"], "scan", scan))
    if not events or events[-1][1] != remaining:
        events.append((max(now, events[-1][0]) if events else now, remaining, "now", {}))

    points: list[Point] = []
    previous: int | None = None
    for time, value, kind, record in events:
        rise = 0 if previous is None else max(0, value - previous)
        label = ""
        if kind == "scan":
            added = int(record.get("added", 0) or 0)
            label = f"scan: +{added} new" if previous is not None and added else "scan"
        elif rise and kind == "review":
            label = f"review: {record.get('quest', '')} sent back"
        elif rise:
            label = f"{kind}: +{rise}"
        points.append(Point(time, value, kind, rise, label))
        previous = value
    return points


def svg_chart(points: list[Point], width: int = 760, height: int = 240) -> str:
    """The burn-down as a step line in an inline SVG (server-side: no JS needed to see it)."""
    left, right, top, bottom = 44, 16, 14, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    parts = [
        f'<svg id="burndown" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="Remaining quests over time" preserveAspectRatio="xMidYMid meet">'
    ]
    if not points:
        parts.append(f'<text x="{width // 2}" y="{height // 2}" text-anchor="middle" '
                     'class="axis">no scans yet</text></svg>')
        return "".join(parts)
    top_value = max(1, max(p.remaining for p in points))
    stamps = [_seconds(p.time) for p in points]
    known = [s for s in stamps if s is not None]
    low = min(known) if known else 0.0
    span = (max(known) - low) if known else 0.0
    xs: list[float] = []
    for index, stamp in enumerate(stamps):
        if span > 0 and stamp is not None:
            xs.append(left + plot_w * (stamp - low) / span)
        else:
            xs.append(left + (plot_w * index / max(1, len(points) - 1)))

    def y_of(value: int) -> float:
        return top + plot_h * (1 - value / top_value)

    for tick in sorted({0, top_value // 2, top_value}):
        y = y_of(tick)
        parts.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{width - right}" '
                     f'y2="{y:.1f}"/><text class="axis" x="{left - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{tick}</text>')
    path = [f"M{xs[0]:.1f},{y_of(points[0].remaining):.1f}"]
    for index in range(1, len(points)):
        path.append(f"H{xs[index]:.1f}V{y_of(points[index].remaining):.1f}")
    if len(points) == 1:
        path.append(f"H{left + plot_w:.1f}")
    parts.append(f'<path class="line" d="{"".join(path)}"/>')
    for index, point in enumerate(points):
        if point.rise or (point.kind == "scan" and index == 0):
            cls = "step" if point.rise else "start"
            title = escape(f"{point.label} at {point.time}: {point.remaining} remaining")
            parts.append(f'<circle class="{cls}" cx="{xs[index]:.1f}" '
                         f'cy="{y_of(point.remaining):.1f}" r="4"><title>{title}</title></circle>')
    last = points[-1]
    parts.append(f'<circle class="end" cx="{xs[-1]:.1f}" cy="{y_of(last.remaining):.1f}" r="4">'
                 f'<title>{last.remaining} remaining now</title></circle>')
    parts.append(f'<text class="axis" x="{left}" y="{height - 8}">{escape(points[0].time)}</text>')
    parts.append(f'<text class="axis" x="{width - right}" y="{height - 8}" text-anchor="end">'
                 f'{escape(last.time)}</text></svg>')
    return "".join(parts)


_CSS = """
:root{--bg:#fff;--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--card:#f6f8fa;
--PASS:#1a7f37;--TODO:#0969da;--REVIEW:#9a6700;--DONE:#8250df;--RETIRED:#8c959f}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;
background:var(--bg);color:var(--fg)}main{max-width:1100px;margin:0 auto;padding:20px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}.muted{color:var(--muted)}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}.card{background:var(--card);
border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:96px}
.card b{display:block;font-size:22px}.card span{color:var(--muted);font-size:12px}
.bar{height:12px;background:var(--line);border-radius:6px;overflow:hidden}
.bar div{height:100%;background:var(--PASS)}
svg{width:100%;height:auto;background:var(--card);border:1px solid var(--line);border-radius:8px}
svg .line{fill:none;stroke:var(--TODO);stroke-width:2.5}svg .grid{stroke:var(--line)}
svg .axis{fill:var(--muted);font-size:11px}svg .step{fill:var(--REVIEW)}
svg .start,svg .end{fill:var(--TODO)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;
border-bottom:1px solid var(--line);vertical-align:top}th{background:var(--card)}
td.n{text-align:right;font-variant-numeric:tabular-nums}tr.file td{background:var(--card);
font-weight:600}code{font:12px ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.state{font-weight:700}.s-PASS{color:var(--PASS)}.s-TODO{color:var(--TODO)}
.s-REVIEW{color:var(--REVIEW)}.s-DONE{color:var(--DONE)}.s-RETIRED{color:var(--RETIRED)}
.facts{font-size:12px;color:var(--muted)}.controls{display:flex;gap:8px;flex-wrap:wrap;
margin:8px 0}.controls button{border:1px solid var(--line);background:var(--card);
border-radius:6px;padding:3px 10px;cursor:pointer}.controls button[aria-pressed=true]{
background:var(--fg);color:var(--bg)}input[type=search]{padding:3px 8px;min-width:240px}
"""

_JS = """
(function () {
  'use strict';
  var rows = Array.prototype.slice.call(document.querySelectorAll('#quests tr.quest'));
  var heads = Array.prototype.slice.call(document.querySelectorAll('#quests tr.file'));
  var buttons = Array.prototype.slice.call(document.querySelectorAll('#filters button'));
  var search = document.getElementById('search');
  var state = '';
  function apply() {
    var text = search.value.toLowerCase();
    var shown = {};
    rows.forEach(function (row) {
      var ok = (!state || row.getAttribute('data-state') === state) &&
               (!text || row.getAttribute('data-id').toLowerCase().indexOf(text) >= 0);
      row.hidden = !ok;
      if (ok) { shown[row.getAttribute('data-file')] = true; }
    });
    heads.forEach(function (head) { head.hidden = !shown[head.getAttribute('data-file')]; });
    document.getElementById('shown').textContent = String(rows.filter(function (r) {
      return !r.hidden; }).length);
  }
  buttons.forEach(function (button) {
    button.addEventListener('click', function () {
      state = button.getAttribute('data-filter');
      buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b === button)); });
      apply();
    });
  });
  search.addEventListener('input', apply);
  apply();
  document.body.setAttribute('data-ready', '1');
})();
"""

_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'")


def _facts_html(facts: list[dict[str, Any]], limit: int = 3) -> str:
    lines = [
        f"[{f.get('rule', '')}] {f.get('where', '')}: expected {f.get('expected', '')}; "
        f"actual {f.get('actual', '')}"
        for f in facts[:limit]
    ]
    if len(facts) > limit:
        lines.append(f"… and {len(facts) - limit} more")
    return "<br>".join(escape(line) for line in lines)


def _locked(quest: dict[str, Any]) -> str:
    """`` (baseline)`` / `` (review)`` after PASS: a baseline lock is no gate PASS."""
    who = quest.get("locked_by")
    return f' <small class="locked-by">({escape(who)})</small>' if who in (
        "baseline", "review") else ""


def _note(quest: dict[str, Any]) -> str:
    decision = quest.get("decision") or {}
    if not decision.get("note"):
        return ""
    text = f"{decision.get('action', '')} by {decision.get('by', '')}: {decision['note']}"
    return f'<br><span class="note">reviewer: {escape(text)}</span>'


def render(data: dict[str, Any], points: list[Point], title: str, generated: str) -> str:
    """The page for a :func:`~pytest_quest.export.summary` document and a burn-down series."""
    counts: dict[str, int] = data["counts"]
    total, remaining = data["total"], data["remaining"]
    passed = counts.get(State.PASS.value, 0)
    share = 0.0 if total == 0 else 100.0 * passed / total
    out: list[str] = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body><main>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="muted">Generated {escape(generated)} by pytest-quest. PASS is locked; '
        "remaining counts TODO quests.</p>",
        '<div class="cards">',
        f'<div class="card"><b id="total" data-count="total">{total}</b><span>quests</span></div>',
        f'<div class="card"><b id="remaining" data-count="remaining">{remaining}</b>'
        "<span>remaining</span></div>",
    ]
    for state in State:
        out.append(f'<div class="card"><b class="s-{state.value}" data-count="{state.value}">'
                   f"{counts.get(state.value, 0)}</b><span>{state.value}</span></div>")
    out.append("</div>")
    out.append(f'<div class="bar" title="{passed} of {total} PASS"><div id="progress" '
               f'style="width:{share:.1f}%"></div></div><p class="muted">{passed} of {total} '
               f"quests PASS ({share:.1f}%).</p>")
    if passed and data.get("locked_by"):
        by = data["locked_by"]
        out.append(f'<p class="muted" id="locked-by">PASS locked by the gate {by["gate"]}, by '
                   f'the existing suite (baseline, no quest test judged) {by["baseline"]}, by a '
                   f'reviewer {by["review"]}.</p>')
    out.append("<h2>Burn-down</h2>")
    out.append(svg_chart(points))
    rises = [p for p in points if p.rise]
    note = ("Remaining quests after every scan, submission and review. "
            "It only goes down; ")
    note += (f"the {len(rises)} marked step(s) up are rescans that found new functions or "
             "reviews that sent a quest back." if rises else "no rescan has added functions.")
    out.append(f'<p class="muted">{escape(note)}</p>')

    quests: list[dict[str, Any]] = data["quests"]
    by_id = {q["id"]: q for q in quests}
    if data["review"]:
        out.append(f'<h2>Review queue (<span id="review-count">{len(data["review"])}</span>)</h2>'
                   '<table id="review"><tr><th>Quest</th><th>Reason</th></tr>')
        for quest_id in data["review"]:
            quest = by_id[quest_id]
            out.append(f"<tr><td><code>{escape(quest_id)}</code></td>"
                       f'<td class="facts">{_facts_html(quest["facts"])}</td></tr>')
        out.append("</table>")

    out.append('<h2>Files</h2><table id="files"><tr><th>File</th><th>Quests</th><th>PASS</th>'
               "<th>TODO (tries used)</th><th>REVIEW</th><th>DONE</th></tr>")
    for row in data["files"]:
        out.append(
            f'<tr><td><code>{escape(row["path"])}</code></td><td class="n">{row["quests"]}</td>'
            f'<td class="n">{row["PASS"]}</td><td class="n">{row["TODO"]} ({row["tries"]})</td>'
            f'<td class="n">{row["REVIEW"]}</td><td class="n">{row["DONE"]}</td></tr>'
        )
    out.append("</table>")

    out.append('<h2>Quests (<span id="shown">' + str(len(quests)) + "</span> shown)</h2>"
               '<div class="controls" id="filters"><button data-filter="" aria-pressed="true">'
               "all</button>")
    for state in State:
        out.append(f'<button data-filter="{state.value}" aria-pressed="false">'
                   f"{state.value}</button>")
    out.append('<input type="search" id="search" placeholder="filter by quest id" '
               'aria-label="filter by quest id"></div>')
    out.append('<table id="quests"><tr><th>Quest</th><th>State</th><th>Tries</th>'
               "<th>Coverage</th><th>Last facts</th></tr>")
    current = None
    for quest in quests:
        path = escape(quest["path"])
        if quest["path"] != current:
            current = quest["path"]
            out.append(f'<tr class="file" data-file="{path}"><td colspan="5"><code>{path}</code>'
                       "</td></tr>")
        state = quest["state"]
        out.append(
            f'<tr class="quest" data-id="{escape(quest["id"])}" data-state="{state}" '
            f'data-file="{path}"><td><code>{escape(quest["qualname"])}</code></td>'
            f'<td class="state s-{state}">{state}{_locked(quest)}</td>'
            f'<td class="n">{quest["tries"]}</td><td>{escape(quest["coverage"])}</td>'
            f'<td class="facts">{_facts_html(quest["facts"])}{_note(quest)}</td></tr>'
        )
    out.append("</table>")
    if not quests:
        out.append('<p class="muted" id="empty">No quests yet: run <code>pytest-quest scan'
                   "</code>.</p>")
    out.append(f"</main><script>{_JS}</script></body></html>\n")
    return "".join(out)


def render_ledger(ledger: Ledger, title: str | None = None, now: str | None = None) -> str:
    """The page for ``ledger``: its summary, its scans and its attempts log."""
    now = now or now_iso()
    points = burndown(ledger.scans, read_attempts(ledger), ledger.remaining, now)
    name = title or f"pytest-quest report: {ledger.root.name}"
    return render(annotate(summary(ledger), ledger), points, name, now)
