"""`pipeline report`: one self-contained HTML file answering the four questions of a run.

The page holds, for the chosen runs (default: the latest finished run of each problem):
the runs themselves, the verdict matrix (problem x solver), the comparison of each run with the
previous finished run of its problem, a log-log chart of wall time against size per problem with
each solver's fitted growth exponent, the slowest cases and the mismatching cases.

It works offline: CSS is inline, charts are inline SVG drawn here, there is no script and no
font or image to fetch, and a Content-Security-Policy forbids fetching anything. The file is
written atomically (temporary file, then rename).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from html import escape
from pathlib import Path

import polars as pl

from pipeline.errors import UnknownName
from pipeline.fsutil import atomic_write_text
from pipeline.problems import get_problem
from pipeline.report import load
from pipeline.report.compare import Comparison, FindingKind, compare_runs
from pipeline.report.growth import growth_series
from pipeline.report.matrix import verdict_matrix
from pipeline.report.mismatches import ANSWER_CHARS, Mismatch, cut, find_mismatches
from pipeline.report.slow import SlowCase, format_fraction, format_ms, slow_cases
from pipeline.report.svg import color, loglog_chart
from pipeline.tables.results import read_runs
from pipeline.tables.runs import previous_run, resolve_runs, run_rows

SLOW_ROWS = 25
MISMATCH_ROWS = 100
EXAMPLES = 10

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330;
       margin: 0 auto; max-width: 1180px; padding: 16px 24px 48px; background: #fff; }
h1 { font-size: 22px; margin: 8px 0 2px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #dde1e6; }
h3 { font-size: 15px; margin: 20px 0 6px; }
nav a { margin-right: 14px; }
.meta { color: #5b6475; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border: 1px solid #dde1e6; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f5f8; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; }
code, pre { font: 12px/1.35 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: #f6f8fa; border: 1px solid #e4e7eb; padding: 6px 8px; margin: 4px 0;
      white-space: pre-wrap; word-break: break-all; max-height: 220px; overflow: auto; }
.v { display: inline-block; padding: 0 5px; margin: 1px 2px; border-radius: 3px; font-size: 12px;
     white-space: nowrap; background: #eef0f3; color: #3b4252; }
.v-AC { background: #dcf5e3; color: #135c2b; }
.v-WA { background: #fde2e1; color: #8f1020; }
.v-TLE { background: #fff1c2; color: #7a5200; }
.v-MLE { background: #ffe4c7; color: #7a3a00; }
.v-RE { background: #f0e0fa; color: #5b1a80; }
.v-OLE { background: #fde0f0; color: #7d1450; }
.v-SKIP { background: #f1f2f4; color: #7b8190; }
.ok { color: #135c2b; font-weight: 600; }
.bad { color: #8f1020; font-weight: 600; }
.note { color: #5b6475; }
.mismatch { border: 1px solid #dde1e6; border-radius: 4px; padding: 8px 12px; margin: 10px 0; }
.group-expected { border-left: 4px solid #135c2b; padding-left: 8px; margin: 4px 0; }
.group-other { border-left: 4px solid #8f1020; padding-left: 8px; margin: 4px 0; }
.chart-title { font-size: 14px; font-weight: 600; fill: #1d2330; }
.axis { font-size: 11px; fill: #5b6475; }
.axis-label { font-size: 12px; fill: #3b4252; }
.legend { font-size: 12px; fill: #1d2330; }
figure { margin: 8px 0 20px; }
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def default_report_path(data_dir: Path, when: datetime | None = None) -> Path:
    stamp = (when or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    return Path(data_dir) / "reports" / f"report-{stamp}.html"


def write_report(data_dir: Path, run_ids: Sequence[str] | None = None,
                 out: Path | None = None, rule: dict[str, float] | None = None) -> Path:
    """Write the report for `run_ids` (default: the latest finished run of each problem) to
    `out` (default `DATA/reports/report-<timestamp>.html`), atomically; returns the path.
    `rule` overrides the slowdown thresholds of the comparisons (`compare_runs` arguments)."""
    path = Path(out) if out is not None else default_report_path(data_dir)
    atomic_write_text(path, render_report(data_dir, run_ids, rule))
    return path


def render_report(data_dir: Path, run_ids: Sequence[str] | None = None,
                  rule: dict[str, float] | None = None) -> str:
    """The report's HTML text."""
    runs = resolve_runs(data_dir, run_ids)
    if not runs:
        raise ValueError(f"no finished runs in {data_dir}: run `pipeline run` first")
    rows = run_rows(data_dir, runs)
    results = load.collapsed_results(data_dir, runs)
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    comparisons = _comparisons(data_dir, runs, rule or {})
    body = [
        f"<h1>gamebench report</h1><p class=\"meta\">generated {generated} &middot; "
        f"{len(runs)} run{'s' if len(runs) != 1 else ''} &middot; data folder "
        f"<code>{escape(str(data_dir))}</code></p>",
        '<nav><a href="#runs">runs</a><a href="#verdicts">verdicts</a>'
        '<a href="#compare">comparison</a><a href="#growth">growth</a>'
        '<a href="#slow">slowest cases</a><a href="#mismatches">mismatches</a></nav>',
        _runs_section(runs, rows),
        _verdict_section(results),
        _compare_section(comparisons, data_dir),
        _growth_section(runs, rows, results, solver_colors(results)),
        _slow_section(slow_cases(data_dir, run_ids=runs, top=SLOW_ROWS)),
        _mismatch_section(find_mismatches(data_dir, run_ids=runs)),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>gamebench report</title>"
            f"<style>{CSS}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")


