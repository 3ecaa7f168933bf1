"""Running a package's input validators on an input, and turning a rejection into a record.

Kattis: `validator [input_validator_args] [args] < input`, exit 42 valid, anything else not
confirmed valid. testlib (Polygon): `validator < input`, exit 0 valid, the reason on stderr.
The validator's message is kept (about a hundred characters); an input is accepted only when
every validator accepts it. A validator that cannot run is not a verdict on the input
(`judge_error`); one whose language cannot run here (`SKIP`) is left out. Answer validators
run the same way on an answer (`run_answer_validator`; held to invalid_answers, any exit but 42
or 43 is a judge error).

`package_coverage` counts the inputs hitting each end of each variable a testlib validator's
test-overview log names (docs/commands.md, coverage).
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.fsutil import scratch_folder
from pipeline.packages.model import Package, TestCase
from pipeline.problems.model import BoundCoverage
from pipeline.programs.languages import Build, launch
from pipeline.programs.procs import describe_failure, run_limited
from pipeline.programs.program import Program
from pipeline.untrusted import LeftBehind, read_regular
from pipeline.verdicts import Verdict

MESSAGE_KEEP = 100
OVERVIEW_FLAG = "--testOverviewLogFileName"  # testlib validators: write the test overview log
OVERVIEW_LOG = "test-overview.log"           # ... to this file of their working folder
OVERVIEW_KEEP = 1024 * 1024                  # a longer log is not read
TESTLIB_SOURCES = (".cpp", ".cc", ".cxx", ".c++", ".cp", ".C", ".h", ".hpp", ".c")
TESTLIB_SCAN = 1024 * 1024                   # how much of a source is looked at for the include
TESTLIB_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*[<"]([^<>"\n]*/)?testlib\.h[>"]')


@dataclass(frozen=True)
class Rejection:
    """One validator's refusal of one input."""

    validator: str
    exit_code: int | None
    message: str               # the validator's own words, cut to ~MESSAGE_KEEP characters
    judge_error: bool = False  # the validator itself failed; the input is not judged
    checked: str = "input"     # what it validated: the input, or the answer

    def __str__(self) -> str:
        what = f"could not judge the {self.checked}" if self.judge_error else \
            f"rejected the {self.checked}"
        code = "" if self.exit_code is None else f" (exit code {self.exit_code})"
        return f"{self.checked} validator {self.validator} {what}{code}: {self.message}"


