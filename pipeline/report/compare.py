"""`pipeline compare`: what changed between two runs of a problem (per solver: verdict
transitions, changed answers, slowdowns, as `Finding`s), and whether that is bad; the runs a
bare `pipeline compare` looks at; two programs of one run side by side (docs/commands.md).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TypedDict

import polars as pl

from pipeline.errors import UnknownName, UserError
from pipeline.report import load
from pipeline.report.load import judged_on_speed, known_wrong
from pipeline.report.mismatches import plural
from pipeline.tables.results import (
    finished_runs,
    latest_runs,
    next_run,
    resolve_runs,
    run_rows,
    start_key,
)
from pipeline.verdicts import (
    SLOWDOWN_MIN_MS,
    SLOWDOWN_RATIO,
    TIMED,
    display_rank,
    is_failure,
    names,
)


class SlowdownRule(TypedDict, total=False):
    """Thresholds that override `compare_runs`'s defaults (the nightly's config)."""

    ratio_threshold: float
    min_diff_ms: float


TIMED_NAMES = tuple(names(TIMED))
ABSENT = "-"


class FindingKind(str, Enum):
    NEW_FAILURE = "new failure"
    CHANGED_ANSWER = "changed answer"
    SLOWDOWN = "slowdown"
    NOTE = "note"


@dataclass(frozen=True)
class Finding:
    """One conclusion of a comparison: what kind, about which solver, whether it fails the
    comparison, the sentence saying it, and the cases it is about (smallest first)."""

    kind: FindingKind
    solver: str | None
    fails: bool
    text: str
    case_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class CaseChange:
    case_id: str
    size: int | None
    base_verdict: str          # ABSENT when the case/solver is new
    new_verdict: str


@dataclass(frozen=True)
class AnswerChange:
    case_id: str
    size: int | None
    base_answer: str
    new_answer: str
    difference: str | None


@dataclass(frozen=True)
class Timing:
    case_id: str
    size: int | None
    base_ms: float
    new_ms: float
    ratio: float


@dataclass(frozen=True)
class SolverComparison:
    solver: str
    known_wrong: str | None                      # why the stage is known to be wrong, if it is
    in_base: bool
    in_new: bool
    transitions: tuple[tuple[str, str, int], ...]  # (base verdict, new verdict, cases)
    new_failures: tuple[CaseChange, ...]
    changed_answers: tuple[AnswerChange, ...]
    timed_cases: int
    geomean_ratio: float | None
    slowdowns: tuple[Timing, ...]                # cases above both thresholds, worst first
    slowdown_note: str | None = None             # why they are only noted; None: flagged

    def transition_count(self, base: str, new: str) -> int:
        return sum(n for b, v, n in self.transitions if (b, v) == (base, new))

    @property
    def flagged(self) -> tuple[Timing, ...]:
        """The slowdowns that fail the comparison."""
        return self.slowdowns if self.slowdown_note is None else ()

    @property
    def noted(self) -> tuple[Timing, ...]:
        """The slowdowns that are reported but do not count (`slowdown_note` says why)."""
        return () if self.slowdown_note is None else self.slowdowns

    def slowdown_words(self) -> str:
        """`3 flagged slowdowns`, `2 noted slowdowns (not judged on speed)` or `0 slowdowns`:
        the words every text of a comparison uses for them."""
        n = len(self.slowdowns)
        if self.slowdown_note is None:
            return plural(n, "flagged slowdown")
        if not n:
            return "0 slowdowns"
        return f"{plural(n, 'noted slowdown')} ({self.slowdown_note})"


@dataclass(frozen=True)
class Comparison:
    problem: str
    base_run: str
    new_run: str
    base_host: str | None
    new_host: str | None
    same_host: bool
    ratio_threshold: float
    min_diff_ms: float
    solvers: tuple[SolverComparison, ...]

    @property
    def findings(self) -> tuple[Finding, ...]:
        """What the comparison concludes: a note when the hosts differ, then per solver its
        new failures, slowdowns, absence from NEW and changed answers."""
        found: list[Finding] = []
        if not self.same_host:
            what = "hosts differ" if self.base_host and self.new_host else "host unknown"
            hosts = f"{self.base_host or 'unknown'} vs {self.new_host or 'unknown'}"
            found.append(Finding(FindingKind.NOTE, None, False,
                                 f"{what} ({hosts}): slowdowns are noted, not flagged"))
        for s in self.solvers:
            tag = f"{s.solver} (known wrong)" if s.known_wrong else s.solver
            if s.new_failures:
                kinds = Counter(f"{c.base_verdict}->{c.new_verdict}" for c in s.new_failures)
                first = s.new_failures[0]  # smallest first, as `_joined` orders the rows
                found.append(Finding(
                    FindingKind.NEW_FAILURE, s.solver, not s.known_wrong,
                    f"{tag}: {plural(len(s.new_failures), 'new failing case')} "
                    f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}); "
                    f"smallest: case {first.case_id[:12]} (size {first.size})",
                    tuple(c.case_id for c in s.new_failures)))
            if s.slowdowns:
                worst = s.slowdowns[0]
                found.append(Finding(
                    FindingKind.SLOWDOWN, s.solver, s.slowdown_note is None,
                    f"{s.solver}: {s.slowdown_words()}, slower than {self.ratio_threshold:g}x and "
                    f"+{self.min_diff_ms:g} ms; worst {worst.ratio:.2f}x ({worst.base_ms:.1f} -> "
                    f"{worst.new_ms:.1f} ms, case {worst.case_id[:12]}, size {worst.size})",
                    tuple(t.case_id for t in s.slowdowns)))
            if s.in_base and not s.in_new:
                found.append(Finding(FindingKind.NOTE, s.solver, False,
                                     f"{s.solver}: not in the new run"))
            if s.changed_answers and not s.new_failures:
                found.append(Finding(
                    FindingKind.CHANGED_ANSWER, s.solver, False,
                    f"{tag}: {plural(len(s.changed_answers), 'changed answer')} without a new "
                    "failure", tuple(c.case_id for c in s.changed_answers)))
        return tuple(found)

    @property
    def failed(self) -> bool:
        return any(f.fails for f in self.findings)

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why it failed (empty when it did not)."""
        return tuple(f.text for f in self.findings if f.fails)

    @property
    def notes(self) -> tuple[str, ...]:
        """Worth saying, not failing."""
        return tuple(f.text for f in self.findings if not f.fails)

    def solver(self, name: str) -> SolverComparison:
        for s in self.solvers:
            if s.solver == name:
                return s
        raise UnknownName(f"no solver {name!r} in the comparison")