def _comparisons(data_dir: Path, runs: Sequence[str],
                 rule: dict[str, float]) -> list[tuple[str, Comparison | None]]:
    found = []
    for run_id in runs:
        base = previous_run(data_dir, run_id)
        found.append((run_id, compare_runs(data_dir, base, run_id, **rule) if base else None))
    return found


def _remeasure_note(data_dir: Path, c: Comparison) -> tuple[bool, str] | None:
    """(slowdowns confirmed?, sentence) when the nightly re-measured this comparison's flagged
    slowdowns (a run with status `remeasure` of the same problem, started after NEW)."""
    if not any(f.fails and f.kind is FindingKind.SLOWDOWN for f in c.findings):
        return None
    runs = read_runs(data_dir)
    new = runs.filter(pl.col("run_id") == c.new_run)
    if runs.is_empty() or new.is_empty():
        return None
    later = runs.filter((pl.col("status") == "remeasure") & (pl.col("problem") == c.problem)
                        & (pl.col("started_at") > new["started_at"][0])).sort("started_at")
    if later.is_empty():
        return None
    remeasure = later["run_id"][0]
    again = compare_runs(data_dir, c.base_run, remeasure, timing="min",
                         ratio_threshold=c.ratio_threshold, min_diff_ms=c.min_diff_ms)
    confirmed = any(f.fails and f.kind is FindingKind.SLOWDOWN for f in again.findings)
    return confirmed, (f"flagged slowdowns re-measured in run {remeasure} (fastest of "
                       f"{later['repeat'][0]} runs each): "
                       f"{'confirmed' if confirmed else 'not confirmed, timing noise'}")


def _badge(verdict: str, count: int | None = None) -> str:
    text = verdict if count is None else f"{verdict} {count}"
    return f'<span class="v v-{escape(verdict)}">{escape(text)}</span>'


def _runs_section(runs: Sequence[str], rows: dict[str, dict]) -> str:
    out = ['<h2 id="runs">Runs</h2><div class="scroll"><table><tr><th>run</th><th>problem</th>'
           '<th>status</th><th>started (UTC)</th><th>host</th><th>CPU</th><th>git</th>'
           '<th>cases</th><th>repeat</th><th>solvers</th></tr>']
    for run_id in runs:
        row = rows.get(run_id, {})
        started = row.get("started_at")
        out.append(
            f"<tr><td><code>{escape(run_id)}</code></td><td>{escape(row.get('problem') or '?')}"
            f"</td><td>{escape(row.get('status') or '?')}</td>"
            f"<td>{escape(started.strftime('%Y-%m-%d %H:%M:%S') if started else '-')}</td>"
            f"<td>{escape(row.get('host') or '-')}</td><td>{escape(row.get('cpu_model') or '-')}"
            f"</td><td><code>{escape((row.get('git_rev') or '-')[:10])}</code></td>"
            f"<td class=\"num\">{row.get('cases') if row.get('cases') is not None else '-'}</td>"
            f"<td class=\"num\">{row.get('repeat') or 1}</td>"
            f"<td>{escape(', '.join(row.get('solvers') or []))}</td></tr>")
    out.append("</table></div>")
    return "\n".join(out)


