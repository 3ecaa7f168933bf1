"""Invalid test data as tests of the validators: `data/invalid_*` and `data/valid_output`.

Each `invalid_input` case must be rejected by an input validator, `invalid_answer` by an answer
validator (or the output validator), `invalid_output` by the output validator, and each
`valid_output` case accepted by it. `check_validators` reports each kind as an `Agreement`,
cached by content under `BUILD/validator-tests/` (`agreement_key`); one on which a validator
could not run is not stored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.fsutil import atomic_write_text, file_sha256, scratch_folder
from pipeline.packages.bugs import start_validator_bugs
from pipeline.packages.expectations import SHOWN_CASES, Agreement, Disagreement
from pipeline.packages.generators_yaml import digest_files
from pipeline.packages.kattis_data import KINDS
from pipeline.packages.model import Package, ValidatorTest
from pipeline.packages.runjob import BesideRun
from pipeline.packages.validate import cut, run_answer_validator, validate_input
from pipeline.programs.checkers import default_validate, run_output_validator
from pipeline.programs.contained import default_sandbox
from pipeline.programs.languages import Build, build_status
from pipeline.programs.procs import on_cores
from pipeline.verdicts import Verdict

# The code whose judging the cached agreements are: this module and the ones that run the
# validators and judge an output (its bytes are part of every key).
JUDGING_CODE = (Path(__file__), Path(__file__).with_name("validate.py"),
                Path(__file__).parents[1] / "programs" / "checkers.py")
CACHE_FOLDER = "validator-tests"  # under the package build area
CACHE_FORMAT = 1                  # of the stored file (bumped when its layout changes)


# -- holding the validators to the tests --------------------------------------------------------

def _limits(package: Package, workdir: Path) -> dict[str, Any]:
    """The limits the package's validators run under, and where, as keyword arguments."""
    return {"time_s": package.limits.validation_time_s,
            "memory_mb": package.limits.validation_memory_mb, "workdir": workdir}


@dataclass(frozen=True)
class _Outcome:
    """One test: did the validators do what it asks (None: they could not run)."""

    case: str
    right: bool | None
    message: str = ""


def _input_outcome(package: Package, inputs: tuple[Build, ...], test: ValidatorTest,
                   workdir: Path) -> _Outcome:
    case = test.case
    result = validate_input(inputs, case.input_path, lambda name: case.validator_args(name)
                            or case.validator_args(Path(name).stem), **_limits(package, workdir))
    real = [r for r in result.rejections if not r.judge_error]
    if real:
        return _Outcome(case.name, True, real[0].message)
    if result.rejections:
        return _Outcome(case.name, None, result.message)
    return _Outcome(case.name, False, "every input validator accepted it")


def _answer_outcome(package: Package, answers: tuple[Build, ...], output: Build | None,
                    test: ValidatorTest, workdir: Path) -> _Outcome:
    case = test.case
    if case.answer_path is None:
        return _Outcome(case.name, None, f"{case.name} has no .ans")
    errors = []
    for build in answers:
        rejection = run_answer_validator(build, case.input_path, case.answer_path,
                                         test.answer_validator_args, **_limits(package, workdir))
        if rejection is not None and not rejection.judge_error:
            return _Outcome(case.name, True, rejection.message)
        if rejection is not None:
            errors.append(str(rejection))
    if output is not None and not (package.type.interactive or package.type.multi_pass):
        check = run_output_validator(output, case.input_path, case.answer_path, case.answer_path,
                                     ("case_sensitive", "space_change_sensitive",
                                      *case.output_validator_args), **_limits(package, workdir))
        if check.verdict == Verdict.WA:
            return _Outcome(case.name, True, check.message)
        if check.verdict == Verdict.JE:
            errors.append(check.message)
    if errors:
        return _Outcome(case.name, None, "; ".join(errors))
    return _Outcome(case.name, False, "every answer validator accepted it")


def _output_outcome(package: Package, output: Build | None, test: ValidatorTest,
                    workdir: Path) -> _Outcome:
    case = test.case
    want_accept = test.kind == "valid_output"
    if test.output_path is None or case.answer_path is None:
        return _Outcome(case.name, None, f"{case.name} needs both a .ans and a .out")
    args = (*package.output_validator_flags, *case.output_validator_args)
    if output is not None:
        check = run_output_validator(output, case.input_path, case.answer_path,
                                     test.output_path, args, **_limits(package, workdir))
    else:
        check = default_validate(case.answer_path.read_bytes(), test.output_path.read_bytes(),
                                 args)
    if check.verdict == Verdict.JE:
        return _Outcome(case.name, None, check.message)
    accepted = check.verdict == Verdict.AC
    if accepted == want_accept:
        return _Outcome(case.name, True, check.message)
    return _Outcome(case.name, False, "the output validator " + (
        "rejected it" + (f": {check.message}" if check.message else "") if want_accept
        else "accepted it"))


