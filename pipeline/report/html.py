"""`pipeline report`: one self-contained HTML file of the chosen runs (docs/commands.md). It
works offline (inline CSS and SVG, no script, a Content-Security-Policy that fetches nothing)
and is written atomically.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from urllib.parse import quote

import polars as pl

from pipeline.errors import UserError
from pipeline.fsutil import atomic_write_text
from pipeline.problems.model import raw_input_file
from pipeline.report import growth, load
from pipeline.report.compare import (
    Comparison,
    FindingKind,
    SlowdownRule,
    choose_baseline,
    compare_runs,
)
from pipeline.report.history import HISTORY_NIGHTS, NIGHTLY_COMMAND, nightly_history
from pipeline.report.load import known_wrong, must_fail, registered
from pipeline.report.mismatches import (
    ANSWER_CHARS,
    Mismatch,
    by_problem,
    cut,
    find_mismatches,
    one_line,
    plural,
    size_measure,
    where,
)
from pipeline.report.slow import SlowCase, format_fraction, format_ms, slow_cases
from pipeline.report.strength import UNKNOWN_BOUND, measure_strength, stored_coverage
from pipeline.report.svg import color, history_chart, loglog_chart
from pipeline.tables.results import latest_run_per_solver, read_runs, resolve_runs, run_rows
from pipeline.untrusted import printable
from pipeline.verdicts import FAILURES, display_rank, names

SLOW_ROWS = 10               # per problem
MISMATCH_ROWS = 20           # findings shown in full per problem
EXAMPLES = 10
WIDE_SOLVERS = 8            # a problem's verdict table has a column per solver up to this


def verdict_matrix(results: pl.DataFrame) -> dict[tuple[str, str], dict[str, int]]:
    """(problem, solver) -> cases per verdict, in display order, from collapsed results
    (columns `problem`, `solver`, `verdict`: a case's repeats folded into its worst verdict)."""
    cells: dict[tuple[str, str], dict[str, int]] = {}
    counts = results.group_by("problem", "solver", "verdict", maintain_order=True).len()
    for problem, solver, verdict, n in counts.iter_rows():
        cells.setdefault((problem, solver), {})[verdict] = n
    return {key: {v: cell[v] for v in sorted(cell, key=display_rank)}
            for key, cell in cells.items()}


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
.scroll { overflow-x: auto; max-width: 100%; }
table.verdict-matrix { table-layout: fixed; width: 100%; }
table.verdict-matrix th, table.verdict-matrix td { overflow-wrap: anywhere; }
table.verdict-matrix th.problem { width: 9em; }
table.verdict-list { table-layout: auto; }
table.verdict-list td.solver { width: 40%; }
table.verdict-list tr.summary th, table.submissions tr.summary th { background: #e8ecf2; }
.tag { font-weight: normal; font-size: 11px; color: #8f1020; }
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
.legend-note { font-size: 11px; fill: #5b6475; }
.failures-bad { font-size: 11px; fill: #8f1020; font-weight: 600; }
.failures-none { font-size: 11px; fill: #9aa1ad; }
figure { margin: 8px 0 20px; }
footer { margin-top: 40px; padding-top: 8px; border-top: 1px solid #dde1e6; color: #5b6475; }
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
NAVIGATION = (("runs", "runs"), ("verdicts", "verdicts"), ("strength", "test strength"),
              ("submissions", "submissions"), ("compare", "comparison"), ("growth", "growth"),
              ("history", "history"), ("slow", "slowest cases"), ("mismatches", "mismatches"))


def write_report(data_dir: Path, run_ids: Sequence[str] | None = None,
                 out: Path | None = None, rule: SlowdownRule | None = None,
                 baselines: dict[str, str | None] | None = None) -> Path:
    """Write the report for `run_ids` (default: each solver's newest run per problem) to
    `out`, atomically; returns the path. `rule` overrides the slowdown thresholds;
    `baselines` gives a run's baseline (None: none), as the nightly chose it."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = Path(out) if out is not None else Path(data_dir) / "reports" / f"report-{stamp}.html"
    atomic_write_text(path, render_report(data_dir, run_ids, rule, baselines, path.parent))
    return path


def render_report(data_dir: Path, run_ids: Sequence[str] | None = None,
                  rule: SlowdownRule | None = None,
                  baselines: dict[str, str | None] | None = None,
                  report_dir: Path | None = None) -> str:
    """The report's HTML text; `report_dir` is the folder it is written to (default
    `DATA/reports`): links to case inputs are relative to it."""
    latest = resolve_runs(data_dir, run_ids)
    if not latest:
        raise UserError(f"no finished runs in {Path(data_dir).resolve()}: run "
                        "'pipeline run' first")
    shown = None if run_ids else dict(latest_run_per_solver(data_dir))
    runs = list(shown) if shown is not None else latest
    rows = run_rows(data_dir, runs)
    results = load.collapsed_results(data_dir, runs)
    if shown is not None:
        pairs = pl.DataFrame([(r, s) for r, solvers in shown.items() for s in solvers],
                             schema={"run_id": pl.String(), "solver": pl.String()},
                             orient="row")
        results = results.join(pairs, on=["run_id", "solver"], how="semi",
                               maintain_order="left")
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    comparisons = _comparisons(data_dir, latest, rule or {}, baselines)
    held = held_expectations(data_dir, runs, newest_first=shown is not None)
    # one colour per solver across the whole report (in verdict-matrix order)
    colors = {name: color(i) for i, name in enumerate(dict.fromkeys(results["solver"].to_list()))}
    problems = sorted(p for p in {rows.get(r, {}).get("problem") for r in runs} if p)
    body = [
        f"<h1>gamebench report</h1><p class=\"meta\">generated {generated} &middot; "
        f"{plural(len(runs), 'run')} &middot; data folder "
        f"<code>{escape(printable(str(Path(data_dir).resolve())))}</code></p>",
        "<nav>" + "".join(f'<a href="#{to}">{label}</a>' for to, label in NAVIGATION) + "</nav>",
        _runs_section(runs, rows, shown),
        _verdict_section(results, {(r["problem"], r["submission"]): r["expected"]
                                   for r in held.iter_rows(named=True)}),
        _strength_section(data_dir, runs, rows, results),
        _submissions_section(data_dir, held, results, report_dir),
        _compare_section(comparisons, data_dir),
        _growth_section(runs, rows, results, colors),
        _history_section(data_dir, problems, colors),
        _slow_section(slow_cases(data_dir, run_ids=latest, top=SLOW_ROWS, per_problem=True)),
        _mismatch_section(find_mismatches(data_dir, run_ids=latest)),
        "<footer>Written by <code>pipeline report</code>; <code>pipeline mismatches --all"
        "</code>, <code>pipeline slow</code> and <code>pipeline compare</code> give the same "
        "answers on the console.</footer>",
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>gamebench report</title>"
            f"<style>{CSS}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")


def _comparisons(data_dir: Path, runs: Sequence[str], rule: SlowdownRule,
                 baselines: dict[str, str | None] | None
                 ) -> list[tuple[str, Comparison | None, str]]:
    """(run, its comparison or None, how its baseline was chosen) for every run."""
    found = []
    for run_id in runs:
        if baselines is not None and run_id in baselines:
            base = baselines[run_id]
            why = (f"baseline {base}: the previous nightly run" if base
                   else "the nightly had no earlier run to compare with")
            skipped: tuple[str, ...] = ()
        else:
            pair = choose_baseline(data_dir, run_id)
            base, why, skipped = pair.base, pair.why, pair.skipped
        why += "".join(f"; passed over {reason}" for reason in skipped)
        found.append((run_id, compare_runs(data_dir, base, run_id, **rule) if base else None,
                      why))
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


def _badges(counts: dict[str, int]) -> str:
    return "".join(_badge(v, n) for v, n in counts.items())


def _table(cls: str, heads: Sequence[str], rows: Iterable[str], problem: str | None = None,
           sep: str = "") -> str:
    """A scrolling table of class `cls`: a header row of `heads` (HTML), then `rows`, each
    after `sep`; `problem` is its `data-problem`."""
    data = "" if problem is None else f' data-problem="{escape(problem)}"'
    head = f'<div class="scroll"><table class="{cls}"{data}><tr>' + "".join(
        f"<th>{h}</th>" for h in heads) + "</tr>"
    return sep.join([head, *rows, "</table></div>"])


def _runs_section(runs: Sequence[str], rows: dict[str, dict],
                  shown: dict[str, tuple[str, ...]] | None = None) -> str:
    """The runs read; with `shown` (run -> its solvers whose newest result it holds), the
    solvers each run's results are shown for."""
    lines = []
    for run_id in runs:
        row = rows.get(run_id, {})
        started = row.get("started_at")
        lines.append(
            f"<tr><td><code>{escape(run_id)}</code></td><td>{escape(row.get('problem') or '?')}"
            f"</td><td>{escape(row.get('status') or '?')}</td>"
            f"<td>{escape(started.strftime('%Y-%m-%d %H:%M:%S') if started else '-')}</td>"
            f"<td>{escape(row.get('host') or '-')}</td><td>{escape(row.get('cpu_model') or '-')}"
            f"</td><td><code>{escape((row.get('git_rev') or '-')[:10])}</code></td>"
            f"<td class=\"num\">{row.get('cases') if row.get('cases') is not None else '-'}</td>"
            f"<td class=\"num\">{row.get('repeat') or 1}</td>"
            f"<td>{_solver_list(row.get('solvers') or [], shown, run_id)}</td></tr>")
    return ('<h2 id="runs">Runs</h2>'
            + ('<p class="meta">Each solver\'s newest result per problem: a run is read for the '
               "solvers no newer run of its problem holds.</p>" if shown is not None else "")
            + _table("runs", ("run", "problem", "status", "started (UTC)", "host", "CPU", "git",
                              "cases", "repeat", "solvers"), lines, sep="\n"))


def _solver_list(solvers: Sequence[str], shown: dict[str, tuple[str, ...]] | None,
                 run_id: str) -> str:
    """The run's solvers; those whose results are read from a newer run are struck out. More
    than `WIDE_SOLVERS` fold into a count that opens to the list."""
    if shown is None:
        listed = escape(", ".join(solvers))
    else:
        here = set(shown.get(run_id, ()))
        listed = ", ".join(escape(s) if s in here else
                           f'<s title="a newer run holds it">{escape(s)}</s>' for s in solvers)
    if len(solvers) <= WIDE_SOLVERS:
        return listed
    return f"<details><summary>{len(solvers)} solvers</summary>{listed}</details>"


def _role_tag(problem: str, solver: str) -> str:
    """"known wrong" for a solver that must fail somewhere; "may fail" (not a flaw) for a
    submission whose folder permits failing but also passing (`mixed/*`)."""
    if must_fail(problem, solver):
        return ' <span class="tag">known wrong</span>'
    if known_wrong(problem, solver):
        return ' <span class="note may-fail">may fail</span>'
    return ""


def _verdict_section(results: pl.DataFrame,
                     expected: dict[tuple[str, str], str] | None = None) -> str:
    """Per problem one table of its own solvers: a column each up to `WIDE_SOLVERS`, else a
    row each (so 100 submissions never squeeze a name into a letter per line), grouped by
    `expected` ((problem, solver) -> expected verdict)."""
    matrix = verdict_matrix(results)
    every = dict.fromkeys(results["solver"].to_list())  # every solver, in the results' order
    out = ['<h2 id="verdicts">Verdicts (cases per verdict)</h2>']
    for problem in sorted(set(results["problem"].to_list())):
        solvers = [s for s in every if (problem, s) in matrix]
        if len(solvers) > WIDE_SOLVERS:
            out.append(_verdict_list(matrix, problem, solvers, expected or {}))
            continue
        heads = "".join(f"<th>{escape(s)}{_role_tag(problem, s)}</th>" for s in solvers)
        cells = "".join(f"<td>{_badges(matrix[problem, s])}</td>" for s in solvers)
        out.append(f'<div class="scroll matrix-box"><table class="verdict-matrix" '
                   f'data-problem="{escape(problem)}"><tr><th class="problem">problem</th>'
                   f'{heads}</tr><tr><th class="problem">{escape(problem)}</th>{cells}</tr>'
                   "</table></div>")
    return "\n".join(out)


def _verdict_list(matrix, problem: str, solvers: Sequence[str],
                  expected: dict[tuple[str, str], str]) -> str:
    """One row per solver, grouped by expected verdict, a summary row heading each group."""
    groups: dict[str, list[str]] = {}
    for solver in solvers:
        groups.setdefault(expected.get((problem, solver), "-"), []).append(solver)
    rows = []
    for label in sorted(groups, key=lambda g: (g not in ("accepted", "main"), g == "-", g)):
        members = groups[label]
        name = "no expectation" if label == "-" else f"expected {label}"
        rows.append(f'<tr class="summary" data-expected="{escape(label)}"><th>{escape(name)}: '
                    f"{plural(len(members), 'solver')}</th>"
                    f"<th>{_summed_badges(matrix, problem, members)}</th></tr>")
        rows += [f'<tr><td class="solver">{escape(s)}{_role_tag(problem, s)}</td><td>'
                 f"{_badges(matrix[problem, s])}</td></tr>" for s in members]
    return (f'<div class="scroll matrix-box"><table class="verdict-matrix verdict-list" '
            f'data-problem="{escape(problem)}"><tr><th class="problem">{escape(problem)}</th>'
            "<th>cases per verdict</th></tr>" + "".join(rows) + "</table></div>")


def _summed_badges(matrix, problem: str, solvers: Sequence[str]) -> str:
    """The cases per verdict of `solvers` together, as badges."""
    total = sum((Counter(matrix.get((problem, s), {})) for s in solvers), Counter())
    return _badges({v: total[v] for v in sorted(total, key=display_rank)})


def _strength_section(data_dir: Path, runs: Sequence[str], rows: dict[str, dict],
                      results: pl.DataFrame) -> str:
    """Per run: which wrong programs its cases kill, the smallest set that kills them all
    (`pipeline strength`), and which input bounds the cases reach (constraint coverage)."""
    out = ['<h2 id="strength">Test strength</h2>']
    for run_id in runs:
        problem = rows.get(run_id, {}).get("problem")
        if problem is None:
            continue
        strength = measure_strength(problem, run_id, results, load.load_cases(data_dir,
                                                                                [problem]))
        registration = registered(problem)
        bounds = () if registration is None else stored_coverage(data_dir, registration)
        if not strength.programs and not bounds:
            continue
        lines = [f"<tr><td>{escape(p.solver)}</td><td>{escape(p.why)}</td><td>"
                 + ('<span class="tag">survives every case</span>' if p.survives else
                    f"killed by {plural(len(p.killed_by), 'case')}")
                 + "</td></tr>" for p in strength.programs]
        block = [f"<h3>{escape(problem)}</h3>"]
        if strength.programs:
            block.append(f"<p class=\"meta\">smallest set killing every killed wrong program: "
                         f"{len(strength.smallest_set)} of {strength.cases} cases "
                         f"({escape(strength.method)})</p>" + _table(
                             "strength", ("wrong program", "why wrong", "killed"), lines,
                             problem))
        if bounds:
            block.append(_table("coverage", (
                "bound", "allowed", "reached", "cases at low / high", "warning"), (
                f"<tr><td>{escape(b.name)}</td><td>"
                + (UNKNOWN_BOUND if b.low is None and b.high is None else
                   f"{_grouped(b.low)}..{_grouped(b.high)}") + "</td><td>"
                + ("-" if b.lowest is None else f"{_grouped(b.lowest)}..{_grouped(b.highest)}")
                + f"</td><td>{b.at_low} / {b.at_high}</td><td>"
                + (f'<span class="tag">no case at its {" or ".join(b.unreached)} end</span>'
                   if b.unreached else "") + "</td></tr>" for b in bounds)))
        out.append("".join(block))
    return "\n".join(out) if len(out) > 1 else ""


def _grouped(value: int | None) -> str:
    """An integer with its thousands grouped; "-" when unknown."""
    return "-" if value is None else f"{value:,}"


def held_expectations(data_dir: Path, runs: Sequence[str],
                      newest_first: bool = False) -> pl.DataFrame:
    """The `expectations` rows of the runs; with `newest_first` (the runs newest first within
    a problem) one per submission, from the first run that holds it."""
    from pipeline.tables.results import read_expectations

    held = read_expectations(data_dir).filter(pl.col("run_id").is_in(list(runs)))
    if newest_first:
        order = {run_id: index for index, run_id in enumerate(runs)}
        held = held.sort(pl.col("run_id").replace_strict(order, return_dtype=pl.Int64()),
                         maintain_order=True).unique(["problem", "submission"], keep="first",
                                                     maintain_order=True)
    return held


def _submissions_section(data_dir: Path, held: pl.DataFrame, results: pl.DataFrame,
                         report_dir: Path | None) -> str:
    """Per problem package: each submission of the `held_expectations` rows, what it is
    expected to get, what it got and whether the two agree."""
    report_dir = Path(report_dir or Path(data_dir) / "reports").resolve()
    if held.is_empty():
        return ""
    matrix = verdict_matrix(results)
    out = ['<h2 id="submissions">Submissions of problem packages</h2>',
           '<p class="meta">max CPU: the most CPU time one case took (median over repeats) as '
           "a share of the time limit; first failing case: the first by file path whose "
           "verdict is a failure, with the judge's message, linked to its input.</p>"]
    for problem in sorted(set(held["problem"].to_list())):
        rows = held.filter(pl.col("problem") == problem)
        limit = rows.row(0, named=True)
        cases = load.load_cases(data_dir, [problem]).select("case_id", "source")
        mine = results.filter(pl.col("problem") == problem).join(
            cases, on="case_id", how="left").sort("source", nulls_last=True)
        lines = []
        for group in rows.sort(pl.col("expected").is_in(["accepted", "main"]).not_(), "expected",
                               maintain_order=True).partition_by("expected", maintain_order=True):
            lines.append(_expected_summary(matrix, problem, group, mine))  # leads its group
            for row in group.iter_rows(named=True):
                runs_of = mine.filter((pl.col("run_id") == row["run_id"])
                                      & (pl.col("solver") == row["submission"]))
                cpu = _max_cpu(runs_of, row["time_limit_s"])
                first = _first_failure(data_dir, problem, runs_of, report_dir)
                agree = {"agree": "yes", "disagree": "NO"}.get(row["status"], row["status"])
                if row["status"] == "partial" and row["cases_held"] is not None:
                    agree = (f"not judged on {row['cases_held'] - (row['cases_judged'] or 0)} "
                             f"of {row['cases_held']} case(s)")
                why = escape(row["disagreements"] or "") + (
                    f" <span class=\"tag\">{escape(row['sensitive'])}</span>"
                    if row["sensitive"] else "")
                badges = _badges(matrix.get((problem, row["submission"]), {}))
                lines.append(f"<tr class=\"{escape(row['status'])}\"><td>"
                             f"{escape(row['submission'])}</td><td>{escape(row['expected'])}"
                             f"</td><td>{escape(row['got'])}</td><td>{badges}</td>"
                             f"<td class=\"num max-cpu\">{cpu}</td>"
                             f"<td class=\"first-failure\">{first}</td><td>{agree}</td>"
                             f"<td>{why}</td></tr>")
        out.append(f"<h3>{escape(problem)}</h3><p class=\"meta\">time limit "
                   f"{limit['time_limit_s']:g} s: {escape(limit['time_limit_how'] or '')}</p>"
                   + _table("submissions", ("submission", "expected", "got", "cases", "max CPU",
                                            "first failing case", "agree", "why not"),
                            lines, problem)
                   + _package_bugs(data_dir, problem, limit["run_id"]))
    return "\n".join(out)


def _package_bugs(data_dir: Path, problem: str, run_id: str) -> str:
    """The package's own bugs its run `run_id` showed (`package_bugs` table), a line each."""
    from pipeline.tables.results import read_package_bugs

    bugs = read_package_bugs(data_dir).filter((pl.col("run_id") == run_id)
                                              & (pl.col("problem") == problem))
    if bugs.is_empty():
        return ""
    items = "".join(f"<li><b>{escape(b['subject'])}</b>: {escape(b['message'])}</li>"
                    for b in bugs.iter_rows(named=True))
    return (f'<p class="meta">package bugs ({bugs.height}):</p>'
            f'<ul class="package-bugs" data-problem="{escape(problem)}">{items}</ul>')


def _expected_summary(matrix, problem: str, rows: pl.DataFrame, results: pl.DataFrame) -> str:
    """The summary row of the submissions expected to get one verdict: how many, how many
    agree, their cases per verdict and the most CPU time any took on a case."""
    label = rows["expected"][0]
    badges = _summed_badges(matrix, problem, rows["submission"].to_list())
    mine = results.join(rows.select("run_id", pl.col("submission").alias("solver")),
                        on=["run_id", "solver"], how="semi")
    agree = rows.filter(pl.col("status") == "agree").height
    count = rows.height
    return (f'<tr class="summary" data-expected="{escape(label)}"><th>'
            f"{plural(count, 'submission')}</th><th>{escape(label)}</th><th></th>"
            f"<th>{badges}</th><th class=\"num\">{_max_cpu(mine, rows['time_limit_s'][0])}"
            f"</th><th></th><th>{agree} of {count} agree</th><th></th></tr>")


def _max_cpu(results: pl.DataFrame, limit_s: float | None) -> str:
    """The most CPU time one case took, as a share of the time limit (and in ms)."""
    cpu = results["cpu_ms"].drop_nulls()
    if cpu.is_empty():
        return "-"
    most = float(cpu.max())  # type: ignore[arg-type]
    if not limit_s:
        return escape(format_ms(most))
    return (f'<span title="{escape(format_ms(most))} ms of {limit_s:g} s">'
            f"{escape(format_fraction(most / (limit_s * 1000.0)))}</span>")


def _first_failure(data_dir: Path, problem: str, results: pl.DataFrame,
                   report_dir: Path) -> str:
    """The first failing case (by file path): its verdict, its input's path linked to the
    file where the data folder keeps it, and the judge's message (or the error)."""
    failing = results.filter(pl.col("verdict").is_in(names(FAILURES)))
    if failing.is_empty():
        return ""
    row = failing.row(0, named=True)
    source = row["source"] or row["case_id"][:12]
    shown = escape(printable(source))
    if (found := _input_file(data_dir, problem, row["source"])) is not None:
        href = quote(os.path.relpath(found, report_dir))
        shown = f'<a class="input" href="{escape(href)}">{shown}</a>'
    message = "\n".join(printable(line) for line in
                        cut(row["message"] or row["error"] or "", 400, 6).split("\n"))
    return (f"{_badge(row['verdict'])} {shown}"
            + (f'<pre class="message">{escape(message)}</pre>' if message.strip() else ""))


def _input_file(data_dir: Path, problem: str, source: str | None) -> Path | None:
    """The input file of a case, where the data folder keeps it (its problem says where; a
    problem no longer registered, under raw/)."""
    if not source:
        return None
    held = registered(problem)
    return held.input_file(data_dir, source) if held is not None else \
        raw_input_file(data_dir, source)


def _compare_section(comparisons: list[tuple[str, Comparison | None, str]],
                     data_dir: Path) -> str:
    out = ['<h2 id="compare">Comparison with the baseline</h2>',
           '<p class="meta">A slowdown is <b>flagged</b> (it fails) when the solver is judged '
           "on speed and both runs ran on the same host, else <b>noted</b>.</p>"]
    for run_id, c, why in comparisons:
        if c is None:
            out.append(f"<p class=\"note\">run <code>{escape(run_id)}</code>: "
                       f"{escape(why)}.</p>")
            continue
        remeasured = _remeasure_note(data_dir, c)
        failed = c.failed and not (remeasured and not remeasured[0] and all(
            f.kind is FindingKind.SLOWDOWN for f in c.findings if f.fails))
        status = '<span class="bad">FAILED</span>' if failed else '<span class="ok">OK</span>'
        out.append(f"<h3>{escape(c.problem)}: <code>{escape(c.base_run)}</code> &rarr; "
                   f"<code>{escape(c.new_run)}</code> {status}</h3>")
        out.append(f'<p class="meta">{escape(why)}.</p>')
        out.append(f"<p class=\"meta\">slowdown rule: NEW/BASE &gt; {c.ratio_threshold:g} and "
                   f"NEW &minus; BASE &gt; {c.min_diff_ms:g} ms (median CPU time over repeats). "
                   f"Hosts: {escape(c.base_host or 'unknown')} &rarr; "
                   f"{escape(c.new_host or 'unknown')}.</p>")
        if remeasured:
            out.append(f'<p class="{"bad" if remeasured[0] else "ok"}">'
                       f'{escape(remeasured[1])}</p>')
        out += ["<ul>" + "".join(f'<li class="{kind}">{escape(text)}</li>' for text in texts)
                + "</ul>" for kind, texts in (("bad", c.reasons), ("note", c.notes)) if texts]
        out.append(_table("comparison", (
            "solver", "verdict changes (BASE&rarr;NEW: cases)", "new failures",
            "changed answers", "timed cases", "geo. mean NEW/BASE", "slowdowns"),
            map(_comparison_row, c.solvers), sep="\n"))
        details = []
        for s in c.solvers:
            word = "flagged" if s.slowdown_note is None else "noted"
            details += [f"<li>{escape(s.solver)}: {word} slower: case <code>"
                        f"{escape(t.case_id[:12])}</code> (size {t.size}) {t.base_ms:.1f} "
                        f"&rarr; {t.new_ms:.1f} ms ({t.ratio:.2f}&times;)</li>"
                        for t in s.slowdowns[:EXAMPLES]]
            details += [f"<li>{escape(s.solver)}: case <code>{escape(a.case_id[:12])}</code> "
                        f"(size {a.size}) answer <code>{escape(cut(a.base_answer, 80, 2))}"
                        f"</code> &rarr; <code>{escape(cut(a.new_answer, 80, 2))}</code></li>"
                        for a in s.changed_answers[:EXAMPLES]]
        if details:
            out.append("<details><summary>examples</summary><ul>" + "".join(details)
                       + "</ul></details>")
    return "\n".join(out)


def _comparison_row(s) -> str:
    changes = [f"{escape(b)}&rarr;{escape(a)}: {n}" for b, a, n in s.transitions if b != a]
    same = sum(n for b, a, n in s.transitions if b == a)
    geo = f"{s.geomean_ratio:.2f}&times;" if s.geomean_ratio is not None else "-"
    name = escape(s.solver) + (' <span class="note">(known wrong)</span>'
                               if s.known_wrong else "")
    return (f"<tr><td>{name}</td><td>{', '.join(changes) or 'none'} <span class=\"note\">"
            f"({same} unchanged)</span></td><td class=\"num\">{len(s.new_failures)}</td>"
            f"<td class=\"num\">{len(s.changed_answers)}</td>"
            f"<td class=\"num\">{s.timed_cases}</td><td class=\"num\">{geo}</td>"
            f"<td>{escape(s.slowdown_words())}</td></tr>")


def _growth_section(runs: Sequence[str], rows: dict[str, dict], results: pl.DataFrame,
                    colors: dict[str, str]) -> str:
    out = ['<h2 id="growth">Time against size (log-log)</h2>',
           '<p class="meta">Faint dots: one per case (median wall time over repeats; SKIP left '
           "out). Solid dots: the median of each size, with a whisker up to its 90th "
           "percentile. Each line is the least-squares fit on log-log over the sizes where the "
           f"time is at least {growth.FIXED_COST_FACTOR:g}&times; the solver's fixed cost (its "
           "smallest median), drawn over those sizes only; its slope is the growth exponent, "
           f"given for at least {growth.MIN_SIZES} such sizes spanning at least "
           f"{growth.MIN_SPAN:g}&times; when the line explains at least "
           f"{growth.MIN_R_SQUARED:.0%} of the variance (r&sup2;). "
           "Crosses in the band above the plot: cases that ended without a timing (TLE, RE, "
           "MLE, ...).</p>"]
    for index, run_id in enumerate(runs):
        part = results.filter(pl.col("run_id") == run_id)
        problem_id = rows.get(run_id, {}).get("problem") or (
            part["problem"][0] if part.height else "?")
        series = growth.growth_series(part)
        title = f"{problem_id} (run {run_id})"
        chart = loglog_chart(series, title, size_measure(problem_id),
                             chart_id=f"growth-{index}", colors=colors)
        fits = "".join(
            f"<tr><td>{escape(s.solver)}</td><td class=\"num\">{len(s.points)}</td>"
            f"<td class=\"num\">{len(s.untimed)}</td>"
            f"<td class=\"num\">{f'n^{s.fit.exponent:.2f}' if s.fit else '-'}</td>"
            f"<td>{_fit_range(s)}</td></tr>"
            for s in series)
        out.append(f'<figure class="growth" data-problem="{escape(problem_id)}">{chart}'
                   f"<figcaption><table><tr><th>solver</th><th>timed cases</th>"
                   f"<th>no timing</th><th>growth</th><th>fitted over</th></tr>{fits}"
                   "</table></figcaption></figure>")
    return "\n".join(out)


def _fit_range(s) -> str:
    if s.fit is not None:
        return (f"n = {s.fit.min_size:g} .. {s.fit.max_size:g} ({s.fit.points} sizes, "
                f"r² {s.fit.r_squared:.2f})")
    return escape(s.no_fit or "-")


def _history_section(data_dir: Path, problems: Sequence[str], colors: dict[str, str]) -> str:
    out = ['<h2 id="history">Nightly history</h2>',
           f'<p class="meta">The last {HISTORY_NIGHTS} nightly runs of each problem (runs '
           f"whose command starts with <code>{escape(NIGHTLY_COMMAND)}</code>), oldest on the "
           "left: each trusted solver's total CPU time over the night's cases and, under it, "
           "its failing cases, so a slow drift shows before a single night flags it.</p>"]
    for index, problem in enumerate(problems):
        history = nightly_history(data_dir, problem)
        if not history:
            out.append(f'<p class="note">{escape(problem)}: no nightly runs yet.</p>')
            continue
        solvers = list(dict.fromkeys(s for night in history for s in night.cpu_ms))
        chart = history_chart(history, solvers,
                              f"{problem}: {plural(len(history), 'nightly run')}",
                              chart_id=f"history-{index}", colors=colors)
        out.append(f'<figure class="history" data-problem="{escape(problem)}">{chart}'
                   "</figure>")
    return "\n".join(out)


def _slow_section(rows: Sequence[SlowCase]) -> str:
    out = [f'<h2 id="slow">Slowest cases (top {SLOW_ROWS} per problem)</h2>']
    if not rows:
        return out[0] + '<p class="note">no timed results.</p>'
    for problem in dict.fromkeys(r.problem for r in rows):
        out.append(f"<h3>{escape(problem)}</h3>")
        out.append(_table("slow", ("solver", "verdict", "size", "cpu ms", "wall ms",
                                   "of time limit", "source (group)"), (
            f"<tr><td>{escape(r.solver)}</td><td>{_badge(r.verdict)}</td>"
            f"<td class=\"num\">{r.size}</td><td class=\"num\">{format_ms(r.cpu_ms)}</td>"
            f"<td class=\"num\">{format_ms(r.wall_ms)}</td>"
            f"<td class=\"num\">{format_fraction(r.fraction)}</td>"
            f"<td>{escape(where(r.source, r.groups, r.case_id))}</td></tr>"
            for r in rows if r.problem == problem), problem, sep="\n"))
    return "\n".join(out)


def _mismatch_block(m: Mismatch) -> str:
    wrong = set(m.known_wrong)
    out = [f'<div class="mismatch"><b>{escape(where(m.source, m.case_groups, m.case_id))}'
           f"</b> size {m.size} &middot; run <code>{escape(m.run_id)}</code>"
           f"<pre>{escape(cut(m.input))}</pre>"]
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
    return "".join(out)


def _mismatch_section(items: Sequence[Mismatch]) -> str:
    sections = by_problem(items)
    findings = sum(len(s.findings) for s in sections)
    out = [f'<h2 id="mismatches">Mismatches ({plural(findings, "finding")}, '
           f"{len(items) - findings} known)</h2>",
           '<p class="meta">A finding: a trusted solver disagrees with the expected answer or '
           "with another trusted solver. Known: only stages registered as known to be wrong "
           "are off, failing as documented; they are folded into one line per stage with its "
           "smallest counterexample. Per problem, smallest first by that problem's size."
           "</p>"]
    if not items:
        return "\n".join(out) + '<p class="ok">every answered case agrees.</p>'
    for section in sections:
        out.append(f'<h3 data-problem="{escape(section.problem)}">{escape(section.problem)} '
                   f'<span class="meta">(size: {escape(section.size_measure)})</span>: '
                   f"{plural(len(section.findings), 'finding')}, {len(section.known_only)} "
                   "known</h3>")
        out += [_mismatch_block(m) for m in section.findings[:MISMATCH_ROWS]]
        if len(section.findings) > MISMATCH_ROWS:
            out.append(f'<p class="note">{len(section.findings) - MISMATCH_ROWS} more findings '
                       f"of {escape(section.problem)} not shown: <code>pipeline mismatches "
                       f"--problem {escape(section.problem)} --top N</code> lists them.</p>")
        if section.known:
            out.append(_table("known", (
                "known-wrong stage", "cases wrong", "smallest size", "smallest counterexample",
                "its input", "why it is wrong"), (
                f"<tr><td>{escape(k.stage)}</td><td class=\"num\">{k.cases}</td>"
                f"<td class=\"num\">{m.size}</td>"
                f"<td>{escape(where(m.source, m.case_groups, m.case_id))}</td>"
                f"<td><code>{escape(one_line(m.input))}</code></td>"
                f"<td class=\"note\">{escape(k.why)}</td></tr>" for k in section.known
                for m in [k.smallest])))
    return "\n".join(out)
