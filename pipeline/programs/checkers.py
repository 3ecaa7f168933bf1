"""Answer checking: the default output validator (problemtools' `default_validator.cc` with the
same semantics), custom Kattis output validators (`validator input answer feedback_dir/ [args]
< output`: 42 AC, 43 WA, else JE; feedback never read through a link) and testlib checkers
(`checker input output answer`: 0 OK, 1 WA, 2 PE, 3 FAIL (JE), 7 points, 8 EOF, else JE).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pipeline.errors import UserError
from pipeline.fsutil import scratch_folder
from pipeline.programs.languages import Build, launch
from pipeline.programs.procs import ProcessResult, describe_failure, run_limited
from pipeline.untrusted import LeftBehind, excerpt, kind_of, read_regular
from pipeline.verdicts import Verdict

WHITESPACE = frozenset(b" \t\n\v\f\r")
MESSAGE_KEEP = 2000
# glibc's scanf also takes an exponent marker with no digits after it ("1e", "1e+", "0x1p")
_DECIMAL = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?([0-9]*))?")
_HEX = re.compile(rb"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?([0-9]*))?")
_SPACE = re.compile(rb"[ \t\n\v\f\r]*")
_TOKEN = re.compile(rb"[^ \t\n\v\f\r]*")


@dataclass(frozen=True)
class CheckResult:
    """What the answer check said about one output."""

    verdict: Verdict  # AC, WA or JE
    message: str = ""
    score: float | None = None             # score.txt, or a testlib checker's points
    score_multiplier: float | None = None  # score_multiplier.txt
    team_message: str = ""
    cpu_s: float = 0.0  # the CPU time of the program that checked it (0: checked in process)


# -- the default output validator ---------------------------------------------------------------

@dataclass(frozen=True)
class DefaultFlags:
    case_sensitive: bool = False
    space_change_sensitive: bool = False
    float_absolute_tolerance: float = -1.0
    float_relative_tolerance: float = -1.0

    @property
    def uses_floats(self) -> bool:
        return self.float_absolute_tolerance >= 0 or self.float_relative_tolerance >= 0


class FlagError(UserError):
    """The default validator was given arguments it does not know (its usage error)."""


def parse_float(token: bytes) -> float | None:
    """The token's value when the whole token is a finite C float (`sscanf("%lf")`), else None
    (inf and nan too: scanf reads them, problemtools refuses them)."""
    found = _DECIMAL.fullmatch(token) or _HEX.fullmatch(token)
    if found is None:
        return None
    if found.group(2) is not None and not found.group(3):
        token = token[:found.start(2)]  # a dangling exponent marker counts for nothing
    try:
        value = float(token) if found.re is _DECIMAL else float.fromhex(token.decode("ascii"))
    except (OverflowError, ValueError):
        return None
    return value if math.isfinite(value) else None


_TOLERANCES = {"float_absolute_tolerance": ("float_absolute_tolerance",),
               "float_relative_tolerance": ("float_relative_tolerance",),
               "float_tolerance": ("float_absolute_tolerance", "float_relative_tolerance")}


def parse_default_flags(args: tuple[str, ...] | list[str]) -> DefaultFlags:
    flags: dict[str, Any] = {}
    words = iter(args)
    for arg in words:
        if arg in ("case_sensitive", "space_change_sensitive"):
            flags[arg] = True
        elif arg in _TOLERANCES:
            following = next(words, None)
            value = parse_float(following.encode()) if following is not None else None
            if value is None:
                raise FlagError(f"{arg} needs a number after it, got "
                                f"{following if following is not None else 'nothing'!r}")
            flags.update(dict.fromkeys(_TOLERANCES[arg], value))
        else:
            raise FlagError(f"unknown argument {arg!r} for the default output validator")
    return DefaultFlags(**flags)


def _end(pattern: re.Pattern[bytes], data: bytes, at: int) -> int:
    found = pattern.match(data, at)
    assert found is not None  # (it matches the empty string too)
    return found.end()


def default_validate(answer: bytes, output: bytes,
                     args: tuple[str, ...] | list[str] = ()) -> CheckResult:
    """Check `output` against `answer` exactly as problemtools' default validator does."""
    try:
        flags = parse_default_flags(args)
    except FlagError as error:
        return CheckResult(Verdict.JE, f"default output validator: {error}")

    def wrong(at_answer: int, at_output: int, reason: str) -> CheckResult:
        team_line = output.count(b"\n", 0, at_output) + 1
        judge_line = answer.count(b"\n", 0, at_answer) + 1
        return CheckResult(Verdict.WA, f"Wrong answer on line {team_line} of output (corresponding"
                           f" to line {judge_line} in answer file)\n{reason}")

    i = j = 0
    while True:
        gap_end = _end(_SPACE, answer, i)
        if flags.space_change_sensitive:  # the output's whitespace must be the answer's
            gap, got = answer[i:gap_end], output[j:j + gap_end - i]
            if got != gap:
                at = next(k for k, c in enumerate(gap) if k >= len(got) or got[k] != c)
                d = output[j + at] if j + at < len(output) else -1
                return wrong(i + at, j + at, f"Space change error: got {d} expected {gap[at]}")
            j += len(gap)
            if j < len(output) and output[j] in WHITESPACE:
                return wrong(gap_end, j, "Space change error: judge out of space, got "
                             f"{output[j]} from user")
        else:
            j = _end(_SPACE, output, j)
        i = gap_end
        if i >= len(answer):
            break
        judge = answer[i:_end(_TOKEN, answer, i)]
        if j >= len(output):
            shown = judge.decode("latin-1")
            if not output.strip():
                what = "was empty" if not output else "contained no tokens"
                return wrong(i, j, f"User EOF while judge had more output; user output {what}."
                             f"\n(Next judge token: {shown})")
            return wrong(i, j, f"User EOF while judge had more output\n(Next judge token: {shown})")
        team = output[j:_end(_TOKEN, output, j)]
        i, j = i + len(judge), j + len(team)
        judge_value = parse_float(judge) if flags.uses_floats else None
        if judge_value is not None:
            team_value = parse_float(team)
            if team_value is None:
                return wrong(i, j, f"Expected float, got: {team.decode('latin-1')}")
            difference = abs(judge_value - team_value)
            if not (difference <= flags.float_absolute_tolerance) and \
                    not (difference <= flags.float_relative_tolerance * abs(judge_value)):
                return wrong(i, j, f"Too large difference.\n Judge: {judge.decode('latin-1')}"
                             f"\n User: {team.decode('latin-1')}\n Difference: "
                             f"{judge_value - team_value:e}\n (abs tol "
                             f"{flags.float_absolute_tolerance:e} rel tol "
                             f"{flags.float_relative_tolerance:e})")
        elif (judge != team) if flags.case_sensitive else (judge.lower() != team.lower()):
            return wrong(i, j, f'String tokens mismatch\nJudge: "{judge.decode("latin-1")}"\n'
                         f'User: "{team.decode("latin-1")}"')
    trailing = output[j:_end(_TOKEN, output, j)]
    if trailing:
        return wrong(i, j, f"Trailing output:\n{trailing.decode('latin-1')}")
    return CheckResult(Verdict.AC)


