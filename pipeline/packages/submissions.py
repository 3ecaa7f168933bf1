"""A package's submissions in a run (behind `problem.PackageProblem`), judged by its rules:

1. the time limit (`submission_judging`): `--timeout`, the package's, a recorded one, or
   derived now in the same pass that judges them (`derive_limit`);
2. their specs, run to the margin's high end so each result can be judged again there
   (problemtools' "sensitive to time limit");
3. after a run covering every test case, each submission held against its expectation and
   the validators against the invalid data (`hold_expectations`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import polars as pl

from pipeline.errors import PackageError, UserError
from pipeline.packages.bugs import PackageBug, find_bugs, validator_bugs_found
from pipeline.packages.expectations import (
    PROBE_TIME_S,
    Agreement,
    TimeLimit,
    bound_submissions,
    bounds,
    check_expectations,
    derive_time_limit,
    margins,
    on_part,
    partial_status,
    times_out_by_design,
    times_out_somewhere,
    unjudged_note,
)
from pipeline.packages.invalid import start_validator_check, validator_agreements
from pipeline.packages.judge import judged_at
from pipeline.packages.model import (
    CaseResult,
    case_result,
    requirements_of,
)
from pipeline.packages.registry import record_time_limit
from pipeline.packages.runjob import (
    LoadedPackage,
    case_name,
    outcome_of,
    package_case,
    package_cases,
)
from pipeline.problems.model import SubmissionJudging
from pipeline.programs.contained import default_sandbox, wall_cap_s
from pipeline.programs.jobs import Job, JobMap, Outcome, SolverSpec, SubmissionTime
from pipeline.progress import aligned
from pipeline.verdicts import Verdict, stops_fail_fast

# Judged results by submission, then by the package's case name.
Judged = dict[str, dict[str, CaseResult]]


def submission_specs(problem: LoadedPackage, names: tuple[str, ...], limit: TimeLimit,
                     cases: pl.DataFrame | None = None) -> list[SolverSpec]:
    """How each submission is run: judged at the limit, run to its high end. One meant to
    time out (`times_out_by_design`) runs to the high end only on the largest such case of
    `cases` and is stopped at the limit on the others: over the limit it is TLE at the high
    end too, and the largest case tells whether the margin's extra time saves it."""
    package = problem.load()
    ordered: list[tuple[str, str]] = []  # (case id, case name), the largest last
    if cases is not None and cases.height:
        by_size = cases.sort(["size", "case_id"])
        ordered = [(case_id, case_name(problem, case_id, group))
                   for case_id, group in zip(by_size["case_id"], by_size["group"])]
    # The worker is given time for the run to its high limit and the answer's check besides.
    budget = wall_cap_s(limit.high_s) + package.limits.validation_time_s
    specs = []
    for name in names:
        program = package.submission(name)
        cut, largest = False, ""
        if limit.high_s > limit.time_s and times_out_somewhere(program):
            largest = next((case_id for case_id, case in reversed(ordered)
                            if times_out_by_design(program, case)), "")
            cut = bool(largest) or times_out_by_design(program)
        time = SubmissionTime(limit.time_s, limit.high_s, limit.time_s if cut else None, largest)
        specs.append(SolverSpec(name=name, kind="submission", problem=problem.id,
                                program=program, timeout_s=budget, submission=time,
                                memory_mb=package.limits.memory_mb, sandbox=default_sandbox()))
    return specs


def submission_jobs(specs: list[SolverSpec], cases: pl.DataFrame, repeat: int,
                    done: set[tuple[str, str, int]], first_key: int = 0) -> list[Job]:
    """The jobs of `specs` on `cases` in the order to start them: the longest (`runs_long`)
    first, then the largest cases, so that no worker is left alone with a long job at the end."""
    jobs: list[Job] = []
    cases = cases.sort(["size", "case_id"], descending=[True, False])
    for case_id, text, expected, group in zip(cases["case_id"], cases["input"],
                                              cases["expected"], cases["group"]):
        for spec in specs:
            for rep in range(repeat):
                if (case_id, spec.name, rep) not in done:
                    jobs.append(Job(first_key + len(jobs), spec, case_id, text, rep,
                                    answer=expected, group=group))
    return sorted(jobs, key=lambda job: not runs_long(job))  # (stable: the largest first still)


# What a pass has judged already: each job with its outcome.
Judging = list[tuple[Job, Outcome]]


def runs_long(job: Job) -> bool:
    """Whether `job` runs to the high end where its submission is cut at the limit elsewhere."""
    time = job.solver.submission
    return time is not None and time.cut_s is not None and job.case_id == time.full_case