def _host(row: dict | None, results: pl.DataFrame) -> str | None:
    if row is not None and row.get("host"):
        return row["host"]
    hosts = results["host"].drop_nulls().unique().to_list()
    return hosts[0] if len(hosts) == 1 else None


def compare_runs(data_dir: Path, base_run: str, new_run: str,
                 ratio_threshold: float = SLOWDOWN_RATIO,
                 min_diff_ms: float = SLOWDOWN_MIN_MS, timing: str = "median") -> Comparison:
    """Compare run `new_run` against `base_run` (both of the same problem); `timing` folds a
    case's repeats: "median", or "min" (the least-disturbed run, for a re-measurement)."""
    resolve_runs(data_dir, [base_run, new_run])
    rows = run_rows(data_dir, [base_run, new_run])
    base = load.collapsed_results(data_dir, [base_run], timing=timing)
    new = load.collapsed_results(data_dir, [new_run], timing=timing)
    problems = {r["problem"] for r in rows.values()} | set(base["problem"].unique()) | set(
        new["problem"].unique())
    problems.discard(None)
    if len(problems) > 1:
        raise UserError(f"runs {base_run} and {new_run} are of different problems: "
                        f"{', '.join(sorted(problems))}")
    problem = problems.pop() if problems else "?"
    base_host, new_host = _host(rows.get(base_run), base), _host(rows.get(new_run), new)
    same_host = base_host is not None and base_host == new_host
    joined = _joined(_side(base, "base", "solver"), _side(new, "new", "solver"),
                     ["case_id", "solver"])
    solvers = list(dict.fromkeys([*new["solver"].to_list(), *base["solver"].to_list()]))
    compared = [_compare_solver(problem, name, joined.filter(pl.col("solver") == name),
                                set(base["solver"]), set(new["solver"]), same_host,
                                ratio_threshold, min_diff_ms) for name in solvers]
    return Comparison(problem=problem, base_run=base_run, new_run=new_run, base_host=base_host,
                      new_host=new_host, same_host=same_host, ratio_threshold=ratio_threshold,
                      min_diff_ms=min_diff_ms, solvers=tuple(compared))


