"""The package's own bugs, told to the setter beside the verdicts, one line each (`PackageBug`),
found after a run held the submissions to their expectations (`find_bugs`): what BAPCtools
warns of (`bt run`, `bt validate`) and a little beyond. The kinds and what each says:
docs/packages.md (Package bugs). `validator-accepts-all` feeds the input validators three
inputs invalid by construction from the first test case; it is skipped when the package has
`data/invalid_input` (those test the validators better) or no input validator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from pipeline.fsutil import scratch_folder
from pipeline.packages.expectations import (
    NOT_JUDGED,
    TimeLimit,
    bound_submissions,
    expected_to_pass,
    kattis_class,
    may_not_compile,
    verdict_at,
)
from pipeline.packages.judge import PackageBuilds, validate_case
from pipeline.packages.model import CaseResult, Package, Program, requirements_of
from pipeline.packages.runjob import BesideRun
from pipeline.verdicts import Dialect, Verdict


@dataclass(frozen=True)
class PackageBug:
    """One fault of the package itself (not of a submission), and a line saying it."""

    kind: str
    subject: str
    message: str

    def line(self) -> str:
        return f"{self.subject}: {self.message}"


def find_bugs(package: Package, judged: Mapping[str, Mapping[str, CaseResult]],
              limit: TimeLimit, problem_id: str,
              validators: Callable[[], list[PackageBug]] | None = None,
              cut_short: frozenset[str] = frozenset()) -> tuple[PackageBug, ...]:
    """The bugs the run `judged` (by name, then case) at `limit` shows, those of the test data and
    (given `validators`, as `validator_bugs_found` gives them) of the input validators; of a
    submission `cut_short` (`--fail-fast`), only whether an accepted one fails a test."""
    order = {case.name: index for index, case in enumerate(package.cases)}
    found: list[PackageBug] = []
    upper = {p.name for p in bound_submissions(package, upper=True)}
    for program in package.submissions:
        found += _conflict(program)
        results = dict(judged.get(program.name, {}))
        short = program.name in cut_short
        if short:  # the cases it was stopped before are no verdict of it
            results = {c: r for c, r in results.items() if r.verdict is not Verdict.SKIP}
        compiled = next((r for r in results.values() if r.verdict is Verdict.CE), None)
        if compiled is not None and not may_not_compile(program):
            found.append(PackageBug("compile-error", program.name, "the submission does not "
                                    f"compile: {_compiler_says(compiled.message)}"))
        if not results or any(r.verdict in NOT_JUDGED for r in results.values()):
            continue
        ranked = sorted(results.values(), key=lambda r: (order.get(r.case, len(order)), r.case))
        verdicts = [(r, kattis_class(verdict_at(r, limit.time_s))) for r in ranked]
        label = program.expectation.label if program.expectation else ""
        folder = None if short or not label else _named_by(label, ("expected folder",))
        if not short and (folder is Verdict.TLE or program.name in upper):
            found += _tle_within(program, verdicts, limit)
        if expected_to_pass(program):
            failing = [(r, v) for r, v in verdicts if v is not Verdict.AC]
            if failing:
                first, verdict = failing[0]
                more = f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""
                margin = all(v is Verdict.TLE and kattis_class(
                    verdict_at(r, limit.high_s)) is Verdict.AC for r, v in failing)
                found.append(PackageBug(
                    "accepted-fails", program.name, f"an accepted submission fails test "
                    f"{first.case} ({verdict}){more}" + (
                        f"; it passes them within the safety margin ({limit.high_s:g} s)"
                        if margin else "")))
        if folder is Verdict.WA and all(v is Verdict.AC for _, v in verdicts):
            found.append(PackageBug(
                "wrong-passes", program.name, f"a wrong_answer submission passes every test "
                f"({len(verdicts)} cases): no test catches it (`pipeline harden --problem "
                f"{problem_id} --solver {program.name}` searches for one that does)"))
    found += answer_bugs(package)
    if validators is not None:
        found += validators()
    return tuple(found)


def _compiler_says(message: str) -> str:
    """The compiler's first error line (else the message's first line), cut to a line."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    first = next((line for line in lines if "error" in line.lower()
                  and not line.startswith("the compiler exited")), lines[0] if lines else "")
    return first if len(first) <= 200 else first[:197] + "..."


def _conflict(program: Program) -> list[PackageBug]:
    """`expectation-conflict`: the `@EXPECTED_RESULTS@` line names none of its folder's verdict."""
    label = program.expectation.label if program.expectation else ""
    folder = program.name.split("/", 1)[0] if "/" in program.name else ""
    if not label.startswith("@EXPECTED_RESULTS@") or not folder:
        return []
    expected = _named_by(folder)
    named = {verdict for rule in requirements_of(program) for verdict in rule.final_any_of or ()}
    if expected is None or not named or expected in named:
        return []
    return [PackageBug("expectation-conflict", program.name, f"its folder {folder}/ expects "
                       f"{expected.value} but its line `{label}` does not: one of them is wrong "
                       "(the line decides what it is held to)")]