def holds_at(run: CaseResult, judged: TimeLimit, limit: TimeLimit) -> bool:
    """Whether `run`, judged at `judged`, holds what judging it at `limit` (not lower) would:
    the same run, or one that ended before any limit stopped it (`judged_at` judges it)."""
    if (judged.time_s, judged.high_s) == (limit.time_s, limit.high_s):
        return True
    return not run.timed_out and run.verdict not in NOT_JUDGED_AGAIN \
        and run.untimed_verdict != Verdict.TLE


# Verdicts a run judged at one limit cannot be judged again from (it never ran its course).
NOT_JUDGED_AGAIN = frozenset({Verdict.SKIP, Verdict.CE})


def derive_limit(problem: LoadedPackage, cases: pl.DataFrame, executor: JobMap,
                 others: tuple[str, ...] = (), fail_fast: bool = False
                 ) -> tuple[TimeLimit, Judging, bool]:
    """Run the lower-bound submissions at the probe limit on the cases they bound (`bounds`),
    derive the time limit from their times and record it. Returns the limit, those runs
    judged again at it (`judged_at`), and whether the limit was recorded.

    `others` are judged in the same pass at the least limit deriving can give; their runs
    that hold at the derived limit (`holds_at`) are returned judged at it, the others run again.
    `fail_fast`: a submission that failed a case is not run on its others, as BAPCtools
    stops it; a lower-bound one stopped so derives a limit that is not recorded."""
    package = problem.load()
    lower = tuple(p.name for p in bound_submissions(package))
    if not lower:
        raise UserError(f"package {problem.id} gives no time limit and has no accepted "
                        "submission to derive one from; give one with --timeout SEC")
    probe = TimeLimit(PROBE_TIME_S, PROBE_TIME_S, PROBE_TIME_S, "given", "probe")
    others = tuple(name for name in others if name not in lower)
    # the least limit `derive_time_limit` can give (a legacy package's whole second)
    least_s = 1.0 if package.format == "legacy" else package.limits.time_resolution_s
    least = TimeLimit(least_s, *margins(package, least_s), "given",
                      "the least limit deriving can give")
    # at the probe: each lower-bound submission on the cases where it bounds the limit from
    # below (`bounds`); its other cases are judged at the derived limit, after this pass
    every = submission_jobs(submission_specs(problem, lower, probe), cases, 1, set())
    programs = {program.name: program for program in package.submissions}
    deriving = every
    if any(rule.scope for name in lower if programs[name].expectation
           for rule in requirements_of(programs[name])):  # else each bounds it on all
        names = dict(zip(cases["case_id"], (case_name(problem, case_id, group) for case_id, group
                                            in zip(cases["case_id"], cases["group"]))))
        deriving = [job for job in every
                    if bounds(package, programs[job.solver.name], names[job.case_id])[0]]
    rest: list[Job] = []
    if others:
        rest = submission_jobs(submission_specs(problem, others, least, cases), cases, 1, set(),
                               len(every))
    jobs = [job for job in rest if runs_long(job)] + deriving + \
        [job for job in rest if not runs_long(job)]
    judged, ran, beside, cut_short = _derivation_pass(problem, jobs, lower, (*lower, *others),
                                                      executor, fail_fast)
    limit = derive_time_limit(package, judged)
    if cut_short:
        limit = replace(limit, how=f"{limit.how}, from the cases each ran (--fail-fast)")
    else:
        record_time_limit(problem.folder, limit.time_s, limit.how)

    def again(job: Job, outcome: Outcome) -> Outcome:
        return outcome_of(job, judged_at(package, case_result(outcome.judgement), limit.time_s))

    at_limit = {spec.name: spec for spec in submission_specs(problem, others, limit, cases)}
    return limit, [(job, again(job, outcome)) for job, outcome in ran] + [
        (replace(job, solver=at_limit[job.solver.name]), again(job, outcome))
        for job, outcome in beside
        if holds_at(case_result(outcome.judgement), least, limit)], not cut_short


