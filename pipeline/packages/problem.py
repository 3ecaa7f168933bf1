"""A registered problem package as a `Problem`: the same interface as a Python problem.

A case is the input text (`TextCase`); `check_input` runs the input validators with the
group's arguments, `validate_answer` the answer validators. The solvers are the package's
submissions, judged by its own rules; the recipes are a Polygon package's generator commands;
`compare` is the default output validator with the package's flags.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.errors import InputError, UserError
from pipeline.fsutil import atomic_write_text, scratch_folder
from pipeline.packages import build_package, load_package
from pipeline.packages.expectations import (
    PROBE_TIME_S,
    TimeLimit,
    expected_to_pass,
    given_time_limit,
    margins,
    may_pass,
    unjudged_note,
)
from pipeline.packages.generators import package_recipes
from pipeline.packages.invalid import check_validators, disagreement_notes, start_validator_check
from pipeline.packages.judge import PackageBuilds, build_one, case_in_group, validate_case
from pipeline.packages.model import Package, case_result
from pipeline.packages.registry import MARKER, build_dir, read_marker
from pipeline.packages.runjob import judge_job, on_thread, start_building, submission_build
from pipeline.packages.validate import ValidationResult, package_coverage, validate_answer
from pipeline.problems.model import BoundCoverage, JudgedLimit, Problem, SubmissionJudging
from pipeline.programs.checkers import default_validate
from pipeline.programs.jobs import Job, JobMap, Judgement, Outcome
from pipeline.programs.program import Program
from pipeline.verdicts import Verdict

if TYPE_CHECKING:
    import polars as pl

    from pipeline.packages.submissions import Expectations


@dataclass(frozen=True)
class TextCase:
    """A package's test input: just its text (the package's programs read it)."""

    text: str


@dataclass(frozen=True)
class PackageProblem(Problem):
    """A `Problem` that is a registered judge package (Kattis/ICPC or Polygon)."""

    time_limit_pending: bool = False
    time_limit_how: str = ""

    def load(self) -> Package:
        return _loaded(self.folder).package

    def builds(self) -> PackageBuilds:
        return _builds(self.folder)

    @property
    def build_cache(self) -> Path:
        """Where the package's programs are built (cached by source hash)."""
        return build_dir(self.folder.parent.parent)

    def input_file(self, data_dir: Path, source: str) -> Path | None:
        """The case's file in the copy of the package the data folder keeps (a package case's
        source is the package folder's path, then the path inside it), else as any problem's."""
        parts = Path(source).parts if source and "!" not in source else ()
        package = self.folder / "package"
        for skip in range(1, len(parts)):
            if (found := package / Path(*parts[skip:])).is_file():
                return found.resolve()
        return super().input_file(data_dir, source)

    def time_limit(self) -> TimeLimit | None:
        """The time limit submissions are judged at, with its margins; None until one is derived."""
        package = self.load()
        given = given_time_limit(package)
        if given is not None or self.time_limit_pending:
            return given
        return TimeLimit(self.time_limit_s, *margins(package, self.time_limit_s), "derived",
                         self.time_limit_how)

    def add_test(self, data_dir: Path, name: str, text: str, answer: str,
                 group: str | None = None) -> tuple[Path, str | None]:
        """Write a test made by `pipeline harden` into the package's data, in its group's folder;
        return the package's folder (ingesting it registers the package again) and None."""
        source = Path(read_marker(self.folder).get("source", ""))
        if not source.is_dir():
            raise UserError(f"{source}: the package was registered from a file, not a "
                             "folder: harden writes its tests into the package's folder")
        folder = source / "data" / (group or "secret")
        if not folder.resolve().is_relative_to((source / "data").resolve()):
            raise UserError(f"test group {group!r} is not a folder of {source / 'data'}")
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / f"{name}.ans", answer)
        atomic_write_text(folder / f"{name}.in", text)
        return source, None

    @property
    def origin(self) -> str:
        return self.source

    @property
    def package_judge(self) -> PackageProblem:
        return self  # it judges its own submissions (the methods below)

    @property
    def accepts_other_answers(self) -> bool:
        return True  # its output validator or checker judges every answer

    @property
    def runs_nightly(self) -> bool:
        return True  # every package registered in the data folder

    def why_no_cases(self) -> str | None:
        """Why the package has nothing to run; a `UserError` when it holds test cases but
        none could be judged (no run, and no agreement, can come of it)."""
        package = self.load()
        if package.cases:
            return None
        if package.unjudged_cases:
            raise UserError(f"package {package.short_name} holds test cases but none can be "
                            f"judged: {unjudged_note(package.unjudged_cases)}")
        return "the package has no test cases (BAPCtools' bt run skips such a package too)"

    @property
    def interactive(self) -> bool:
        return self.load().type.interactive

    @property
    def test_groups(self) -> tuple[str, ...]:
        return tuple(group.name for group in self.load().groups)

    def reference_solutions(self, leaving_out: str) -> tuple[str, ...]:
        """Its first `main` submission, else its first accepted one."""
        return next(((s.name,) for label in ("main", "accepted") for s in self.submissions
                     if s.expected == label and s.name != leaving_out), ())

    def _submission(self, name: str) -> Program | None:
        """The package's submission `name`, or None (a stage or an external program)."""
        return next((s for s in self.submissions if s.name == name), None)

    def known_wrong(self, name: str) -> str | None:
        """A submission whose folder or tag expects it to fail: `expected to be wrong_answer`."""
        submission = self._submission(name)
        if submission is None:
            return super().known_wrong(name)
        accepted = submission.expected in (None, "accepted", "main")
        return None if accepted else f"expected to be {submission.expected}"

    def expected_to_pass(self, name: str) -> bool:
        """A submission: `expectations.expected_to_pass`; anything else as for any problem."""
        submission = self._submission(name)
        return super().expected_to_pass(name) if submission is None else \
            expected_to_pass(submission)

    def may_pass(self, name: str) -> bool:
        """A submission: `expectations.may_pass`; anything else as for any problem."""
        submission = self._submission(name)
        return super().may_pass(name) if submission is None else may_pass(submission)

    def bound_coverage(self, inputs: Iterable[tuple[str, str]]) -> tuple[BoundCoverage, ...]:
        """Constraint coverage from the testlib input validators' test-overview logs."""
        package = self.load()
        return package_coverage(package, self.builds().input_validators, inputs,
                                lambda group, path: case_in_group(package, group, path))

    def why_no_coverage(self) -> str:
        return ("no testlib input validator of the package names a variable it reads (a "
                "package's coverage comes from its testlib validators' test-overview logs, "
                "each variable read with a name as in inf.readInt(1, 100, \"n\"); validators "
                "that are not testlib ones are not asked)")

    def compare(self, expected: str, got: str) -> str | None:
        package = self.load()
        if package.output_validator is not None or package.checker is not None:
            return super().compare(expected, got)
        result = default_validate(expected.encode(), got.encode(),
                                  package.output_validator_flags)
        return None if result.verdict == Verdict.AC else (result.message or "outputs differ")

    # As the package's judge (`package_judge`); `submissions` (Polars) is imported where
    # used: a worker needs `runjob` alone.

    def judging(self, names: tuple[str, ...], timeout_s: float | None,
                cases: Callable[[], pl.DataFrame], jobs: JobMap, holding: bool = False,
                fail_fast: bool = False) -> SubmissionJudging:
        from pipeline.packages.submissions import submission_judging

        return submission_judging(self, names, timeout_s, cases, jobs, holding, fail_fast)

    def hold(self, run_id: str, names: tuple[str, ...],
             judged: Mapping[str, Mapping[str, Judgement]], earlier: pl.DataFrame,
             inputs: Mapping[str, str], limit: JudgedLimit,
             cut_short: frozenset[str] = frozenset()) -> tuple[Expectations, list[dict]]:
        from pipeline.packages.submissions import expectation_rows, hold_submissions

        assert isinstance(limit, TimeLimit)  # the limit of `judging`
        results = {name: {case: case_result(result) for case, result in by_case.items()}
                   for name, by_case in judged.items()}
        found = hold_submissions(self, names, results, earlier, inputs, limit, cut_short)
        return found, expectation_rows(run_id, self.id, found)

    def run_job(self, job: Job) -> Outcome | None:
        """A submission or external program judged on one case by the package's rules; else None."""
        if job.solver.kind == "submission" or job.solver.judged_by_problem:
            return judge_job(job, self)
        return None

    def jobs(self, judging: SubmissionJudging, cases: pl.DataFrame, repeat: int,
             done: set[tuple[str, str, int]], first_key: int) -> list[Job]:
        from pipeline.packages.submissions import submission_jobs

        return submission_jobs(judging.specs, cases, repeat, done, first_key)

    def not_runnable(self, names: tuple[str, ...]) -> str | None:
        """Why one of `names` cannot be run (no build, no toolchain); None when all can."""
        for name in names:
            build = submission_build(self, name)
            if not build.ok:  # CE or SKIP
                return (f"submission {name} cannot be run ({build.verdict}): "
                        f"{build.message.strip()[:300]}")
        return None

    def start_building(self, names: tuple[str, ...]) -> None:
        start_building(self, names)

    def start_holding(self, names: tuple[str, ...]) -> None:
        start_validator_check(self.folder, self.load(), self.builds(), self.build_cache)

    def finish_building(self) -> None:
        self.builds()

    def check_after_ingest(self) -> list[str]:
        """The validators held to the invalid data now (`invalid.check_validators`, cached
        for the runs); a note for each kind they disagree with."""
        package = self.load()
        if not package.validator_tests:  # nothing to build the validators for
            return []
        return disagreement_notes(check_validators(package, self.builds(), self.build_cache))


