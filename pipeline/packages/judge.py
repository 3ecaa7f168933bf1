"""Judging one submission on one test case of a package: run it, check it, score it.

1. Run it (batch: `external.run_external`, stopped just past `kill_after_s`; interactive:
   `interactive.run_exchange`; multi-pass: again on each `nextpass.in`, `_passes`).
2. Check its answer by the testlib checker, custom or default output validator.
3. Judge it at `RunLimits.time_s`, keeping what judging it at another limit takes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from pipeline.packages.expectations import NOT_JUDGED, verdict_at
from pipeline.packages.interactive import MIB, run_exchange
from pipeline.packages.model import CaseResult, Package, Program, RunLimits, TestCase
from pipeline.packages.scoring import case_score
from pipeline.packages.validate import ValidationResult, validate_input, validator_arguments
from pipeline.programs.checkers import (
    CheckResult,
    default_validate,
    read_feedback,
    run_output_validator,
    run_testlib_checker,
    testlib_verdict,
)
from pipeline.programs.contained import default_sandbox
from pipeline.programs.external import busy_message, run_external
from pipeline.programs.jobs import Job, SolverSpec
from pipeline.programs.languages import Build, build_program, launch
from pipeline.programs.procs import on_cores
from pipeline.untrusted import LeftBehind, copy_regular, excerpt, kind_of
from pipeline.verdicts import Verdict


@dataclass(frozen=True)
class PackageBuilds:
    """The package's own programs, built: what judging a submission needs besides it."""

    input_validators: tuple[Build, ...] = ()
    answer_validators: tuple[Build, ...] = ()
    output_validator: Build | None = None
    checker: Build | None = None
    interactor: Build | None = None
    generators: tuple[Build, ...] = ()
    submissions: dict[str, Build] = field(default_factory=dict)


def build_package(package: Package, cache_dir: Path, *,
                  submissions: list[str] | None = None) -> PackageBuilds:
    """Build the package's programs (submissions: all, or those named), a core's worth at once."""
    chosen = [p for p in package.submissions if submissions is None or p.name in submissions]
    programs = [*package.input_validators, *package.answer_validators, package.output_validator,
                package.checker, package.interactor, *package.generators, *chosen]
    distinct = list({id(p): p for p in programs if p is not None}.values())
    built = dict(zip(map(id, distinct), on_cores(
        lambda program: build_one(package, program, cache_dir), distinct)))
    return PackageBuilds(  # (a program the package has not: None, whose id is no program's)
        input_validators=tuple(built[id(p)] for p in package.input_validators),
        answer_validators=tuple(built[id(p)] for p in package.answer_validators),
        output_validator=built.get(id(package.output_validator)),
        checker=built.get(id(package.checker)), interactor=built.get(id(package.interactor)),
        generators=tuple(built[id(p)] for p in package.generators),
        submissions={p.name: built[id(p)] for p in chosen})


def build_one(package: Package, program: Program, cache_dir: Path) -> Build:
    """One program of the package built, under the package's compilation limits."""
    limits = package.limits
    return build_program(program, cache_dir, compile_time_s=limits.compilation_time_s,
                         compile_memory_mb=max(limits.compilation_memory_mb, 4096))


def default_limits(package: Package, time_s: float, kill_after_s: float | None = None) -> RunLimits:
    return RunLimits(time_s=time_s, memory_mb=package.limits.memory_mb,
                     output_mb=package.limits.output_mb, kill_after_s=kill_after_s)


def validate_case(package: Package, builds: PackageBuilds, case: TestCase, *,
                  workdir: Path | None = None) -> ValidationResult:
    """The package's input validators on one case's input, with the case's arguments."""
    return validate_input(builds.input_validators, case.input_path,
                          lambda name: validator_arguments(case, name),
                          time_s=package.limits.validation_time_s,
                          memory_mb=package.limits.validation_memory_mb, workdir=workdir)


def package_group(package: Package, group: str) -> str | None:
    """The package's group that `group` is: itself, or the group it ends with (a case kept
    in `found/secret/group2` belongs to `secret/group2`); None when there is none."""
    names = {c.group for c in package.cases}
    parts = group.split("/")
    return next(("/".join(parts[i:]) for i in range(len(parts))
                 if "/".join(parts[i:]) in names), None)