# -- custom output validators (Kattis) ----------------------------------------------------------

def _read_text(path: Path) -> str:
    """A feedback file's text ("" when absent), never read through a link the validator
    left (LeftBehind)."""
    data = read_regular(path, 128 * 1024)
    return "" if data is None else data.decode("utf-8", "replace")


def _read_number(path: Path, most: float, outside: str) -> tuple[float | None, str | None]:
    """The number from 0 to `most` a feedback file holds, or why not (`outside`: past them)."""
    text = _read_text(path).strip()
    value = parse_float(text.encode()) if text and len(text.split()) == 1 else None
    if value is None:
        return None, f"{path.name} does not hold one number: {text[:100]!r}"
    return (value, None) if 0 <= value <= most else (None, f"{path.name} {outside}")


def read_feedback(process: ProcessResult, feedback_dir: Path, what: str) -> CheckResult:
    """A Kattis output validator's exit and feedback files as a check result: JE when it left
    one of them as anything but a regular file (not read)."""
    try:
        message = _read_text(feedback_dir / "judgemessage.txt").strip()
        team_message = _read_text(feedback_dir / "teammessage.txt").strip()
        if process.exit_code not in (42, 43) or process.error:  # error: it filled its folders
            detail = message or process.output
            return CheckResult(Verdict.JE, f"{describe_failure(process, what)} (42 or 43 expected)"
                               + (f": {excerpt(detail, MESSAGE_KEEP)}" if detail else ""))
        written = [name for name in ("score.txt", "score_multiplier.txt")
                   if kind_of(feedback_dir / name) is not None]
        if process.exit_code == 43:
            if written:
                return CheckResult(Verdict.JE, f"{what} rejected the output but wrote {written[0]}")
            return CheckResult(Verdict.WA, message[:MESSAGE_KEEP], team_message=team_message)
        if len(written) == 2:
            return CheckResult(Verdict.JE, f"{what} wrote both score.txt and score_multiplier.txt")
        score = multiplier = error = None
        if written == ["score.txt"]:
            score, error = _read_number(feedback_dir / "score.txt", math.inf,
                                        "holds a negative score")
        elif written:
            multiplier, error = _read_number(feedback_dir / written[0], 1, "is outside [0, 1]")
    except LeftBehind as left:
        return CheckResult(Verdict.JE, left.left_by(what, feedback_dir))
    if error is not None:
        return CheckResult(Verdict.JE, f"{what}: {error}")
    return CheckResult(Verdict.AC, message[:MESSAGE_KEEP], score=score, score_multiplier=multiplier,
                       team_message=team_message)