@dataclass
class _Loaded:
    """A registered package loaded in this process, and its own programs (not submissions)
    built: the build under way (`_start_builds`), and its input validators built alone
    (`_input_builds`), so validating inputs need not wait for the rest (a C++ output validator
    compiles meanwhile). A package loaded again starts with none of them."""

    package: Package
    digest: str                                  # of the registered files
    stamp: tuple[int, ...] | None = None         # the marker as `_loaded` last read it
    building: Future[PackageBuilds] | None = None
    builds: PackageBuilds | None = None
    input_builds: PackageBuilds | None = None


_cache: dict[Path, _Loaded] = {}
_builds_lock = threading.Lock()


def _loaded(folder: Path) -> _Loaded:
    """The package registered at `folder`, loaded again when its listing (the marker) names
    other files; the marker read again only when it is another file or was written since."""
    stamp = _marker_stamp(folder)
    cached = _cache.get(folder)
    if cached is not None and stamp is not None and cached.stamp == stamp:
        return cached
    digest = str(sorted(read_marker(folder).get("files", {}).items()))
    if cached is None or cached.digest != digest:
        cached = _cache[folder] = _Loaded(load_package(
            folder / "package", build_dir(folder.parent.parent), short_name=folder.name), digest)
    cached.stamp = stamp
    return cached