def case_in_group(package: Package, group: str, input_path: Path) -> TestCase:
    """A test case for an input found in `group`, with the arguments that group's cases get."""
    own = package_group(package, group)
    model = next((c for c in package.cases if c.group == own), None)
    if model is not None:  # a case of its own arguments (<name>.yaml): the one with this input
        own_args = [c for c in package.cases if c.group == own and (
            c.args, c.input_validator_args, c.input_validator_args_by_name) != (
            model.args, model.input_validator_args, model.input_validator_args_by_name)]
        if own_args:
            text = input_path.read_bytes()
            model = next((c for c in [model, *own_args] if c.input_path.read_bytes() == text),
                         model)
    if model is None:
        model = next((c for c in package.cases if not c.sample), next(iter(package.cases), None))
    if model is None:
        return TestCase(name="input", group=group, input_path=input_path, answer_path=None,
                        sample=group == "sample")
    return TestCase(name=model.name, group=model.group, input_path=input_path,
                    answer_path=None, sample=model.sample, args=model.args,
                    input_validator_args=model.input_validator_args,
                    input_validator_args_by_name=model.input_validator_args_by_name,
                    output_validator_args=model.output_validator_args)


def _skip(case: TestCase, verdict: Verdict, message: str, limits: RunLimits) -> CaseResult:
    return CaseResult(case=case.name, verdict=verdict, untimed_verdict=verdict, message=message,
                      time_limit_s=limits.time_s)


def judge_case(package: Package, submission: Build, case: TestCase, limits: RunLimits,
               workdir: Path, builds: PackageBuilds | None = None,
               isolation: SolverSpec | None = None) -> CaseResult:
    """Run `submission` on `case` and judge it by the package's rules, with the case's files
    in `workdir` (a folder of its own, made here; the caller removes it). `isolation` (an
    `--external` job's spec) gives a batch run its sandbox, stack limit and folders shown;
    else it runs in this process's sandbox."""
    builds = builds or PackageBuilds()
    if submission.verdict is not None:  # CE, SKIP
        return _skip(case, submission.verdict, submission.message, limits)
    scratch = Path(workdir)
    scratch.mkdir(parents=True, exist_ok=True)
    if package.type.interactive:
        return _interactive(package, submission, case, limits, scratch, builds)
    return _batch(package, submission, case, limits, scratch, builds, isolation)


def _finish(package: Package, case: TestCase, limits: RunLimits, ran: _Pass,
            programs_cpu_s: float | None = None, elapsed_s: float | None = None) -> CaseResult:
    """The case's result: how the run ended, judged at `limits.time_s`, and its score;
    `programs_cpu_s`: every program's CPU time the case took (default: `ran`'s and its
    judge's); `elapsed_s`: its wall time over them all (default: `ran`'s)."""
    verdict = untimed = ran.untimed
    message, check = ran.message, ran.check
    if untimed != Verdict.JE and (ran.timed_out or ran.cpu_s > limits.time_s):
        verdict = Verdict.WA if ran.validator_first_wa else Verdict.TLE
    score, score_error = case_score(package, case, verdict, check)
    if score_error and verdict == Verdict.AC:
        verdict, untimed, message = Verdict.JE, Verdict.JE, score_error
    return CaseResult(case=case.name, verdict=verdict, untimed_verdict=untimed, score=score,
                      message=message, cpu_s=ran.cpu_s, wall_s=ran.wall_s,
                      peak_rss_kb=ran.rss_kb, time_limit_s=limits.time_s,
                      timed_out=ran.timed_out, validator_first_wa=ran.validator_first_wa,
                      raw_score=check.score if check else None,
                      score_multiplier=check.score_multiplier if check else None,
                      answer=ran.answer,
                      programs_cpu_s=ran.cpu_s + ran.judge_cpu_s if programs_cpu_s is None
                      else programs_cpu_s,
                      elapsed_s=ran.wall_s if elapsed_s is None else elapsed_s)


