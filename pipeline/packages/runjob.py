"""One job of `pipeline run` on a registered package: a submission, or an `--external`
program, judged on one stored case (the worker side: the package loaded and its programs built
once). A stored case is matched to the package's test case by its input's bytes; one not in
the package (found by `stress`) is judged as a case of its group with its stored answer.
"""

from __future__ import annotations

import itertools
import os
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from pipeline.packages.expectations import TimeLimit, times_out_by_design
from pipeline.packages.judge import (
    PackageBuilds,
    build_one,
    case_in_group,
    default_limits,
    judge_case,
)
from pipeline.packages.model import (
    CaseResult,
    Package,
    Program,
    RunLimits,
    TestCase,
    case_result,
)
from pipeline.problems.identity import case_id_of
from pipeline.programs.contained import data_folder_hidden
from pipeline.programs.external import hide_from_submissions, scratch_root
from pipeline.programs.jobs import STOPPED, Job, Outcome, SolverSpec
from pipeline.programs.languages import Build
from pipeline.programs.procs import on_cores


class LoadedPackage(Protocol):
    """A registered package as a problem (`problem.PackageProblem` is one), as a protocol: the
    run side takes it without importing the module that builds it."""

    @property
    def id(self) -> str: ...

    @property
    def folder(self) -> Path: ...

    @property
    def build_cache(self) -> Path: ...

    def load(self) -> Package: ...

    def builds(self) -> PackageBuilds: ...

    def time_limit(self) -> TimeLimit | None: ...

    def expected_to_pass(self, name: str) -> bool: ...


_submissions: dict[tuple[Path, str], Build] = {}
_judged = itertools.count()  # the jobs judged in this process (each in a folder of its own)
_cases_by_input: dict[Path, tuple[Package, dict[str, TestCase]]] = {}
# (package, submission, limit) that ran out of time at the high end in this process: TLE at
# either limit whatever their other cases do, so those are stopped at the judged limit.
_timed_out_at_high: set[tuple[Path, str, float | None]] = set()


def package_case(problem: LoadedPackage, text: str) -> TestCase | None:
    """The package's own test case whose input is `text`, or None."""
    return package_cases(problem).get(case_id_of(text))


def package_cases(problem: LoadedPackage) -> dict[str, TestCase]:
    """The package's test cases by the case id ingest stored their input under (first of equals)."""
    package = problem.load()
    known = _cases_by_input.get(problem.folder)
    if known is None or known[0] is not package:
        found: dict[str, TestCase] = {}
        for case in package.cases:
            try:
                data = case.input_path.read_bytes()
            except OSError:
                continue
            found.setdefault(case_id_of(data.decode("utf-8", errors="replace")), case)
        known = _cases_by_input[problem.folder] = (package, found)
    return known[1]


def case_name(problem: LoadedPackage, case_id: str, group: str | None) -> str:
    """The name the stored case is judged under: its package test case's, else
    `outside_name`."""
    case = package_cases(problem).get(case_id)
    return case.name if case is not None else outside_name(case_id, group)


def outside_name(case_id: str, group: str | None) -> str:
    """The name of a stored case the package does not hold: its group's and its id's."""
    return f"{group or 'secret'}/{case_id[:12]}"


def submission_build(problem: LoadedPackage, name: str) -> Build:
    """The submission `name`, built (once per process; on disk once per source hash)."""
    package = problem.load()
    key = (problem.folder, name)
    build = _submissions.get(key)
    if build is None or build.program not in package.submissions:
        # the submission alone: the package's own programs are built once a process apart
        build = _submissions[key] = build_one(package, package.submission(name),
                                              problem.build_cache)
    return build


def start_building(problem: LoadedPackage, names: tuple[str, ...]) -> None:
    """Build the submissions `names` on a daemon thread beside the run's start, a core's worth at
    once, but those whose build is under way already; a worker finds each built or waits for it
    (what a build raises, it raises again)."""
    _package_of(problem)
    with _building_lock:
        names = tuple(name for name in names if (problem.folder, name) not in _building)
        _building.update((problem.folder, name) for name in names)

    def build(name: str) -> Build:
        try:
            return submission_build(problem, name)
        finally:
            _building.discard((problem.folder, name))

    # what it raises is left in its future: the worker that runs it builds it again, and
    # says why it cannot
    if names:
        on_thread(lambda: on_cores(build, names), f"builds of {problem.id}")


_building: set[tuple[Path, str]] = set()  # (package folder, submission): a build under way
_building_lock = threading.Lock()


T = TypeVar("T")