def _derivation_pass(problem: LoadedPackage, jobs: list[Job], lower: tuple[str, ...],
                     names: tuple[str, ...], executor: JobMap, fail_fast: bool
                     ) -> tuple[Judged, Judging, Judging, bool]:
    """Run `jobs` (of `names`). Returns the runs of `lower` (the lower-bound submissions, each
    on the cases it derives the limit from) judged, and with their jobs; the others' runs; and
    whether one of `lower` was stopped early (`--fail-fast`)."""
    failed: set[str] = set()  # failed a case here

    def skip(job: Job) -> str | None:
        if job.solver.name in failed:
            return "not run (--fail-fast): failed a case before"
        return None

    judged: Judged = {}
    ran: Judging = []
    beside: Judging = []  # the runs of the others
    cut_short = False
    # --fail-fast: one not expected to pass runs a case at a time, none past its failure
    failing = frozenset(name for name in names
                        if not problem.expected_to_pass(name)) if fail_fast else frozenset()
    for job, outcome in executor.run(jobs, skip if fail_fast else None, one_at_a_time=failing):
        result = outcome.judgement
        if result is None:  # not run: skipped after a failure (or its worker was lost)
            cut_short = cut_short or (outcome.verdict is Verdict.SKIP and job.solver.name in lower)
        else:
            if stops_fail_fast(result.verdict):
                failed.add(job.solver.name)
            if job.solver.name in lower:
                judged.setdefault(job.solver.name, {})[result.case] = case_result(result)
                ran.append((job, outcome))
            elif result.verdict is not Verdict.SKIP:
                beside.append((job, outcome))
    return judged, ran, beside, cut_short


def judged_from_rows(problem: LoadedPackage, rows: pl.DataFrame,
                     inputs: Mapping[str, str]) -> Judged:
    """Judged results rebuilt from stored `results` rows (a resumed run's earlier part)."""
    judged: Judged = {}
    for row in rows.iter_rows(named=True):
        case = package_case(problem, inputs.get(row["case_id"], ""))
        if case is None or row["repeat"] != 0:
            continue
        verdict = Verdict(row["verdict"])
        judged.setdefault(row["solver"], {})[case.name] = CaseResult(
            case=case.name, verdict=verdict, untimed_verdict=verdict, score=row["score"],
            message=row["message"] or "", cpu_s=(row["cpu_ms"] or 0) / 1000,
            wall_s=(row["wall_ms"] or 0) / 1000, timed_out=verdict == Verdict.TLE)
    return judged


@dataclass(frozen=True)
class Expectations:
    """Every submission held against its expectation, at the time limit judged at."""

    limit: TimeLimit
    agreements: tuple[Agreement, ...]
    not_held: str | None = None    # why expectations were not held (None: they were)
    # cases the package holds that were not judged: the agreements are `partial`, never `agree`
    unjudged: tuple[PackageError, ...] = ()
    judged_cases: int | None = None  # the package's test cases the run judged (all loaded)
    bugs: tuple[PackageBug, ...] = ()  # the package's own bugs the run shows (`bugs`)

    @property
    def partial(self) -> tuple[Agreement, ...]:
        """Those that got what they expect on the cases judged, with other cases unjudged."""
        return tuple(a for a in self.agreements if a.status == "partial")

    @property
    def disagreements(self) -> tuple[Agreement, ...]:
        return tuple(a for a in self.agreements if a.status == "disagree")

    @property
    def judge_errors(self) -> tuple[Agreement, ...]:
        """Those that could not be held: the package's own programs failed judging them."""
        return tuple(a for a in self.agreements if a.status == "judge-error")

    def table(self) -> str:
        """submission -> expected -> got -> agree, one line each, then what disagrees."""
        if self.not_held:
            return f"expectations not held: {self.not_held}"
        rows = [("submission", "expected", "got", "agree")]
        for a in self.agreements:
            status = {"agree": "yes", "disagree": "NO", "partial": partial_status(
                self.unjudged)}.get(a.status, a.status)
            if a.sensitive:
                status += " (sensitive to time limit)"
            if a.with_extra_time:
                status += " (with the safety margin's extra time)"
            rows.append((a.submission, a.expected, a.got, status))
        lines = [f"time limit {self.limit.time_s:g} s: {self.limit.how}"]
        if self.unjudged:
            lines.append(f"  {unjudged_note(self.unjudged)}")
        lines += ["  " + line for line in aligned(rows)]
        for a in self.agreements:
            if a.status in ("disagree", "judge-error", "skipped"):
                for d in a.disagreements:
                    shown = f" (cases: {', '.join(d.cases)})" if d.cases else ""
                    lines.append(f"  {a.submission}: {d.rule}: {d.message}{shown}")
        if self.bugs:
            lines.append(f"  package bugs ({len(self.bugs)}):")
            lines += [f"    {bug.line()}" for bug in self.bugs]
        return "\n".join(lines)