def judged_at(package: Package, result: CaseResult, time_s: float) -> CaseResult:
    """`result`, judged at a higher limit, judged again at `time_s` as `judge_case` would
    there: verdict, score, limit (problemtools reclassifies one run the same way)."""
    if result.verdict in NOT_JUDGED or result.untimed_verdict == Verdict.JE:
        return replace(result, time_limit_s=time_s)
    try:
        case = package.case(result.case)
    except KeyError:  # a stored case that is no test case of the package: no score to redo
        case = None
    check = None
    if result.raw_score is not None or result.score_multiplier is not None:
        # a checked run's untimed verdict is AC, WA or JE
        check = CheckResult(result.untimed_verdict, result.message, result.raw_score,
                            result.score_multiplier)
    message = result.message
    over = (not result.timed_out and result.cpu_s > time_s
            and result.untimed_verdict != Verdict.TLE)
    if over and not result.validator_first_wa:
        message = f"CPU time {result.cpu_s:.3f} s, over the {time_s:g} s limit"
    if case is None:
        verdict = verdict_at(result, time_s)
        score = result.score
        if verdict != result.verdict and score is not None:
            score = 0.0 if verdict != Verdict.AC else None  # what it earns is not known here
        return replace(result, verdict=verdict, score=score, message=message,
                       time_limit_s=time_s)
    return _finish(package, case, default_limits(package, time_s), _Pass(
        result.untimed_verdict, check, message, result.cpu_s, result.wall_s, result.peak_rss_kb,
        result.timed_out, result.validator_first_wa, result.answer),
        result.programs_cpu_s or None, result.elapsed_s or None)  # (None: one rebuilt from rows)


@dataclass(frozen=True)
class _Pass:
    """How one run of the submission ended (one pass of a multi-pass case), before timing."""

    untimed: Verdict
    check: CheckResult | None
    message: str
    cpu_s: float
    wall_s: float
    rss_kb: int
    timed_out: bool
    validator_first_wa: bool = False
    answer: str | None = None
    judge_cpu_s: float = 0.0  # the CPU time of what judged it (validator, interactor, checker)


def _passes(package: Package, case: TestCase, limits: RunLimits, scratch: Path,
            run_pass) -> CaseResult:
    """Run `run_pass(input_path, feedback_dir)` once, or for a multi-pass problem again on
    each `nextpass.in` (problemtools' and BAPCtools' rules): one feedback folder over the
    passes; the case ends at the first pass not accepted or writing no `nextpass.in`; JE for
    a rejection that writes one, a pass beyond `validation_passes`, or a `nextpass.in` that is
    no regular file. The time counted is the slowest pass's; every pass's, and what judged
    each, add up to the case's `programs_cpu_s`, and the case's `elapsed_s` is all of them
    from the first pass's start to the last one's end."""
    multi_pass = package.type.multi_pass
    feedback = scratch / "feedback"
    if multi_pass:
        feedback.mkdir(exist_ok=True)
    input_path, slowest, spent, began = case.input_path, None, 0.0, time.perf_counter()
    allowed = package.limits.validation_passes if multi_pass else 1
    for number in range(1, allowed + 1):
        done = run_pass(input_path, feedback if multi_pass else None, number)
        spent += done.cpu_s + done.judge_cpu_s
        slowest = done if slowest is None else replace(
            done, cpu_s=max(slowest.cpu_s, done.cpu_s), wall_s=max(slowest.wall_s, done.wall_s),
            rss_kb=max(slowest.rss_kb, done.rss_kb))
        if number > 1 and done.message:
            slowest = replace(slowest, message=f"pass {number}: {done.message}")
        nextpass = feedback / "nextpass.in"
        if not multi_pass or kind_of(nextpass) is None:
            break
        if done.untimed != Verdict.AC:
            if done.check is not None and done.check.verdict == Verdict.WA:
                slowest = replace(slowest, untimed=Verdict.JE, check=None, message=(
                    f"pass {number}: the output validator rejected the output but wrote "
                    "nextpass.in"))
            break
        if number == allowed:
            slowest = replace(slowest, untimed=Verdict.JE, check=None, message=(
                f"the output validator wrote nextpass.in after pass {number}, but "
                f"limits.validation_passes is {allowed}: no verdict within {allowed} passes"))
            break
        input_path = scratch / f"pass-{number + 1}.in"
        try:  # (copied, never read through a link the validator left)
            copy_regular(nextpass, input_path)
        except LeftBehind as error:
            validator = package.output_validator.name if package.output_validator else ""
            slowest = replace(slowest, untimed=Verdict.JE, check=None, message=(
                f"pass {number}: " + error.left_by(f"output validator {validator}".strip(),
                                                   feedback)))
            break
        nextpass.unlink()
    assert slowest is not None  # a case has at least one pass
    return _finish(package, case, limits, slowest, spent, time.perf_counter() - began)