def on_thread(work: Callable[[], T], name: str) -> Future[T]:
    """`work()` started on a daemon thread: its result, or what it raised, in the future."""
    found: Future[T] = Future()

    def run() -> None:
        try:
            found.set_result(work())
        except BaseException as error:  # raised again where the result is waited for
            found.set_exception(error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return found


class BesideRun(Generic[T]):
    """Work a run starts beside its jobs (it needs nothing they find), once per package
    folder, and takes once when it holds its expectations: `start`, then `taken`."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._started: dict[Path, Future[T]] = {}  # what each finds (or raises), once it has

    def __contains__(self, folder: Path) -> bool:
        return folder in self._started

    def start(self, folder: Path, work: Callable[[], T]) -> None:
        """Start `work` for the package at `folder` on a thread, unless it is under way."""
        if folder not in self._started:
            self._started[folder] = on_thread(work, f"{self.what} of {folder.name}")

    def taken(self, folder: Path, work: Callable[[], T]) -> Callable[[], T]:
        """A call that gives what `work` gives: the work started beside the run, taken now
        (a later run starts its own), or `work` itself, done when called."""
        started = self._started.pop(folder, None)
        return work if started is None else started.result


def _package_of(problem: LoadedPackage) -> Package:
    # what its submissions never see: the stored packages (their answers, validators) and
    # the rest of the data folder but its builds
    data_dir = problem.folder.parent.parent
    hidden: tuple[str | Path, ...] = (problem.folder.parent, *data_folder_hidden(data_dir))
    for path in hidden:
        hide_from_submissions(path)
    return problem.load()


def judge_job(job: Job, problem: LoadedPackage) -> Outcome:
    """Judge `job` on its case as an `Outcome` with the package's verdict: a submission at its
    judged limit (`SubmissionTime`), an `--external` program as the package judges its
    submissions, at the run's time and memory limits."""
    package = _package_of(problem)
    case = package_case(problem, job.input)
    spec, time = job.solver, job.solver.submission
    if spec.kind != "submission":
        build = Build(program=spec.program or Program(name=spec.name), verdict=None,
                      argv=spec.argv, language=None, message="", directory=None, cached=True,
                      memory_by_rlimit=spec.memory_mb is not None)
        return _judge(job, problem, package, case, build, RunLimits(
            time_s=spec.timeout_s, memory_mb=spec.memory_mb or package.limits.memory_mb,
            output_mb=max(1, -(-spec.output_limit_bytes // (1 << 20)))), isolation=spec)
    assert time is not None  # (`submission_specs` gives each submission its time)
    build = submission_build(problem, spec.name)
    kill_after = time.run_to_s
    if time.cut_s is not None and job.case_id != time.full_case and \
            times_out_by_design(build.program, case.name if case is not None
                                else outside_name(job.case_id, job.group)):
        kill_after = time.cut_s  # meant to time out on its case: the limit is all it needs
    settled = (problem.folder, spec.name, time.judged_s)
    if settled in _timed_out_at_high:  # TLE at the high end already: the limit is all it needs
        kill_after = min(kill_after, time.judged_s)
    # in the job's sandbox: the worker set this process's switch from it (`worker.execute`)
    outcome = _judge(job, problem, package, case, build,
                     default_limits(package, time.judged_s, kill_after))
    if (kill_after > time.judged_s and outcome.judgement is not None
            and case_result(outcome.judgement).timed_out):
        _timed_out_at_high.add(settled)
    return outcome


def _judge(job: Job, problem: LoadedPackage, package: Package, case: TestCase | None,
           build: Build, limits: RunLimits, isolation: SolverSpec | None = None) -> Outcome:
    # In the worker's own scratch folder, which goes with the worker however it ends.
    scratch = scratch_root() / f"judge-{next(_judged)}"
    scratch.mkdir()
    try:
        if case is None:  # not in the package: its group's arguments, the stored answer its answer
            input_path, answer_path = scratch / "input.in", None
            input_path.write_text(job.input, encoding="utf-8")
            if job.answer is not None:
                answer_path = scratch / "input.ans"
                answer_path.write_text(job.answer, encoding="utf-8")
            case = replace(case_in_group(package, job.group or "secret", input_path),
                           name=outside_name(job.case_id, job.group), answer_path=answer_path)
        result = judge_case(package, build, case, limits, scratch / "work", problem.builds(),
                            isolation=isolation)
    finally:
        try:  # what a batch run judged in this process leaves: two empty folders
            os.rmdir(scratch / "work")
            os.rmdir(scratch)
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)
    return outcome_of(job, result)


def outcome_of(job: Job, result: CaseResult) -> Outcome:
    """A judged run's outcome: a verdict when it was stopped (`STOPPED`), the judgement always."""
    verdict = result.verdict if result.verdict in STOPPED else None
    return Outcome(job.key, verdict, answer=result.answer,
                   wall_ms=result.wall_s * 1000, cpu_ms=result.cpu_s * 1000,
                   peak_rss_kb=result.peak_rss_kb or None,
                   error=result.message or None, judgement=result,
                   programs_cpu_ms=result.programs_cpu_s * 1000,
                   elapsed_ms=result.elapsed_s * 1000)