def _verdict_section(results: pl.DataFrame) -> str:
    matrix = verdict_matrix(results)
    out = ['<h2 id="verdicts">Verdicts (cases per verdict, problem &times; solver)</h2>',
           '<div class="scroll"><table class="verdict-matrix"><tr><th>problem</th>']
    out += [f"<th>{escape(s)}</th>" for s in matrix.solvers]
    out.append("</tr>")
    for problem in matrix.problems:
        cells = []
        for solver in matrix.solvers:
            counts = matrix.cell(problem, solver)
            cells.append("<td>" + "".join(_badge(v, n) for v, n in counts.items()) + "</td>")
        out.append(f"<tr><th>{escape(problem)}</th>{''.join(cells)}</tr>")
    out.append("</table></div>")
    return "\n".join(out)


def _compare_section(comparisons: list[tuple[str, Comparison | None]],
                     data_dir: Path | None = None) -> str:
    out = ['<h2 id="compare">Comparison with the previous run</h2>']
    for run_id, c in comparisons:
        if c is None:
            out.append(f"<p class=\"note\">run <code>{escape(run_id)}</code>: no earlier finished "
                       "run of its problem to compare with.</p>")
            continue
        remeasured = _remeasure_note(data_dir, c) if data_dir is not None else None
        failed = c.failed and not (remeasured and not remeasured[0] and all(
            f.kind is FindingKind.SLOWDOWN for f in c.findings if f.fails))
        status = ('<span class="bad">FAILED</span>' if failed
                  else '<span class="ok">OK</span>')
        out.append(f"<h3>{escape(c.problem)}: <code>{escape(c.base_run)}</code> &rarr; "
                   f"<code>{escape(c.new_run)}</code> {status}</h3>")
        out.append(f"<p class=\"meta\">slowdown rule: NEW/BASE &gt; {c.ratio_threshold:g} and "
                   f"NEW &minus; BASE &gt; {c.min_diff_ms:g} ms (median CPU time over repeats). "
                   f"Hosts: {escape(c.base_host or 'unknown')} &rarr; "
                   f"{escape(c.new_host or 'unknown')}.</p>")
        if remeasured:
            out.append(f'<p class="{"bad" if remeasured[0] else "ok"}">'
                       f'{escape(remeasured[1])}</p>')
        if c.reasons:
            out.append("<ul>" + "".join(f'<li class="bad">{escape(r)}</li>' for r in c.reasons)
                       + "</ul>")
        if c.notes:
            out.append("<ul>" + "".join(f'<li class="note">{escape(n)}</li>' for n in c.notes)
                       + "</ul>")
        out.append('<div class="scroll"><table class="comparison"><tr><th>solver</th>'
                   '<th>verdict changes (BASE&rarr;NEW: cases)</th><th>new failures</th>'
                   '<th>changed answers</th><th>timed cases</th><th>geo. mean NEW/BASE</th>'
                   '<th>slowdowns</th></tr>')
        for s in c.solvers:
            changes = [f"{escape(b)}&rarr;{escape(a)}: {n}" for b, a, n in s.transitions
                       if b != a]
            same = sum(n for b, a, n in s.transitions if b == a)
            summary = ", ".join(changes) or "none"
            geo = f"{s.geomean_ratio:.2f}&times;" if s.geomean_ratio is not None else "-"
            name = escape(s.solver) + (' <span class="note">(known wrong)</span>'
                                       if s.known_wrong else "")
            out.append(f"<tr><td>{name}</td><td>{summary} <span class=\"note\">({same} "
                       f"unchanged)</span></td><td class=\"num\">{len(s.new_failures)}</td>"
                       f"<td class=\"num\">{len(s.changed_answers)}</td>"
                       f"<td class=\"num\">{s.timed_cases}</td><td class=\"num\">{geo}</td>"
                       f"<td class=\"num\">{len(s.slowdowns)}</td></tr>")
        out.append("</table></div>")
        details = []
        for s in c.solvers:
            for t in s.slowdowns[:EXAMPLES]:
                details.append(f"<li>{escape(s.solver)}: case <code>{escape(t.case_id[:12])}"
                               f"</code> (size {t.size}) {t.base_ms:.1f} &rarr; {t.new_ms:.1f} ms"
                               f" ({t.ratio:.2f}&times;)</li>")
            for a in s.changed_answers[:EXAMPLES]:
                details.append(f"<li>{escape(s.solver)}: case <code>{escape(a.case_id[:12])}"
                               f"</code> (size {a.size}) answer <code>"
                               f"{escape(cut(a.base_answer, 80, 2))}</code> &rarr; <code>"
                               f"{escape(cut(a.new_answer, 80, 2))}</code></li>")
        if details:
            out.append("<details><summary>examples</summary><ul>" + "".join(details)
                       + "</ul></details>")
    return "\n".join(out)