def _batch(package: Package, submission: Build, case: TestCase, limits: RunLimits,
           scratch: Path, builds: PackageBuilds,
           isolation: SolverSpec | None = None) -> CaseResult:
    run = launch(submission, limits.memory_mb)
    # the job's spec gives an --external program its sandbox, stack limit and folders shown
    base = isolation or SolverSpec(name=submission.program.name, kind="external",
                                   problem=package.short_name, timeout_s=0.0,
                                   stack_mb=run.stack_mb, sandbox=default_sandbox())
    spec = replace(base, timeout_s=limits.cpu_cap_s, memory_mb=run.memory_mb,
                   output_limit_bytes=limits.output_mb * MIB, argv=(*run.argv, *case.args),
                   hidden=(),
                   # Kattis-format judges (DOMjudge, BAPCtools) cut a flood of output and
                   # judge the program by its time: one writing forever is TLE, not OLE
                   truncate_output=package.format != "polygon")

    def run_pass(input_path: Path, feedback: Path | None, number: int) -> _Pass:
        try:
            text = input_path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            which = f"{case.name}.in" if number == 1 else f"pass {number}'s input (nextpass.in)"
            return _Pass(Verdict.JE, None, f"{which} is not UTF-8 text; the runner feeds text",
                         0.0, 0.0, 0, False)
        outcome = run_external(Job(key=0, solver=spec, case_id=case.name, input=text))
        cpu_s = (outcome.cpu_ms or 0.0) / 1000
        wall_s = (outcome.wall_ms or 0.0) / 1000
        rss = outcome.peak_rss_kb or 0
        if outcome.verdict is not None:  # ended before its answer was checked (TLE, ...)
            return _Pass(outcome.verdict, None, outcome.error or "", cpu_s, wall_s, rss,
                         timed_out=outcome.verdict is Verdict.TLE)
        check = _check(package, case, outcome.answer or "", scratch, builds, input_path,
                       feedback)
        return _Pass(check.verdict, check, check.message, cpu_s, wall_s, rss, False,
                     answer=outcome.answer, judge_cpu_s=check.cpu_s)

    return _passes(package, case, limits, scratch, run_pass)


def _answer_file(case: TestCase, scratch: Path) -> Path:
    """The case's answer file, or an empty one in `scratch` for a case stored without one."""
    if case.answer_path is not None:
        return case.answer_path
    empty = scratch / "no-answer.ans"
    empty.touch()
    return empty


def _check(package: Package, case: TestCase, answer_text: str, scratch: Path,
           builds: PackageBuilds, input_path: Path | None = None,
           feedback: Path | None = None) -> CheckResult:
    """The submission's answer checked by the package's checker or output validator (which
    read it from a file), else by the default output validator (in this process)."""
    answer = case.answer_path
    input_path = input_path or case.input_path
    time_s, memory = package.limits.validation_time_s, package.limits.validation_memory_mb
    args = (*package.output_validator_flags, *case.output_validator_args)
    if package.checker is None and package.output_validator is None:
        return default_validate(answer.read_bytes() if answer else b"",
                                answer_text.encode("utf-8"), args)
    output = scratch / "output"
    output.write_text(answer_text, encoding="utf-8")
    if package.checker is not None:
        if builds.checker is None:
            return CheckResult(Verdict.JE, "the package's checker was not built")
        return run_testlib_checker(builds.checker, input_path, output,
                                   _answer_file(case, scratch),
                                   time_s=time_s, memory_mb=memory, workdir=scratch)
    if builds.output_validator is None:
        return CheckResult(Verdict.JE, "the package's output validator was not built")
    return run_output_validator(builds.output_validator, input_path,
                                _answer_file(case, scratch), output,
                                args, time_s=time_s, memory_mb=memory, workdir=scratch,
                                feedback_dir=feedback)


def _interactive(package: Package, submission: Build, case: TestCase, limits: RunLimits,
                 scratch: Path, builds: PackageBuilds) -> CaseResult:
    polygon = package.interactor is not None
    judge = builds.interactor if polygon else builds.output_validator
    if judge is None or not judge.ok:
        return _skip(case, Verdict.JE, "the interactor / output validator did not build"
                     + (f": {judge.message[:500]}" if judge else ""), limits)

    return _passes(package, case, limits, scratch, partial(
        _interaction, package, submission, case, limits, scratch, builds, judge, polygon))