def _side(results: pl.DataFrame, prefix: str, *keys: str) -> pl.DataFrame:
    """Results with `case_id` and `keys` as they are, the rest named `prefix`_ (`base`, `new`)."""
    return results.select(
        "case_id", *keys, pl.col("verdict").alias(f"{prefix}_verdict"),
        pl.col("answer").alias(f"{prefix}_answer"), pl.col("wall_ms").alias(f"{prefix}_ms"),
        pl.col("cpu_ms").alias(f"{prefix}_cpu"), pl.col("size").alias(f"{prefix}_size"))


def _joined(base: pl.DataFrame, new: pl.DataFrame, on: list[str]) -> pl.DataFrame:
    """Both sides of every case (keyed by `on`), by solver where `on` has it, smallest first."""
    return base.join(new, on=on, how="full", coalesce=True).with_columns(
        pl.coalesce("new_size", "base_size").alias("size")).sort(
        [*on[1:], "size", "case_id"], nulls_last=True)


def _compare_solver(problem: str, name: str, part: pl.DataFrame, base_solvers: set[str],
                    new_solvers: set[str], same_host: bool, ratio_threshold: float,
                    min_diff_ms: float) -> SolverComparison:
    transitions: Counter = Counter()
    failures, answers, timings = [], [], []
    log_sum, log_n = 0.0, 0
    for row in part.iter_rows(named=True):
        before = row["base_verdict"] or ABSENT
        after = row["new_verdict"] or ABSENT
        transitions[(before, after)] += 1
        if is_failure(after) and after != before:
            failures.append(CaseChange(row["case_id"], row["size"], before, after))
        a, b = row["base_answer"], row["new_answer"]
        if a is not None and b is not None and not load.answers_agree(problem, a, b):
            answers.append(AnswerChange(row["case_id"], row["size"], a, b,
                                        load.difference(problem, a, b)))
        base_ms, new_ms = _timing(row)
        if (before in TIMED_NAMES and after in TIMED_NAMES
                and base_ms is not None and new_ms is not None):
            if base_ms > 0 and new_ms > 0:
                ratio = new_ms / base_ms
                log_sum += math.log(ratio)
                log_n += 1
            else:
                ratio = math.inf if new_ms > base_ms else 1.0
            timings.append(Timing(row["case_id"], row["size"], base_ms, new_ms, ratio))
    slow = [t for t in timings if t.ratio > ratio_threshold
            and t.new_ms - t.base_ms > min_diff_ms]
    slow.sort(key=lambda t: (-t.ratio, -(t.new_ms - t.base_ms), t.case_id))
    wrong = known_wrong(problem, name)
    return SolverComparison(
        solver=name, known_wrong=wrong, in_base=name in base_solvers,
        in_new=name in new_solvers,
        transitions=tuple((b, a, n) for (b, a), n in sorted(transitions.items())),
        new_failures=tuple(failures), changed_answers=tuple(answers), timed_cases=len(timings),
        geomean_ratio=math.exp(log_sum / log_n) if log_n else None, slowdowns=tuple(slow),
        slowdown_note=_slowdown_note(problem, name, wrong, same_host))


def _slowdown_note(problem: str, solver: str, wrong: str | None,
                   same_host: bool) -> str | None:
    """Why a solver's slowdowns are only noted (None: they are flagged)."""
    if not same_host:
        return "timed on another host"
    if wrong:
        return "known wrong"
    if not judged_on_speed(problem, solver):
        return "not judged on speed"
    return None


def _timing(row: dict) -> tuple[float | None, float | None]:
    """CPU time when both runs measured it (what a slower algorithm costs, without the
    scheduler's noise that wall time carries), else wall time."""
    if row["base_cpu"] is not None and row["new_cpu"] is not None:
        return row["base_cpu"], row["new_cpu"]
    return row["base_ms"], row["new_ms"]


CASE_COUNT_TOLERANCE = 0.10
SKIPPED_SHOWN = 5   # newer runs passed over named in a baseline's `skipped`


@dataclass(frozen=True)
class Pair:
    """Two runs to compare and why these: `why` says how BASE was chosen, `skipped` the newer
    finished runs passed over, each with its reason. `base` is None when no earlier run of the
    problem is comparable with NEW."""

    problem: str
    base: str | None
    new: str
    why: str
    skipped: tuple[str, ...] = ()