def _agreement(subject: str, kind: str, outcomes: list[_Outcome]) -> Agreement:
    expected = "accept valid_output" if kind == "valid_output" else f"reject {kind}"
    wrong = [o for o in outcomes if o.right is False]
    broken = [o for o in outcomes if o.right is None]
    got = f"{sum(o.right is True for o in outcomes)} of {len(outcomes)} right"
    if wrong:
        return Agreement(subject, expected, got, "disagree", (Disagreement(
            expected, f"{len(wrong)} case(s) of {kind}: {wrong[0].message}",
            tuple(o.case for o in wrong[:SHOWN_CASES])),))
    if broken:
        return Agreement(subject, expected, got, "judge-error", tuple(
            Disagreement("judge error", cut(o.message, 500), (o.case,))
            for o in broken[:SHOWN_CASES]))
    return Agreement(subject, expected, got, "agree")


def check_validators(package: Package, builds, build_dir: Path,
                     workdir: Path | None = None) -> tuple[Agreement, ...]:
    """The package's validators held to its invalid_* and valid_output cases, one
    `Agreement` per kind present, read from the cache under `build_dir` or checked and stored."""
    if not package.validator_tests:
        return ()
    if workdir is None:
        with scratch_folder(prefix="validator-tests-") as scratch:
            return check_validators(package, builds, build_dir, Path(scratch))
    tests = package.validator_tests
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    by_kind: dict[str, tuple[ValidatorTest, ...]] = {
        kind: tuple(t for t in tests if t.kind == kind) for kind in KINDS}
    inputs = tuple(builds.input_validators)
    answers = tuple(builds.answer_validators)  # built as the package has them: its constants in
    output = builds.output_validator
    # what every kind's key holds besides its tests (worked out once, when a kind needs it)
    common = functools.cache(lambda: _common_identity(package, inputs, answers, output))

    def held(kind: str, check: Callable[[ValidatorTest], _Outcome], subject: str) -> Agreement:
        key = agreement_key(common(), kind, by_kind[kind])
        path = Path(build_dir) / CACHE_FOLDER / f"{key}.json"
        if (stored := read_agreement(path)) is not None:
            return stored
        outcomes = on_cores(check, by_kind[kind])
        found = _agreement(subject, kind, outcomes)
        # stored only when every validator ran: one that could not may run another time
        if all(o.right is not None for o in outcomes):
            write_agreement(path, found)
        return found

    name = package.output_validator.name if package.output_validator else "default"
    judges_output = not (package.type.interactive or package.type.multi_pass)
    # (kind, what is held to it, the check of one test, why it is skipped: None when it is not)
    checks = [("invalid_input", "input validators",
               lambda t: _input_outcome(package, inputs, t, workdir),
               None if inputs else "the package has no input validator"),
              ("invalid_answer", "answer validators",
               lambda t: _answer_outcome(package, answers, output, t, workdir),
               None if answers or output is not None else
               "the package has no answer validator and no custom output validator"),
              *((kind, f"output validator ({name})",
                 lambda t: _output_outcome(package, output, t, workdir), None)
                for kind in ("invalid_output", "valid_output") if judges_output)]
    return tuple(held(kind, check, subject) if why is None else Agreement(
        subject, f"reject {kind}", Verdict.SKIP, "skipped", (Disagreement(subject, why),))
        for kind, subject, check, why in checks if by_kind[kind])


# -- the agreements cached by content -----------------------------------------------------------

@functools.cache
def _judging_code() -> str:
    """A digest of the bytes of `JUDGING_CODE` (read once a process)."""
    return digest_files([(path.name, path) for path in JUDGING_CODE])


def _build_identity(build: Build | None) -> dict | None:
    """What tells one build of a validator from another; no absolute path, so a copied build
    area keeps its entries."""
    if build is None:
        return None
    return {"name": build.program.name, "convention": build.program.convention,
            "status": build_status(build.verdict), "language": build.language,
            "message": build.message,
            "build": build.directory.name if build.directory is not None else None,
            "memory_by_rlimit": build.memory_by_rlimit}


