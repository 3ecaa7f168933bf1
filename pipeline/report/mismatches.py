"""`pipeline mismatches`: cases whose answers disagree, smallest case first.

A case is listed when some stage's answer differs from the expected answer, or when two stages
give different answers (which also catches disagreements on cases with no expected answer).
Answers are compared token by token with the problem's own `compare`, so spacing and line
endings never count. Only rows that carry an answer take part: `SKIP`, `TLE`, `MLE`, `RE` and
`OLE` rows are left out (they are verdicts, not answers). Each listed case shows its answers
grouped, with the stages that side with each one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline.report import load
from pipeline.tables.limits import known_wrong
from pipeline.tables.runs import resolve_runs
from pipeline.verdicts import ANSWERED, names

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

    @property
    def has_expected(self) -> bool:
        return any(g.is_expected for g in self.groups)

    @property
    def wrong_stages(self) -> tuple[str, ...]:
        """Stages whose answer is not the expected one (all but the majority without one)."""
        return tuple(s for g in self.groups[1:] for s in g.stages)


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
    by_case: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    sizes: dict[tuple[str, str, str], int | None] = {}
    for run_id, problem_id, case_id, solver, answer, size in results.select(
            "run_id", "problem", "case_id", "solver", "answer", "size").iter_rows():
        key = (run_id, problem_id, case_id)
        by_case.setdefault(key, []).append((solver, answer))
        sizes.setdefault(key, size)
    info = {(row["problem"], row["case_id"]): row for row in cases.iter_rows(named=True)}
    found = []
    for key, answers in by_case.items():
        run_id, problem_id, case_id = key
        case = info.get((problem_id, case_id), {})
        groups = group_answers(problem_id, answers, case.get("expected"))
        if len(groups) < 2:
            continue
        stages = [s for s, _ in answers]
        found.append(Mismatch(
            run_id=run_id, problem=problem_id, case_id=case_id, size=sizes[key],
            source=case.get("source"), input=case.get("input"),
            expected_source=case.get("expected_source"), groups=groups,
            known_wrong=tuple(s for s in stages if known_wrong(problem_id, s))))
    found.sort(key=lambda m: (m.size is None, m.size or 0, m.problem, m.case_id, m.run_id))
    return found


def group_answers(problem_id: str, answers: Sequence[tuple[str, str]],
                  expected: str | None) -> tuple[AnswerGroup, ...]:
    """Group (solver, answer) pairs by equal answers; the expected answer's group comes first
    (present even when no stage gave it), then by number of stages, then by first stage."""
    representatives: list[str] = []
    members: list[list[str]] = []
    by_text: dict[str, int] = {}

    def place(text: str) -> int:
        if text in by_text:
            return by_text[text]
        for i, rep in enumerate(representatives):
            if load.answers_agree(problem_id, rep, text):
                by_text[text] = i
                return i
        representatives.append(text)
        members.append([])
        by_text[text] = len(representatives) - 1
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


def format_mismatches(items: Sequence[Mismatch], limit: int | None = None) -> str:
    """The mismatches as indented text blocks for the console."""
    if not items:
        return "no mismatches: every answered case agrees"
    shown = items if limit is None else items[:limit]
    blocks = []
    for m in shown:
        wrong = set(m.known_wrong)
        head = (f"{m.problem}  case {m.case_id[:12]}  size {m.size if m.size is not None else '-'}"
                f"  run {m.run_id}  source {m.source or '(not in cases)'}")
        lines = [head, "  input:"]
        lines += ["    " + line for line in cut(m.input).splitlines()]
        for group in m.groups:
            label = (f"expected ({m.expected_source or 'file'})" if group.is_expected
                     else "answer")
            stages = ", ".join(s + (" (known wrong)" if s in wrong else "")
                               for s in group.stages) or "no stage"
            answer = cut(group.answer, ANSWER_CHARS, 3).rstrip("\n").replace("\n", " / ")
            lines.append(f"  {label}: {answer}")
            lines.append(f"    <- {stages}" + (f"  [{group.difference}]"
                                                if group.difference else ""))
        blocks.append("\n".join(lines))
    tail = "" if len(shown) == len(items) else f"\n({len(items) - len(shown)} more not shown)"
    return "\n\n".join(blocks) + f"\n\n{len(items)} mismatching case" \
        f"{'s' if len(items) != 1 else ''}" + tail