def _group_words(group: str | None) -> str:
    return f"group {group}" if group else "all cases"


def comparable(new_row: dict, base_row: dict) -> str | None:
    """None when `base_row`'s run is a fair baseline for `new_row`'s: the same group of cases,
    a case count within 10 %, and every solver of NEW; else what differs."""
    if new_row.get("group") != base_row.get("group"):
        return (f"{_group_words(base_row.get('group'))}, "
                f"NEW ran {_group_words(new_row.get('group'))}")
    new_cases, base_cases = new_row.get("cases") or 0, base_row.get("cases") or 0
    if abs(new_cases - base_cases) > CASE_COUNT_TOLERANCE * max(new_cases, base_cases, 1):
        return (f"{plural(base_cases, 'case')} against NEW's {new_cases} "
                f"(more than {CASE_COUNT_TOLERANCE:.0%} apart)")
    missing = [name for name in new_row.get("solvers") or []
               if name not in set(base_row.get("solvers") or [])]
    return f"did not run {', '.join(missing)}" if missing else None


def choose_baseline(data_dir: Path, new_run: str) -> Pair:
    """The baseline of `new_run`: the newest finished run of its problem that started before
    it and is `comparable`, with why, and the newer ones passed over."""
    rows = run_rows(data_dir, [new_run])
    if new_run not in rows:
        raise UnknownName(f"no run {new_run!r} in {Path(data_dir).resolve()}")
    new_row = rows[new_run]
    here = start_key(new_row)
    skipped: list[str] = []
    base = None
    for row in finished_runs(data_dir, new_row["problem"]).iter_rows(named=True):
        if row["run_id"] == new_run or start_key(row) >= here:
            continue
        if (reason := comparable(new_row, row)) is None:
            base = row
            break
        skipped.append(f"{row['run_id']}: {reason}")
    if len(skipped) > SKIPPED_SHOWN:
        skipped[SKIPPED_SHOWN:] = [f"... and {plural(len(skipped) - SKIPPED_SHOWN, 'older run')}"]
    if base is None:
        return Pair(new_row["problem"], None, new_run, (
            f"no earlier finished run of {new_row['problem']} is comparable with NEW {new_run} "
            f"(same group, case count within {CASE_COUNT_TOLERANCE:.0%}, every solver of NEW)"),
            tuple(skipped))
    return Pair(new_row["problem"], base["run_id"], new_run, (
        f"BASE {base['run_id']} is the newest earlier finished run of {new_row['problem']} "
        f"over the same cases ({_group_words(base.get('group'))}, {base.get('cases')} cases "
        f"against NEW's {new_row.get('cases')}) that ran every solver of NEW"), tuple(skipped))


def pairs_to_compare(data_dir: Path, base: str | None = None, new: str | None = None,
                     problem: str | None = None) -> list[Pair]:
    """The runs `pipeline compare` looks at, each `Pair` saying why: the two given; BASE and
    the newest finished run after it; else, per problem (`problem` or every one with two
    finished runs), its newest run and the baseline `choose_baseline` picks."""
    where = Path(data_dir).resolve()
    if base and new:
        return [Pair(run_rows(data_dir, [new]).get(new, {}).get("problem") or "?", base, new,
                     "both runs given")]
    if base:
        row = run_rows(data_dir, [base]).get(base)
        if row is None:
            raise UnknownName(f"no run {base!r} in {where}")
        newer = next_run(data_dir, base)
        if newer is None:
            raise UserError(f"no finished run of {row['problem']} newer than {base} to "
                            f"compare with in {where}")
        return [Pair(row["problem"], base, newer, f"BASE given; NEW {newer} is the newest "
                     f"finished run of {row['problem']}")]
    problems = [problem] if problem else list(dict.fromkeys(
        finished_runs(data_dir)["problem"].sort().to_list()))
    pairs = [choose_baseline(data_dir, runs[0]) for pid in problems
             if len(runs := latest_runs(data_dir, pid, 2)) == 2]
    if not pairs:
        raise UserError(f"compare needs two finished runs of {problem} in {where}"
                        if problem else "compare needs two finished runs of one problem; no "
                        f"problem has two yet in {where}")
    return pairs