@dataclass(frozen=True)
class ValidationResult:
    """All validators' word on one input: valid when no one rejected it."""

    rejections: tuple[Rejection, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.rejections

    @property
    def message(self) -> str:
        return "; ".join(str(r) for r in self.rejections)


def cut(text: str, keep: int = MESSAGE_KEEP) -> str:
    """The message squeezed to one line of about `keep` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= keep else flat[:keep - 3] + "..."


def speaks_testlib(program: Program) -> bool:
    """Whether a validator is a testlib one (a source includes testlib.h), the only kind
    given `--testOverviewLogFileName`."""
    for path in (path for path in program.files if path.suffix in TESTLIB_SOURCES):
        with contextlib.suppress(OSError), open(path, "rb") as source:  # (unreadable: not one)
            if TESTLIB_INCLUDE.search(source.read(TESTLIB_SCAN)):
                return True
    return False


def _run_validator(validator: Build, input_path: Path, args: tuple[str, ...], *,
                   time_s: float, memory_mb: int, workdir: Path | None,
                   keep: str | None = None, checked: str = "input",
                   strict: bool = False) -> tuple[Rejection | None, str | None]:
    """Run the validator in a scratch folder under `workdir`: its rejection of what it
    `checked` (None: it accepts) and the text of the file `keep` names, which it writes there
    (a testlib validator's test-overview log; None: none, not a regular file, or over
    `OVERVIEW_KEEP` bytes). `strict`: any exit but 42 or 43 is a judge error."""
    name = validator.program.name
    if not validator.ok:
        return Rejection(name, None, cut(f"did not build: {validator.message}"),
                         judge_error=True, checked=checked), None
    kept = None
    with scratch_folder(prefix="input-validate-", dir=workdir) as scratch:
        own = validator.program.path
        if own is not None and own.is_dir():  # a program folder's files are its working directory
            shutil.copytree(own, scratch, dirs_exist_ok=True)
        if keep is not None:  # what the program writes, not a file of its folder's
            if (scratch / keep).is_dir() and not (scratch / keep).is_symlink():
                shutil.rmtree(scratch / keep, ignore_errors=True)
            else:
                (scratch / keep).unlink(missing_ok=True)
        # Sandboxed, a working folder is a private copy unless it is kept: one that keeps a
        # file is, as a generator's folder is (`generators_yaml`), within the same cap.
        run = launch(validator, memory_mb)
        done = run_limited([*run.argv, *args], cwd=scratch, stdin=input_path, time_s=time_s,
                           memory_mb=run.memory_mb,
                           kept=(scratch,) if keep is not None else ())
        # a regular file's text (never read through a link), unless longer than OVERVIEW_KEEP
        with contextlib.suppress(LeftBehind, OSError):
            data = read_regular(scratch / keep, OVERVIEW_KEEP + 1) if keep else None
            kept = None if data is None or len(data) > OVERVIEW_KEEP else data.decode(
                "utf-8", "replace")
    if done.error or done.timed_out or done.signal is not None or (
            strict and done.exit_code not in (42, 43)):
        said = describe_failure(done, "the validator") + (f": {done.output}" if done.output else "")
        expected = " (42 or 43 expected)" if strict else ""
        return Rejection(name, done.exit_code, cut(said + expected), judge_error=True,
                         checked=checked), kept
    if done.exit_code == (0 if validator.program.convention == "testlib" else 42):  # accepted
        return None, kept
    return Rejection(name, done.exit_code, cut(done.output or "no message"), checked=checked), kept


def validate_input(validators: Sequence[Build], input_path: Path, args_for=lambda name: (), *,
                   time_s: float = 60.0, memory_mb: int = 2048,
                   workdir: Path | None = None) -> ValidationResult:
    """Run every validator on the input; `args_for(name)` gives each validator's arguments."""
    return _validate(validators, lambda build: _run_validator(
        build, input_path, tuple(args_for(build.program.name)), time_s=time_s,
        memory_mb=memory_mb, workdir=workdir)[0])


def validate_answer(validators: Sequence[Build], input_path: Path, answer_path: Path, *,
                    time_s: float = 60.0, memory_mb: int = 2048,
                    workdir: Path | None = None) -> ValidationResult:
    """Every answer validator on an answer (`run_answer_validator`), any exit but 42 rejects."""
    return _validate(validators, lambda build: run_answer_validator(
        build, input_path, answer_path, strict=False, time_s=time_s, memory_mb=memory_mb,
        workdir=workdir))


def run_answer_validator(validator: Build, input_path: Path, answer_path: Path,
                         args: tuple[str, ...] = (), *, strict: bool = True, time_s: float = 60.0,
                         memory_mb: int = 2048, workdir: Path | None = None) -> Rejection | None:
    """One answer validator on an answer: None when it accepts (exit 42), else its rejection.
    Held to invalid_answers (`strict`) only 43 rejects and any other exit is a judge error."""
    return _run_validator(validator, answer_path,
                          (*answer_validator_input(validator, input_path), *args), time_s=time_s,
                          memory_mb=memory_mb, workdir=workdir, checked="answer",
                          strict=strict)[0]


def answer_validator_input(validator: Build, input_path: Path) -> tuple[str, ...]:
    """What an answer validator is given before its arguments: the input's path (BAPCtools:
    `validator input < answer`), or nothing for a checktestdata or viva one, which reads the
    answer alone (a viva one would read a path given as another file to check)."""
    return () if validator.program.language in ("checktestdata", "viva") else (str(input_path),)


def _validate(validators: Sequence[Build],
              run: Callable[[Build], Rejection | None]) -> ValidationResult:
    # a validator whose language cannot run here is left out: the package's notes say so once
    found = (run(build) for build in validators if build.verdict is not Verdict.SKIP)
    return ValidationResult(tuple(rejection for rejection in found if rejection is not None))


def validator_arguments(case: TestCase, name: str) -> tuple[str, ...]:
    """What input validator `name` gets on a case: its group's arguments (given by validator:
    by its name, else its stem), then the case's `args`."""
    args = case.validator_args(name)
    if not args and case.input_validator_args_by_name is not None:
        args = case.validator_args(Path(name).stem)
    return args + case.args


# -- constraint coverage from testlib's test-overview log ---------------------------------------

_VARIABLE = re.compile(r'^"(.*)":((?: [a-z-]+)*)\s*$')


@dataclass(frozen=True)
class VariableHit:
    """One variable of one test-overview log: whether a value read equalled each end."""

    name: str
    min_hit: bool
    max_hit: bool


def parse_overview(text: str) -> tuple[VariableHit, ...]:
    """The variables of a test-overview log, in its order (other lines read past)."""
    found = (_VARIABLE.match(line) for line in text.splitlines())  # (not a `feature ...` line)
    return tuple(VariableHit(match.group(1), "min-value-hit" in (words := match.group(2).split()),
                             "max-value-hit" in words) for match in found if match)


def package_coverage(package: Package, validators: Sequence[Build],
                     inputs: Iterable[tuple[str, str]],
                     case_for: Callable[[str, Path], TestCase]) -> tuple[BoundCoverage, ...]:
    """Per variable of the testlib input `validators` (built), how many of `inputs` ((text,
    group)) hit its lower and upper end; with several validators a row is `validator: variable`.
    The log names no values, so ranges are unknown (None); see docs/commands.md on coverage."""
    asked = [b for b in validators if b.ok and speaks_testlib(b.program)]
    if not asked:
        return ()
    low: dict[tuple[str, str], int] = {}
    high: dict[tuple[str, str], int] = {}
    with scratch_folder(prefix="package-coverage-") as scratch:
        folder = Path(scratch)
        path = folder / "input"
        for text, group in inputs:
            path.write_text(text, encoding="utf-8")
            case = case_for(group, path)
            for build in asked:
                name = build.program.name
                rejection, log = _run_validator(
                    build, path, (*validator_arguments(case, name), OVERVIEW_FLAG, OVERVIEW_LOG),
                    time_s=package.limits.validation_time_s,
                    memory_mb=package.limits.validation_memory_mb, workdir=folder,
                    keep=OVERVIEW_LOG)
                if rejection is not None or log is None:
                    continue
                for hit in parse_overview(log):
                    key = (name, hit.name)
                    low[key] = low.get(key, 0) + hit.min_hit
                    high[key] = high.get(key, 0) + hit.max_hit
    order = [b.program.name for b in asked]
    several = len(asked) > 1
    return tuple(BoundCoverage(f"{validator}: {variable}" if several else variable, None, None,
                               None, None, low[(validator, variable)],
                               high[(validator, variable)])
                 for validator, variable in sorted(low, key=lambda key: order.index(key[0])))