def run_output_validator(validator: Build, input_path: Path, answer_path: Path,
                         output_path: Path, args: tuple[str, ...], *, time_s: float = 60.0,
                         memory_mb: int = 2048, workdir: Path | None = None,
                         feedback_dir: Path | None = None) -> CheckResult:
    """Run a custom Kattis output validator on one output (stdin) and read its verdict;
    `feedback_dir`: a feedback folder that outlives the run (a multi-pass case's)."""
    if not validator.ok:
        return _not_built(validator, "output validator")
    with scratch_folder(prefix="validate-", dir=workdir) as scratch:
        feedback = feedback_dir or scratch / "feedback"
        feedback.mkdir(exist_ok=True)
        run = launch(validator, memory_mb)
        argv = [*run.argv, str(input_path), str(answer_path), str(feedback) + "/", *args]
        done = run_limited(argv, cwd=scratch / "work", stdin=output_path, time_s=time_s,
                           memory_mb=run.memory_mb, kept=(feedback,))
        return replace(read_feedback(done, feedback, f"output validator {validator.program.name}"),
                       cpu_s=done.cpu_s)


def _not_built(build: Build, what: str) -> CheckResult:
    return CheckResult(Verdict.JE, f"{what} {build.program.name} did not build: "
                       f"{build.message[:MESSAGE_KEEP]}")


# -- testlib checkers ---------------------------------------------------------------------------

_POINTS = re.compile(r"^\s*points\s+([-+0-9.eE]+)")
# exit code -> the verdict and the start of its message (testlib's OK, WA, PE, unexpected EOF)
_TESTLIB = {0: (Verdict.AC, ""), 1: (Verdict.WA, ""), 2: (Verdict.WA, "presentation error: "),
            8: (Verdict.WA, "unexpected end of file: ")}


def testlib_verdict(process: ProcessResult, what: str) -> CheckResult:
    """Turn a testlib checker's (or interactor's) exit code and stderr into a check result."""
    message = process.stderr.strip()[:MESSAGE_KEEP]
    code = process.exit_code
    if code in _TESTLIB:
        verdict, start = _TESTLIB[code]
        return CheckResult(verdict, start + message)
    if code == 7:
        match = _POINTS.match(message)
        points = parse_float(match.group(1).encode()) if match else None
        if points is None:
            return CheckResult(Verdict.JE, f"{what} exited with 7 (points) but printed no points: "
                               f"{message!r}")
        return CheckResult(Verdict.AC, message, score=points)
    if code == 3:
        return CheckResult(Verdict.JE, f"{what} failed (FAIL, exit code 3): {message}")
    return CheckResult(Verdict.JE, f"{describe_failure(process, what)}"
                       + (f": {message}" if message else ""))


def run_testlib_checker(checker: Build, input_path: Path, output_path: Path, answer_path: Path,
                        *, time_s: float = 60.0, memory_mb: int = 2048,
                        workdir: Path | None = None) -> CheckResult:
    """Run `checker input output answer` and read testlib's verdict."""
    if not checker.ok:
        return _not_built(checker, "checker")
    with scratch_folder(prefix="check-", dir=workdir) as scratch:
        run = launch(checker, memory_mb)
        argv = [*run.argv, str(input_path), str(output_path), str(answer_path)]
        done = run_limited(argv, cwd=scratch, time_s=time_s, memory_mb=run.memory_mb)
        return replace(testlib_verdict(done, f"checker {checker.program.name}"),
                       cpu_s=done.cpu_s)