def _matrix(s: SolverComparison, indent: str, corner: str = "BASE\\NEW") -> list[str]:
    before = sorted({b for b, _, _ in s.transitions}, key=_verdict_order)
    after = sorted({a for _, a, _ in s.transitions}, key=_verdict_order)
    width = max(6, *(len(v) + 1 for v in after))
    first = max(11, len(corner) + 1)
    lines = [indent + f"{corner:<{first}}" + "".join(f"{v:>{width}}" for v in after)]
    for b in before:
        cells = "".join(f"{s.transition_count(b, a) or '.':>{width}}" for a in after)
        lines.append(indent + f"{b:<{first}}" + cells)
    return lines


def _verdict_order(verdict: str) -> tuple[int, str]:
    return (-1, verdict) if verdict == ABSENT else display_rank(verdict)


def format_comparison(c: Comparison, examples: int = 5, choice: Pair | None = None) -> str:
    """The comparison as console text: how BASE was chosen (when `choice` is given), one block
    per solver, then the outcome (naming what is only noted in the body's words)."""
    lines = [f"compare {c.problem}: BASE {c.base_run} ({c.base_host or 'unknown host'}) -> "
             f"NEW {c.new_run} ({c.new_host or 'unknown host'})"]
    if choice is not None:
        lines.append(f"  baseline: {choice.why}")
        lines += [f"    passed over {reason}" for reason in choice.skipped]
    if not c.same_host:
        lines.append("  not the same host: slowdowns are noted, not flagged")
    lines.append(f"  slowdown rule: NEW/BASE > {c.ratio_threshold:g} and NEW - BASE > "
                 f"{c.min_diff_ms:g} ms (median CPU time over repeats; wall time where CPU was "
                 "not measured); flagged when the solver is judged on speed, else noted")
    for s in c.solvers:
        flag = "  [known wrong]" if s.known_wrong else ""
        presence = "" if s.in_base and s.in_new else (
            "  (new solver)" if s.in_new else "  (only in BASE)")
        geo = f"{s.geomean_ratio:.2f}x" if s.geomean_ratio is not None else "-"
        lines.append(f"\n  {s.solver}{flag}{presence}: {s.timed_cases} timed cases, "
                     f"geometric mean NEW/BASE {geo}, {len(s.new_failures)} new failures, "
                     f"{len(s.changed_answers)} changed answers, {s.slowdown_words()}")
        lines += _matrix(s, "    ")
        lines += [f"    answer changed: case {change.case_id[:12]} (size {change.size}): "
                  f"{_short(change.base_answer)} -> {_short(change.new_answer)}"
                  for change in s.changed_answers[:examples]]
        if len(s.changed_answers) > examples:
            lines.append(f"    ... {len(s.changed_answers) - examples} more changed answers")
        word = "flagged" if s.slowdown_note is None else "noted"
        lines += [f"    {word} slower: case {t.case_id[:12]} (size {t.size}): "
                  f"{t.base_ms:.1f} -> {t.new_ms:.1f} ms ({t.ratio:.2f}x)"
                  for t in s.slowdowns[:examples]]
        if len(s.slowdowns) > examples:
            lines.append(f"    ... {len(s.slowdowns) - examples} more {word} slowdowns")
    lines += [f"  note: {note}" for note in c.notes]
    if c.failed:
        lines.append("FAILED:")
        lines += [f"  - {reason}" for reason in c.reasons]
    noted = _noted_summary(c)
    if not c.failed:
        lines.append("OK: no new failures, no flagged slowdowns"
                     + (f"; noted: {noted}" if noted else ""))
    elif noted:
        lines.append(f"noted: {noted}")
    return "\n".join(lines)


def _noted_summary(c: Comparison) -> str:
    """What the body reports that does not count, in the body's words."""
    parts = []
    for s in c.solvers:
        if s.noted:
            parts.append(f"{s.solver} {s.slowdown_words()}")
        if s.known_wrong and s.new_failures:
            parts.append(f"{s.solver} (known wrong) {plural(len(s.new_failures), 'new failure')}")
    return ", ".join(parts)


def _short(text: str, limit: int = 60) -> str:
    flat = " / ".join(text.split("\n")).strip(" /")
    return repr(flat if len(flat) <= limit else flat[:limit] + "...")


# -- two programs of one run side by side (`compare --solver A --against B`) --------------------