def _interaction(package: Package, submission: Build, case: TestCase, limits: RunLimits,
                 scratch: Path, builds: PackageBuilds, judge: Build, polygon: bool,
                 input_path: Path, kept_feedback: Path | None, number: int) -> _Pass:
    """One interactive run (one pass of a multi-pass case)."""
    feedback = kept_feedback or scratch / "feedback"
    feedback.mkdir(exist_ok=True)
    memory = package.limits.validation_memory_mb
    judge_run, run = launch(judge, memory), launch(submission, limits.memory_mb)
    if polygon:
        written = scratch / "interactor"
        written.mkdir(exist_ok=True)
        judge_argv = [*judge_run.argv, str(input_path), str(written / "interactor.out")]
        if case.answer_path is not None:
            judge_argv.append(str(case.answer_path))
    else:
        written = feedback
        args = (*package.output_validator_flags, *case.output_validator_args)
        judge_argv = [*judge_run.argv, str(input_path), str(_answer_file(case, scratch)),
                      str(feedback) + "/", *args]
    what = f"{'interactor' if polygon else 'output validator'} {judge.program.name}"
    try:
        exchange = run_exchange(
            [*run.argv, *case.args], judge_argv,
            workdir=scratch / ("run" if number == 1 else f"run-{number}"),
            submission_cpu_s=limits.cpu_cap_s, submission_memory_mb=run.memory_mb,
            output_mb=limits.output_mb, validator_cpu_s=package.limits.validation_time_s,
            validator_memory_mb=judge_run.memory_mb, kept=(written,))
    except LeftBehind as error:  # the validator writes the case's scratch folder: not the
        # pipeline's files there (a later pass's folder, its stderr files) through a link
        return _Pass(Verdict.JE, None, error.left_by(what, scratch), 0.0, 0.0, 0, False)
    sub, val = exchange.submission, exchange.validator
    ended = partial(_Pass, cpu_s=sub.cpu_s, wall_s=sub.wall_s, rss_kb=sub.peak_rss_kb,
                    timed_out=False, judge_cpu_s=val.cpu_s)
    if exchange.busy:
        return ended(Verdict.JE, None, busy_message(limits.cpu_cap_s, sub.cpu_s * 1000))
    if val.timed_out:  # still waiting when time ran out: problemtools assumes WA, not first
        check = CheckResult(Verdict.WA, f"{what} was still running when time ran out")
    else:
        check = testlib_verdict(val, what) if polygon else read_feedback(val, feedback, what)
    if check.verdict == Verdict.JE:
        return ended(Verdict.JE, None, check.message)
    if exchange.validator_first and check.verdict == Verdict.WA:
        return ended(Verdict.WA, check, check.message, timed_out=sub.timed_out,
                     validator_first_wa=True)
    if sub.timed_out and exchange.deadlock:
        return ended(Verdict.TLE, None, "the submission stopped answering: it and the validator "
                     "were both waiting for the other to write (stopped after "
                     f"{sub.wall_s:.2f} s: neither would ever have gone on)", timed_out=True)
    if sub.timed_out:
        return ended(Verdict.TLE, None, "the submission stopped answering "
                     f"(killed after {limits.wall_s:g} s)" if sub.cpu_s < limits.time_s
                     else f"killed after {limits.wall_s:g} s", timed_out=True)
    if sub.exit_code != 0:
        reason = f"signal {sub.signal}" if sub.signal else f"exit code {sub.exit_code}"
        return ended(Verdict.RE, None, f"{reason}: {excerpt(sub.stderr)}")
    if polygon and check.verdict == Verdict.AC and package.checker is not None:
        if builds.checker is None:
            return ended(Verdict.JE, None, "the checker was not built")
        check = run_testlib_checker(builds.checker, input_path, written / "interactor.out",
                                    _answer_file(case, scratch),
                                    time_s=package.limits.validation_time_s,
                                    memory_mb=memory, workdir=scratch)
        return ended(check.verdict, check, check.message, judge_cpu_s=val.cpu_s + check.cpu_s)
    return ended(check.verdict, check, check.message)