def solver_colors(results: pl.DataFrame) -> dict[str, str]:
    """One colour per solver name across the whole report (in verdict-matrix order)."""
    return {name: color(i) for i, name in enumerate(verdict_matrix(results).solvers)}


def _growth_section(runs: Sequence[str], rows: dict[str, dict], results: pl.DataFrame,
                    colors: dict[str, str]) -> str:
    out = ['<h2 id="growth">Time against size (log-log)</h2>',
           '<p class="meta">One point per case (median wall time over repeats; SKIP left out); '
           "each line is the least-squares fit on log-log, its slope the growth exponent.</p>"]
    for index, run_id in enumerate(runs):
        part = results.filter(pl.col("run_id") == run_id)
        problem_id = rows.get(run_id, {}).get("problem") or (
            part["problem"][0] if part.height else "?")
        try:
            measure = get_problem(problem_id).size_measure
        except UnknownName:
            measure = "size"
        series = growth_series(part)
        title = f"{problem_id} (run {run_id})"
        chart = loglog_chart(series, title, measure, chart_id=f"growth-{index}",
                             colors=colors)
        fits = "".join(
            f"<tr><td>{escape(s.solver)}</td><td class=\"num\">{len(s.points)}</td>"
            f"<td class=\"num\">{'n^%.2f' % s.fit.exponent if s.fit else '-'}</td></tr>"
            for s in series)
        out.append(f'<figure class="growth" data-problem="{escape(problem_id)}">{chart}'
                   f"<figcaption><table><tr><th>solver</th><th>points</th>"
                   f"<th>growth</th></tr>{fits}</table></figcaption></figure>")
    return "\n".join(out)


def _slow_section(rows: Sequence[SlowCase]) -> str:
    out = [f'<h2 id="slow">Slowest cases (top {SLOW_ROWS})</h2>']
    if not rows:
        return out[0] + '<p class="note">no timed results.</p>'
    out.append('<div class="scroll"><table class="slow"><tr><th>problem</th><th>solver</th>'
               '<th>verdict</th><th>size</th><th>wall ms</th><th>cpu ms</th>'
               '<th>of time limit</th><th>case</th><th>source</th></tr>')
    for r in rows:
        fraction = format_fraction(r.fraction)
        out.append(f"<tr><td>{escape(r.problem)}</td><td>{escape(r.solver)}</td>"
                   f"<td>{_badge(r.verdict)}</td><td class=\"num\">{r.size}</td>"
                   f"<td class=\"num\">{format_ms(r.wall_ms)}</td>"
                   f"<td class=\"num\">{format_ms(r.cpu_ms)}</td>"
                   f"<td class=\"num\">{fraction}</td><td><code>{escape(r.case_id[:12])}</code>"
                   f"</td><td>{escape(r.source or '(not in cases)')}</td></tr>")
    out.append("</table></div>")
    return "\n".join(out)


def _mismatch_section(items: Sequence[Mismatch]) -> str:
    out = [f'<h2 id="mismatches">Mismatches ({len(items)}, smallest first)</h2>']
    if not items:
        return out[0] + '<p class="ok">every answered case agrees.</p>'
    for m in items[:MISMATCH_ROWS]:
        wrong = set(m.known_wrong)
        out.append(f'<div class="mismatch"><b>{escape(m.problem)}</b> case '
                   f'<code>{escape(m.case_id[:12])}</code> size {m.size} &middot; '
                   f'{escape(m.source or "(not in cases)")} &middot; run '
                   f'<code>{escape(m.run_id)}</code><pre>{escape(cut(m.input))}</pre>')
        for g in m.groups:
            kind = "group-expected" if g.is_expected else "group-other"
            label = (f"expected ({escape(m.expected_source or 'file')})" if g.is_expected
                     else "answer")
            stages = ", ".join(escape(s) + (" (known wrong)" if s in wrong else "")
                               for s in g.stages) or "no stage"
            diff = f' <span class="note">[{escape(g.difference)}]</span>' if g.difference else ""
            out.append(f'<div class="{kind}">{label} &larr; {stages}{diff}'
                       f"<pre>{escape(cut(g.answer, ANSWER_CHARS, 6))}</pre></div>")
        out.append("</div>")
    if len(items) > MISMATCH_ROWS:
        out.append(f'<p class="note">{len(items) - MISMATCH_ROWS} more not shown '
                   "(`pipeline mismatches` lists them all).</p>")
    return "\n".join(out)