@dataclass(frozen=True)
class SideBySide:
    """Solver A against solver B on the cases of one run, by the rules two runs are compared
    by (`comparison` has B as BASE and A as NEW)."""

    problem: str
    run_id: str
    solver: str                   # A
    against: str                  # B
    comparison: SolverComparison
    rows: tuple[dict, ...]        # per case: case_id, size, base_* (B's) and new_* (A's)
    ratio_threshold: float
    min_diff_ms: float


def compare_solvers(data_dir: Path, run_id: str, solver: str, against: str,
                    ratio_threshold: float = SLOWDOWN_RATIO,
                    min_diff_ms: float = SLOWDOWN_MIN_MS) -> SideBySide:
    """Compare `solver` (A) with `against` (B) on the cases of run `run_id`. Raises
    `UnknownName` for a run, or a solver the run has no results of."""
    resolve_runs(data_dir, [run_id])
    results = load.collapsed_results(data_dir, [run_id])
    ran = sorted(set(results["solver"].to_list()))
    if missing := [name for name in (solver, against) if name not in ran]:
        raise UnknownName(f"run {run_id} has no results of {' or '.join(map(repr, missing))} "
                          f"(it ran {', '.join(ran) or 'nothing'})")
    problem = results["problem"][0]
    joined = _joined(_side(results.filter(pl.col("solver") == against), "base"),
                     _side(results.filter(pl.col("solver") == solver), "new"), ["case_id"])
    comparison = _compare_solver(problem, solver, joined, {against}, {solver}, True,
                                 ratio_threshold, min_diff_ms)
    return SideBySide(problem, run_id, solver, against, comparison,
                      tuple(joined.iter_rows(named=True)), ratio_threshold, min_diff_ms)


def format_side_by_side(s: SideBySide, examples: int = 10) -> str:
    """The side-by-side comparison as console text."""
    c, a, b = s.comparison, s.solver, s.against
    only_a = sum(1 for r in s.rows if r["base_verdict"] is None)
    only_b = sum(1 for r in s.rows if r["new_verdict"] is None)
    geo = f"{c.geomean_ratio:.2f}x" if c.geomean_ratio is not None else "-"
    lines = [f"compare {s.problem} run {s.run_id}: {a} against {b}, side by side",
             f"  {len(s.rows) - only_a - only_b} cases run by both ({only_a} only by {a}, "
             f"{only_b} only by {b}); {c.timed_cases} timed by both, geometric mean {a}/{b} "
             f"{geo} (median CPU time over repeats; wall time where CPU was not measured)",
             f"  verdicts ({b} down, {a} across):", *_matrix(c, "    ", f"{b}\\{a}")]
    changed = {x.case_id for x in c.changed_answers}  # smallest first, as the rows are
    differing = [r for r in s.rows
                 if r["base_verdict"] != r["new_verdict"] or r["case_id"] in changed]
    lines.append(f"  {plural(len(differing), 'case')} where the verdicts or answers differ"
                 + (", smallest first:" if differing else ""))
    width = max(len(a), len(b), 7)
    if differing:
        lines.append(f"    {'case':<12} {'size':>10}  {b:<{width}} {'ms':>9}  "
                     f"{a:<{width}} {'ms':>9}")
    for r in differing[:examples]:
        base_ms, new_ms = _timing(r)
        size = "-" if r["size"] is None else str(r["size"])
        lines.append(f"    {r['case_id'][:12]:<12} {size:>10}  "
                     f"{r['base_verdict'] or ABSENT:<{width}} {_ms(base_ms):>9}  "
                     f"{r['new_verdict'] or ABSENT:<{width}} {_ms(new_ms):>9}")
    if len(differing) > examples:
        lines.append(f"    ... {len(differing) - examples} more")
    slower = c.slowdowns
    lines.append(f"  {plural(len(slower), 'case')} where {a} is slower than {b} by over "
                 f"{s.ratio_threshold:g}x and +{s.min_diff_ms:g} ms"
                 + (", worst first:" if slower else ""))
    lines += [f"    case {t.case_id[:12]} (size {t.size}): {b} {t.base_ms:.1f} ms, "
              f"{a} {t.new_ms:.1f} ms ({t.ratio:.2f}x)" for t in slower[:examples]]
    if len(slower) > examples:
        lines.append(f"    ... {len(slower) - examples} more")
    return "\n".join(lines)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