def _content(value: object) -> object:
    """`value` as JSON data, each path as its content's digest (None: nothing there)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _content(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Path):
        if value.is_file():
            return file_sha256(value).hexdigest()
        if value.is_dir():
            return sorted((str(p.relative_to(value)), file_sha256(p).hexdigest())
                          for p in value.rglob("*") if p.is_file())
        return None
    if isinstance(value, (tuple, list)):
        return [_content(v) for v in value]
    if isinstance(value, (frozenset, set)):
        return sorted(map(str, value))
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


def _common_identity(package: Package, inputs: tuple[Build, ...], answers: tuple[Build, ...],
                     output: Build | None) -> dict:
    """What every kind's agreement depends on besides its tests."""
    return {"format": CACHE_FORMAT, "code": _judging_code(),
            "inputs": [_build_identity(b) for b in inputs],
            "answers": [_build_identity(b) for b in answers],
            "output": _build_identity(output),
            "output_name": package.output_validator.name if package.output_validator else None,
            "output_flags": list(package.output_validator_flags),
            "type": _content(package.type),
            "limits": [package.limits.validation_time_s, package.limits.validation_memory_mb],
            "sandbox": default_sandbox()}


def agreement_key(common: dict, kind: str, tests: tuple[ValidatorTest, ...]) -> str:
    """The cache key of one kind's agreement: `common`, the kind and its tests' bytes."""
    text = json.dumps({"common": common, "kind": kind, "tests": [_content(t) for t in tests]},
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def write_agreement(path: Path, agreement: Agreement) -> None:
    """Store `agreement` at `path` atomically; a cache that cannot be written is no failure."""
    data = {"format": CACHE_FORMAT, "key": path.stem, "agreement": dataclasses.asdict(agreement)}
    with contextlib.suppress(OSError):
        atomic_write_text(path, json.dumps(data, indent=1) + "\n")


def _strings(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of strings")
    return tuple(value)


def read_agreement(path: Path) -> Agreement | None:
    """The agreement stored at `path`, or None when there is none, or the file is not one this
    module wrote for that key (damaged, cut short, of another format): a miss."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["format"] != CACHE_FORMAT or data["key"] != path.stem:
            return None
        found = data["agreement"]
        disagreements = tuple(Disagreement(d["rule"], d["message"], _strings(d["cases"]))
                              for d in found["disagreements"])
        agreement = Agreement(found["submission"], found["expected"], found["got"],
                              found["status"], disagreements, found["sensitive"],
                              found["with_extra_time"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    texts = (agreement.submission, agreement.expected, agreement.got, *(
        text for d in disagreements for text in (d.rule, d.message)))
    if (not all(isinstance(t, str) for t in texts) or agreement.status not in ("agree", "disagree")
            or agreement.sensitive is not None or agreement.with_extra_time is not False):
        return None
    return agreement


def disagreement_notes(agreements: tuple[Agreement, ...]) -> list[str]:
    """One line for each kind of test the validators disagree with, naming its first cases."""
    notes = []
    for agreement in agreements:
        if agreement.status == "disagree":
            cases = [c for d in agreement.disagreements for c in d.cases]
            shown = ", ".join(cases[:3]) + (f" and {len(cases) - 3} more" if len(cases) > 3
                                            else "")
            notes.append(f"{agreement.submission}: {agreement.expected}: {agreement.got}"
                         + (f": wrong on {shown}" if shown else ""))
    return notes


# -- beside a run -------------------------------------------------------------------------------
# The checks started beside a run (`start_validator_check`), by the package's registered folder.
_started: BesideRun[tuple[Agreement, ...]] = BesideRun("validators")


def start_validator_check(folder: Path, package: Package, builds, build_dir: Path) -> None:
    """Start `check_validators` of the package at `folder` on a thread beside the run (it
    only waits on contained processes), once; `validator_agreements` collects it. The
    validators' own bugs (`bugs.validator_bugs`) are looked for beside it too."""
    _started.start(folder, lambda: tuple(check_validators(package, builds, build_dir)))
    start_validator_bugs(folder, package, builds)


def validator_agreements(folder: Path, package: Package, builds,
                         build_dir: Path) -> Callable[[], tuple[Agreement, ...]]:
    """A call that gives the validators held to the invalid data: the check started beside
    the run, taken now (a later run starts its own), or the check done then."""
    return _started.taken(folder, lambda: tuple(check_validators(package, builds, build_dir)))