def _marker_stamp(folder: Path) -> tuple[int, ...] | None:
    """Which file the marker is and when it was written (None: it cannot be read)."""
    try:
        found = os.stat(folder / MARKER)
    except OSError:
        return None
    return found.st_ino, found.st_mtime_ns, found.st_ctime_ns, found.st_size


def _builds(folder: Path) -> PackageBuilds:
    """The package's own programs built (not submissions), once a process."""
    loaded = _loaded(folder)
    if loaded.builds is None:
        loaded.builds = _start_builds(loaded, folder).result()
    return loaded.builds


def _start_builds(loaded: _Loaded, folder: Path) -> Future[PackageBuilds]:
    """Start building the package's own programs on a thread, unless under way."""
    with _builds_lock:
        if loaded.building is None:
            loaded.building = on_thread(lambda: build_package(
                loaded.package, build_dir(folder.parent.parent), submissions=[]),
                f"build {folder.name}")
        return loaded.building


def _input_builds(folder: Path) -> PackageBuilds:
    """The package's input validators built (the rest building meanwhile)."""
    loaded = _loaded(folder)
    if loaded.builds is not None:
        return loaded.builds
    validators = loaded.input_builds
    if validators is None:
        _start_builds(loaded, folder)
        cache = build_dir(folder.parent.parent)
        validators = PackageBuilds(input_validators=tuple(
            build_one(loaded.package, program, cache)
            for program in loaded.package.input_validators))
        loaded.input_builds = validators
    return validators


def _refuse_invalid(result: ValidationResult, rule: str) -> None:
    """An `InputError` of `rule` when a validator rejected the text (`validator-error` when
    every rejection is a validator that could not judge it)."""
    if not result.valid:
        judge_error = all(r.judge_error for r in result.rejections)
        raise InputError(None, result.message, rule="validator-error" if judge_error else rule)


def package_problem(folder: Path) -> PackageProblem:
    """The `Problem` of the package registered in `folder` (`DATA/problems/<id>/`)."""
    folder = Path(folder).resolve()
    if not (folder / MARKER).is_file():
        raise FileNotFoundError(f"{folder}: no {MARKER}: not a registered package")
    package = _loaded(folder).package
    marker = read_marker(folder)
    derived = marker.get("time_limit") or {}
    time_limit = package.limits.time_s or derived.get("time_s")

    def check_input(text: str, group: str) -> TextCase:
        if not package.input_validators:
            return TextCase(text)
        builds = _input_builds(folder)
        with scratch_folder(prefix="package-input-") as scratch:
            path = Path(scratch) / "input"
            path.write_text(text, encoding="utf-8")
            result = validate_case(package, builds, case_in_group(package, group, path),
                                   workdir=Path(scratch))
        _refuse_invalid(result, "validator")
        return TextCase(text)

    def check_answer(case: TextCase, text: str) -> None:
        if not package.answer_validators:
            return
        builds = _builds(folder)
        with scratch_folder(prefix="package-answer-") as scratch:
            input_path, answer_path = Path(scratch) / "input", Path(scratch) / "answer"
            input_path.write_text(case.text, encoding="utf-8")
            answer_path.write_text(text, encoding="utf-8")
            result = validate_answer(builds.answer_validators, input_path, answer_path,
                                     time_s=package.limits.validation_time_s,
                                     memory_mb=package.limits.validation_memory_mb,
                                     workdir=Path(scratch))
        _refuse_invalid(result, "answer-validator")

    return PackageProblem(
        id=folder.name, title=package.title, source=f"{package.format} package "
        f"({marker.get('source', folder / 'package')})", folder=folder,
        time_limit_s=float(time_limit or PROBE_TIME_S), memory_mb=package.limits.memory_mb,
        parse=TextCase, render=lambda case: case.text,
        format_answer=lambda case, answer: answer, validate_answer=check_answer,
        size=lambda case: len(case.text.encode("utf-8")), size_values=lambda case: {},
        size_columns=(), size_measure="input bytes", stages=(),
        recipes=package_recipes(package, build_dir(folder.parent.parent), TextCase),
        submissions=package.submissions, check_input=check_input,
        time_limit_pending=time_limit is None,
        time_limit_how=("given by the package" if package.limits.time_s is not None
                        else derived.get("how", "")))