def _named_by(folder: str, dialects: tuple[Dialect, ...] = ("folder", "expected folder")
              ) -> Verdict | None:
    """The one verdict submission folder `folder` is named for (as the first of `dialects`
    that knows it names it: accepted/ too by default), or None."""
    for dialect in dialects:
        try:
            return Verdict.from_string(folder, dialect)
        except ValueError:
            continue
    return None


def _tle_within(program: Program, verdicts: list[tuple[CaseResult, Verdict]],
                limit: TimeLimit) -> list[PackageBug]:
    """`tle-within-limit` when no case of `program` runs out of time at the limit."""
    if any(v is Verdict.TLE or r.timed_out for r, v in verdicts):
        return []
    slowest = max((r for r, _ in verdicts), key=lambda r: r.cpu_s)
    return [PackageBug("tle-within-limit", program.name, (
        f"a time_limit_exceeded submission runs within the time limit: its slowest case "
        f"{slowest.case} takes {slowest.cpu_s:.3f} s of CPU time, "
        f"{limit.time_s - slowest.cpu_s:.3f} s under the {limit.time_s:g} s limit"))]


# Past this many files with the same fault, they are one line naming the first few.
FILES_ONE_LINE_EACH = 3


# The kinds of answer file bugs, and what the line for many files of one says.
ANSWER_BUGS = {"empty-answer": "answer files are empty",
               "missing-answer": "test inputs have no answer file: they are not judged",
               "missing-input": "answer files have no input file: they are not judged"}


def answer_bugs(package: Package) -> list[PackageBug]:
    """Empty (not interactive or multi-pass) and missing `.ans` files, and `.ans` without `.in`."""
    empty_allowed = package.type.interactive or package.type.multi_pass
    kinds = {kind: [PackageBug(kind, error.file, f"{error.message} [rule {kind}]")
                    for error in package.unjudged_cases if error.rule == kind]
             for kind in ANSWER_BUGS}
    kinds["empty-answer"] = [PackageBug("empty-answer", f"data/{case.name}.ans",
                                        "the answer file is empty") for case in package.cases
                             if case.answer_path is not None and not empty_allowed
                             and _size(case.answer_path) == 0]
    found: list[PackageBug] = []
    for kind, bugs in kinds.items():
        if len(bugs) <= FILES_ONE_LINE_EACH:
            found += bugs
            continue
        shown = ", ".join(bug.subject for bug in bugs[:FILES_ONE_LINE_EACH])
        rule = "" if kind == "empty-answer" else f" [rule {kind}]"
        found.append(PackageBug(kind, f"{len(bugs)} files", f"{ANSWER_BUGS[kind]}: {shown} and "
                                f"{len(bugs) - FILES_ONE_LINE_EACH} more{rule}"))
    return found


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def broken_inputs(text: str) -> list[tuple[str, str]]:
    """(what, text) of inputs made from a valid `text` that no correct input validator accepts."""
    body = text if text.endswith("\n") else text + "\n"
    tokens = text.split()
    found = [("the empty file", ""), ("the case with an extra token after it", body + "0\n")]
    if tokens:
        cut = text.rstrip()
        cut = cut[:len(cut) - len(tokens[-1])].rstrip()
        found.append(("the case without its last token", cut + "\n" if cut else ""))
    return found


# `validator_bugs` started beside a run, by the package's registered folder
_started: BesideRun[list[PackageBug]] = BesideRun("validator bugs")


def start_validator_bugs(folder: Path, package: Package, builds: PackageBuilds) -> None:
    """Start `validator_bugs` of the package at `folder` beside the run, once: its validators
    run while the cores have room rather than after the last case."""
    _started.start(folder, lambda: validator_bugs(package, builds))


def validator_bugs_found(folder: Path, package: Package,
                         builds: PackageBuilds) -> Callable[[], list[PackageBug]]:
    """A call that gives `validator_bugs`: the look started beside the run, or done then."""
    return _started.taken(folder, lambda: validator_bugs(package, builds))


def validator_bugs(package: Package, builds: PackageBuilds) -> list[PackageBug]:
    """`no-input-validator`, or `validator-accepts-all` on `broken_inputs` of the first case."""
    if not package.input_validators:
        return [PackageBug("no-input-validator", "input validators",
                           "the package has none: nothing checks its inputs (bt validate: "
                           "No input validators found)")]
    if any(test.kind == "invalid_input" for test in package.validator_tests):
        return []
    validators = [b for b in builds.input_validators if b.ok]
    case = next((c for c in package.cases if _size(c.input_path)), None)
    if not validators or case is None:
        return []
    try:
        text = case.input_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    accepted = []
    with scratch_folder(prefix="package-bugs-") as scratch:
        path = Path(scratch) / "broken.in"
        for what, broken in broken_inputs(text):
            path.write_text(broken, encoding="utf-8")
            result = validate_case(package, replace(builds, input_validators=tuple(validators)),
                                   replace(case, input_path=path), workdir=Path(scratch))
            if not result.valid:
                return []
            accepted.append(what)
    names = ", ".join(b.program.name for b in validators)
    return [PackageBug("validator-accepts-all", f"input validator(s) {names}",
                       f"accept every invalid input derived from test {case.name}: "
                       f"{', '.join(accepted)}; they check nothing of the input's shape")]
