"""`pipeline mismatches`: cases where a stage's answer differs, by the problem's own `compare`,
from the expected one or another stage's (rows without an answer take no part), per problem,
smallest case first: findings in full, known-wrong stages a line each (docs/commands.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline.report import load
from pipeline.report.load import known_wrong, registered
from pipeline.tables.results import resolve_runs
from pipeline.verdicts import ANSWERED, Verdict, names

INPUT_CHARS = 400
INPUT_LINES = 12
ANSWER_CHARS = 200


@dataclass(frozen=True)
class AnswerGroup:
    answer: str
    stages: tuple[str, ...]          # the solvers that gave this answer
    is_expected: bool                # this is the expected answer
    difference: str | None           # first difference from the expected (or first) answer


@dataclass(frozen=True)
class Mismatch:
    run_id: str
    problem: str
    case_id: str
    size: int | None
    source: str | None
    input: str | None
    expected_source: str | None      # `file`, or the stage that produced the expected answer
    groups: tuple[AnswerGroup, ...]  # the expected answer's group first, then by support
    known_wrong: tuple[str, ...]     # stages among these registered as known to be wrong
    case_groups: tuple[str, ...] = ()  # the case's groups (the first source's first)
    input_chars: int | None = None   # length of the input, to order cases of equal size

    @property
    def has_expected(self) -> bool:
        return any(g.is_expected for g in self.groups)

    @property
    def wrong_stages(self) -> tuple[str, ...]:
        """Stages whose answer is not the expected one (all but the majority without one)."""
        return tuple(s for g in self.groups[1:] for s in g.stages)

    def _trusted(self, group: AnswerGroup) -> list[str]:
        return [s for s in group.stages if s not in self.known_wrong]

    @property
    def is_finding(self) -> bool:
        """A trusted solver disagrees with the expected answer (or, without one, another's)."""
        if self.has_expected:
            return any(self._trusted(g) for g in self.groups if not g.is_expected)
        return sum(1 for g in self.groups if self._trusted(g)) > 1

    @property
    def failing_known_wrong(self) -> tuple[str, ...]:
        """The known-wrong stages whose answer is off: not the expected one, or without one,
        not the trusted solvers' (every known-wrong stage outside the first group when no
        trusted solver answered)."""
        reference = next((g for g in self.groups if g.is_expected), None) or next(
            (g for g in self.groups if self._trusted(g)), self.groups[0])
        return tuple(s for g in self.groups if g is not reference for s in g.stages
                     if s in self.known_wrong)

    def size_key(self) -> tuple:
        """Smallest first by the problem's size, then the shorter input, then the case id."""
        return (self.size is None, self.size or 0, self.input_chars or 0, self.case_id,
                self.run_id)


def find_mismatches(data_dir: Path, problem: str | None = None,
                    run_ids: Sequence[str] | None = None) -> list[Mismatch]:
    """Every disagreeing case of the runs (default: the latest finished run of each problem),
    smallest first (then by problem, case, run)."""
    runs = resolve_runs(data_dir, run_ids, problem)
    results = load.collapsed_results(data_dir, runs, problem).filter(
        pl.col("verdict").is_in(names(ANSWERED)) & pl.col("answer").is_not_null())
    if results.is_empty():
        return []
    cases = load.load_cases(data_dir, results["problem"].unique().to_list())
    # (run, problem, case) -> (its size, its (solver, answer) pairs)
    by_case: dict[tuple[str, str, str], tuple[int | None, list[tuple[str, str]]]] = {}
    info = {(row["problem"], row["case_id"]): row for row in cases.iter_rows(named=True)}
    # the problems a checker judged (a package's own, or the one its `problem.toml` names)
    judged = {p for p in results["problem"].unique().to_list()
              if getattr(registered(p), "accepts_other_answers", False)}
    for run_id, problem_id, case_id, solver, answer, size, verdict in results.select(
            "run_id", "problem", "case_id", "solver", "answer", "size", "verdict").iter_rows():
        expected = info.get((problem_id, case_id), {}).get("expected")
        if problem_id in judged and verdict == Verdict.AC.value and expected is not None:
            answer = expected  # the package's checker accepted it: it is the expected answer
        by_case.setdefault((run_id, problem_id, case_id), (size, []))[1].append((solver, answer))
    found: list[Mismatch] = []
    for (run_id, problem_id, case_id), (size, answers) in by_case.items():
        case = info.get((problem_id, case_id), {})
        groups = group_answers(problem_id, answers, case.get("expected"))
        if len(groups) < 2:
            continue
        stages = [s for s, _ in answers]
        found.append(Mismatch(
            run_id=run_id, problem=problem_id, case_id=case_id, size=size,
            source=case.get("source"), input=case.get("input"),
            expected_source=case.get("expected_source"), groups=groups,
            known_wrong=tuple(s for s in stages if known_wrong(problem_id, s)),
            case_groups=case_groups(case),
            input_chars=len(case["input"]) if case.get("input") is not None else None))
    found.sort(key=lambda m: (m.problem, m.size_key()))
    return found


def case_groups(case: dict) -> tuple[str, ...]:
    """The groups of a `cases` row: its `groups` list (older tables: its `group`)."""
    groups = case.get("groups") or ([case["group"]] if case.get("group") else [])
    return tuple(dict.fromkeys(groups))


def where(source: str | None, groups: Sequence[str], case_id: str) -> str:
    """A case as a tester finds it: its first source and its groups (the case id's first 12
    characters when it is not in the cases table)."""
    if source is None:
        return f"case {case_id[:12]} (not in cases)"
    return source + (f" (group {', '.join(groups)})" if groups else "")


@dataclass(frozen=True)
class KnownFailure:
    """A known-wrong stage failing as documented, folded into one line."""

    stage: str
    why: str
    cases: int                       # mismatching cases on which the stage is off
    smallest: Mismatch               # the smallest of them by the problem's size


@dataclass(frozen=True)
class ProblemMismatches:
    """One problem's section: its findings and its known-wrong stages' failures."""

    problem: str
    size_measure: str
    findings: tuple[Mismatch, ...]   # smallest first
    known: tuple[KnownFailure, ...]  # one per known-wrong stage that is off somewhere
    known_only: tuple[Mismatch, ...]  # cases where only known-wrong stages are off


def size_measure(problem_id: str) -> str:
    problem = registered(problem_id)
    return "size" if problem is None else problem.size_measure


def by_problem(items: Sequence[Mismatch]) -> list[ProblemMismatches]:
    """The mismatches in one section per problem (by id), each ordered by its own size."""
    sections = []
    for problem in sorted({m.problem for m in items}):
        mine = sorted((m for m in items if m.problem == problem), key=Mismatch.size_key)
        failing: dict[str, list[Mismatch]] = {}
        for m in mine:
            for stage in m.failing_known_wrong:
                failing.setdefault(stage, []).append(m)
        known = tuple(KnownFailure(stage, known_wrong(problem, stage) or "known wrong",
                                   len(cases), cases[0])
                      for stage, cases in sorted(failing.items()))
        sections.append(ProblemMismatches(
            problem=problem, size_measure=size_measure(problem),
            findings=tuple(m for m in mine if m.is_finding), known=known,
            known_only=tuple(m for m in mine if not m.is_finding)))
    return sections


def group_answers(problem_id: str, answers: Sequence[tuple[str, str]],
                  expected: str | None) -> tuple[AnswerGroup, ...]:
    """Group (solver, answer) pairs by equal answers; the expected answer's group comes first
    (present even when no stage gave it), then by number of stages, then by first stage."""
    representatives: list[str] = []
    members: list[list[str]] = []
    by_text: dict[str, int] = {}

    def place(text: str) -> int:
        if text not in by_text:
            by_text[text] = next((i for i, rep in enumerate(representatives)
                                  if load.answers_agree(problem_id, rep, text)),
                                 len(representatives))
            if by_text[text] == len(representatives):
                representatives.append(text)
                members.append([])
        return by_text[text]

    expected_index = place(expected) if expected is not None else None
    for solver, answer in answers:
        members[place(answer)].append(solver)
    order = sorted(range(len(representatives)),
                   key=lambda i: (i != expected_index, -len(members[i]), i))
    reference = representatives[order[0]]
    return tuple(AnswerGroup(
        answer=representatives[i], stages=tuple(members[i]), is_expected=i == expected_index,
        difference=None if i == order[0] else load.difference(problem_id, reference,
                                                              representatives[i]))
        for i in order)


def cut(text: str | None, max_chars: int = INPUT_CHARS, max_lines: int = INPUT_LINES) -> str:
    """`text` shortened for display, saying how much was left out."""
    if text is None:
        return "(not stored)"
    lines = text.splitlines()
    short = "\n".join(lines[:max_lines])[:max_chars]
    whole = text.rstrip("\n")
    if len(short) >= len(whole):
        return text
    return short.rstrip("\n") + (f"\n... ({len(whole) - len(short)} more characters, "
                                  f"{len(lines)} lines in all)")


DEFAULT_TOP = 10


def one_line(text: str | None, max_chars: int = 80) -> str:
    """`text` on one line (` / ` between lines), shortened with `...`."""
    if text is None:
        return "(not stored)"
    flat = " / ".join(line.strip() for line in text.strip().splitlines())
    return flat if len(flat) <= max_chars else flat[:max_chars - 3].rstrip() + "..."


def format_block(m: Mismatch, indent: str = "  ") -> str:
    """One mismatching case: where it is, its input and who sides with which answer."""
    wrong = set(m.known_wrong)
    lines = [f"{indent}{where(m.source, m.case_groups, m.case_id)}  size "
             f"{m.size if m.size is not None else '-'}  run {m.run_id}", f"{indent}  input:"]
    lines += [f"{indent}    {line}" for line in cut(m.input).splitlines()]
    for group in m.groups:
        label = (f"expected ({m.expected_source or 'file'})" if group.is_expected
                 else "answer")
        stages = ", ".join(s + (" (known wrong)" if s in wrong else "")
                           for s in group.stages) or "no stage"
        answer = cut(group.answer, ANSWER_CHARS, 3).rstrip("\n").replace("\n", " / ")
        lines.append(f"{indent}  {label}: {answer}")
        lines.append(f"{indent}    <- {stages}" + (f"  [{group.difference}]"
                                                     if group.difference else ""))
    return "\n".join(lines)


def plural(n: int, word: str) -> str:
    """`1 case`, `2 cases`."""
    return f"{n} {word}{'s' if n != 1 else ''}"


def runs_read(run_ids: Sequence[str]) -> str:
    """`run R` or `runs R1, R2`: the runs a report read, for its first line."""
    return f"run{'s' if len(run_ids) != 1 else ''} {', '.join(run_ids)}"


def format_mismatches(items: Sequence[Mismatch], top: int | None = DEFAULT_TOP,
                      show_all: bool = False, run_ids: Sequence[str] = ()) -> str:
    """The mismatches for the console: per problem, the findings in full (at most `top`),
    then a line per known-wrong stage. `show_all` lists the known cases in full too (every
    case unless `top` is given). `run_ids`: the runs read, named on the first line."""
    read = f" in {runs_read(run_ids)}" if run_ids else ""
    if not items:
        return f"no mismatches{read}: every answered case agrees"
    limit = None if show_all and top is None else (top if top is not None else DEFAULT_TOP)
    out = []
    for section in by_problem(items):
        cases = list(section.findings) + (list(section.known_only) if show_all else [])
        cases.sort(key=Mismatch.size_key)
        known_cases = len(section.known_only)
        head = (f"{section.problem} (size: {section.size_measure}): "
                f"{plural(len(section.findings), 'finding')}"
                + (f", {plural(known_cases, 'case')} where known-wrong stages fail as "
                   "documented" if known_cases else ""))
        lines = [head]
        shown = cases if limit is None else cases[:limit]
        lines += [format_block(m) for m in shown]
        if len(shown) < len(cases):
            lines.append(f"  ({len(cases) - len(shown)} more not shown: --top N shows more)")
        if section.known:
            lines.append("  known wrong, failing as documented"
                         + ("" if show_all else " (--all lists every case)") + ":")
            lines += [f"    {k.stage} (known wrong): wrong on {plural(k.cases, 'case')}; "
                      f"smallest: size {m.size if m.size is not None else '-'}, "
                      f"{where(m.source, m.case_groups, m.case_id)}, input {one_line(m.input)}"
                      for k in section.known for m in [k.smallest]]
        out.append("\n".join(lines))
    findings = sum(1 for m in items if m.is_finding)
    head = f"mismatches{read}\n\n" if run_ids else ""
    return head + "\n\n".join(out) + (f"\n\n{plural(len(items), 'mismatching case')}: "
                                       f"{plural(findings, 'finding')}, "
                                       f"{len(items) - findings} known")