def hold_expectations(problem: LoadedPackage, judged: Judged, names: tuple[str, ...],
                      limit: TimeLimit, cut_short: frozenset[str] = frozenset()) -> Expectations:
    package = problem.load()
    held_validators = validator_agreements(problem.folder, package, problem.builds(),
                                           problem.build_cache)
    found_validator_bugs = validator_bugs_found(problem.folder, package, problem.builds())
    if not package.cases:  # the run's cases are none of the package's: nothing to hold to
        return Expectations(limit, (), "the package has no test cases")
    # Equal inputs are one stored case: the first of them stands for all.
    names_in_package = {case.name for case in package_cases(problem).values()}
    whole = [n for n in names if n not in cut_short]  # the others ran until they failed
    covered = set.intersection(*(set(judged.get(n, {})) for n in whole)) if whole \
        else names_in_package
    if missing := names_in_package - covered:
        return Expectations(limit, (), f"the run covers {len(names_in_package - missing)} of "
                            f"the package's {len(names_in_package)} test cases")
    programs = {p.name: p for p in package.submissions}
    agreements = on_part([
        check_expectations(package, programs[name],
                           {c: r for c, r in judged.get(name, {}).items()
                            if c in names_in_package}, limit,
                           frozenset(names_in_package - set(judged.get(name, {})))
                           if name in cut_short else frozenset())
        for name in names], package.unjudged_cases)
    # the validators held to data/invalid_* and valid_output, as a submission to its folder
    agreements += held_validators()
    bugs = find_bugs(package, {n: {c: r for c, r in judged.get(n, {}).items()
                                   if c in names_in_package} for n in names},
                     limit, problem.id, found_validator_bugs, cut_short)
    return Expectations(limit, agreements, unjudged=package.unjudged_cases,
                        judged_cases=len(package.cases), bugs=bugs)


def submission_judging(problem: LoadedPackage, names: tuple[str, ...], timeout_s: float | None,
                       cases: Callable[[], pl.DataFrame], executor: JobMap,
                       holding: bool = False, fail_fast: bool = False) -> SubmissionJudging:
    """The limit `names` are judged at, their specs, a note when it was derived now, and the jobs
    deriving it judged already; `holding`: expectations held after (validators checked now)."""
    if holding:
        start_validator_check(problem.folder, problem.load(), problem.builds(),
                              problem.build_cache)
    # `--timeout`, else the package's (None: still to be derived)
    limit = problem.time_limit() if timeout_s is None else TimeLimit(
        timeout_s, *margins(problem.load(), timeout_s), "given", f"--timeout {timeout_s:g}")
    note = None
    done: Judging = []
    frame = cases()
    if limit is None:
        limit, ran, kept = derive_limit(problem, frame, executor, names if holding else (),
                                        fail_fast)
        note = f"time limit derived: {limit.how} " + (
            "(kept with the package)" if kept else
            "(not kept: a run of every case derives the one kept with the package)")
        done = [(job, outcome) for job, outcome in ran if job.solver.name in names]
    return SubmissionJudging(limit, submission_specs(problem, names, limit, frame), note, done)


def hold_submissions(problem: LoadedPackage, names: tuple[str, ...], judged: Judged,
                     earlier: pl.DataFrame, inputs: Mapping[str, str],
                     limit: TimeLimit, cut_short: frozenset[str] = frozenset()) -> Expectations:
    """Each submission held against its expectation, with `judged` and the `earlier` rows
    of a resumed run; those `cut_short` (`--fail-fast`) to the cases they ran."""
    for name, results in judged_from_rows(problem, earlier, inputs).items():
        for case, result in results.items():
            if not (name in cut_short and result.verdict is Verdict.SKIP):
                judged.setdefault(name, {}).setdefault(case, result)
    return hold_expectations(problem, judged, names, limit, cut_short)


def expectation_rows(run_id: str, problem_id: str, found: Expectations) -> list[dict]:
    return [{"run_id": run_id, "problem": problem_id, "submission": a.submission,
             "expected": a.expected, "got": a.got, "status": a.status,
             "sensitive": a.sensitive, "with_extra_time": a.with_extra_time,
             "disagreements": "; ".join(f"{d.rule}: {d.message}" for d in a.disagreements)
             or None,
             "cases": sorted({c for d in a.disagreements for c in d.cases}),
             "time_limit_s": found.limit.time_s, "time_limit_how": found.limit.how,
             "cases_judged": found.judged_cases,
             "cases_held": None if found.judged_cases is None
             else found.judged_cases + len(found.unjudged)}
            for a in found.agreements]
