"""`make nightly`: the whole job, end to end, on the default corpus (its steps and what fails
the night: docs/commands.md#pipeline-nightly). Runs go through the executor the caller gives,
else a local pool started for each problem.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from pipeline.config import CONFIG_DIR, NightlySettings, read_nightly_settings
from pipeline.corpus.generate import MANIFEST_NAME, generate
from pipeline.corpus.ingest import IngestSummary, default_roots, ingest
from pipeline.errors import UserError
from pipeline.problems import Problem, all_problems, get_problem
from pipeline.programs.contained import set_sandbox, settings_kept
from pipeline.report.compare import FindingKind, SlowdownRule, compare_runs, format_comparison
from pipeline.report.history import NIGHTLY_COMMAND, nightly_runs
from pipeline.report.load import known_wrong
from pipeline.report.mismatches import plural
from pipeline.run.executors import Executor
from pipeline.run.runner import RunRequest, RunSummary, no_case_selected, nothing_to_run, run
from pipeline.tables.results import read_run_results, read_runs, write_run
from pipeline.verdicts import FAILURES, names

if TYPE_CHECKING:
    from pipeline.problems.model import HeldSubmissions

DEFAULT_CONFIG = CONFIG_DIR / "nightly.toml"


@dataclass
class ProblemNight:
    problem: str
    run: RunSummary
    baseline: str | None
    comparison_text: str = ""
    failures: list[str] = field(default_factory=list)


@dataclass
class NightlyOutcome:
    problems: list[ProblemNight]
    ingest: IngestSummary | None
    report: Path | None
    seconds: float
    not_judged: list[str] = field(default_factory=list)  # problems no run could judge, why

    @property
    def failed(self) -> bool:
        return bool(self.not_judged) or any(p.failures for p in self.problems) or any(
            p.run.status != "finished" for p in self.problems)


def nightly_problems(settings: NightlySettings) -> list[Problem]:
    """The problems the nightly runs: those named in its config (and, with `contests`, none
    but those: `contest_problems` adds theirs), else every problem with a nightly corpus and
    every problem package registered in the data folder."""
    if settings.problems or settings.contests:
        return [get_problem(pid) for pid in settings.problems]
    return [p for p in all_problems()
            if p.runs_nightly or p.id in settings.corpus]


def contest_problems(data_dir: Path, names: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The registered problems of the contests `names` (each its name or title), in their
    problems.yaml order, and a line for each problem of theirs that is not registered (the
    night fails on it); an unknown contest is a `UserError`."""
    from pipeline.problems import recorded_contests

    recorded = recorded_contests(data_dir)
    found: list[str] = []
    refused: list[str] = []
    for name in names:
        contest = recorded.get(name) or next(
            (c for c in recorded.values() if c.title == name), None)
        if contest is None:
            known = ", ".join(f"{c.name} ({c.title})" for c in recorded.values()) or "none"
            raise UserError(f"unknown contest {name!r}; contests recorded in "
                            f"{Path(data_dir).resolve()}: {known} (`pipeline ingest "
                            "CONTEST_DIR` records one)")
        found += [entry.id for entry in contest.problems if entry.registered]
        refused += [f"contest {contest.name}: {f'{e.label} ' if e.label else ''}{e.id}: not "
                    f"registered: {e.why}" for e in contest.problems if not e.registered]
    return list(dict.fromkeys(found)), refused


def corpus_is_current(folder: Path, problem: str, recipe: str, seed: int, count: int) -> bool:
    try:
        data = json.loads((folder / MANIFEST_NAME).read_text())
    except (FileNotFoundError, ValueError):
        return False
    return (data.get("problem"), data.get("recipe"), data.get("seed"), data.get("count")) == (
        problem, recipe, seed, count)


def build_corpus(data_dir: Path, settings: NightlySettings, problems: list[Problem],
                 log: Callable[[str], None]) -> None:
    """Generate the nightly corpus of each of `problems` where it is missing or stale."""
    for problem in problems:
        expected_from = problem.reference[0] if problem.reference else "brute"
        for recipe, count in settings.corpus.get(problem.id, problem.nightly).items():
            problem.recipe(recipe)
            folder = data_dir / "raw" / problem.id / "nightly" / recipe
            if corpus_is_current(folder, problem.id, recipe, settings.seed, count):
                continue
            started = time.monotonic()
            generate(problem, recipe, count, settings.seed, folder, expected_from)
            log(f"generated {problem.id}/{recipe}: {count} cases "
                f"({time.monotonic() - started:.1f} s)")


def trusted_failures(data_dir: Path, run_id: str, problem_id: str) -> list[str]:
    """Failing verdicts of trusted solvers in a run (used when there is no baseline)."""
    problem = get_problem(problem_id)
    wrong = [s.name for s in problem.stages if not s.trusted]
    results = read_run_results(data_dir, run_id, ["solver", "verdict"])
    bad = results.filter(pl.col("verdict").is_in(names(FAILURES))
                         & ~pl.col("solver").is_in(wrong))
    counts = bad.group_by("solver", "verdict").len().sort("solver", "verdict")
    return [f"{problem_id}/{row['solver']}: {row['len']} {row['verdict']}"
            for row in counts.iter_rows(named=True)]


REMEASURE_REPEAT = 5


def slowdown_rule(settings: NightlySettings) -> SlowdownRule:
    """The nightly's slowdown thresholds (`slowdown_ratio`, `slowdown_min_ms` in its config)."""
    return {"ratio_threshold": settings.slowdown_ratio, "min_diff_ms": settings.slowdown_min_ms}


def confirmed_reasons(data_dir: Path, baseline: str, comparison,
                      log: Callable[[str], None], rule: SlowdownRule | None = None,
                      executor: Executor | None = None, sandbox: str = "auto") -> list[str]:
    """The comparison's reasons to fail, with slowdowns kept only if a re-measurement agrees:
    the flagged cases run `REMEASURE_REPEAT` times on one worker and the fastest is compared
    (noise only ever adds time). The re-measurement is stored with status `remeasure`, so it is
    never the next night's baseline."""
    failing = [f for f in comparison.findings if f.fails]
    slow = [f for f in failing if f.kind is FindingKind.SLOWDOWN]
    reasons = [f.text for f in failing if f.kind is not FindingKind.SLOWDOWN]
    if not slow:
        return reasons
    flagged = {(f.solver, case_id) for f in slow for case_id in f.case_ids}
    problem = get_problem(comparison.problem)
    request = RunRequest(
        problem=problem.id, solvers=tuple(sorted({name for name, _ in flagged})), jobs=1,
        repeat=REMEASURE_REPEAT, case_ids=tuple(sorted({c for _, c in flagged})),
        sandbox=sandbox,
        command=f"{NIGHTLY_COMMAND} (re-measuring flagged slowdowns)")
    # `executor` running one batch at a time (None: the run starts a local pool of one)
    limited = getattr(executor, "limited", None)
    with limited(1) if limited is not None else contextlib.nullcontext() as single:
        remeasured = run(data_dir, request, executor=single)
    row = read_runs(data_dir).filter(pl.col("run_id") == remeasured.run_id).row(0, named=True)
    write_run(data_dir, {**row, "status": "remeasure"})
    again = compare_runs(data_dir, baseline, remeasured.run_id, timing="min", **(rule or {}))
    confirmed = [f.text for f in again.findings if f.fails and f.kind is FindingKind.SLOWDOWN]
    log(f"{problem.id}: {len(flagged)} flagged slowdowns re-measured "
        f"({REMEASURE_REPEAT} runs each, run {remeasured.run_id}): "
        f"{'confirmed' if confirmed else 'not confirmed (noise)'}")
    return reasons + [f"{r} (confirmed by re-measuring)" for r in confirmed]


def previous_run(data_dir: Path, problem_id: str, settings: NightlySettings) -> str | None:
    """The pinned baseline, else the newest finished nightly run of the problem (a run made by
    hand in between is not a night)."""
    if pinned := settings.baseline.get(problem_id):
        return pinned
    newest = nightly_runs(data_dir, problem_id, 1)
    return newest["run_id"][0] if newest.height else None


def _phase(progress: Callable[..., None] | None,
           name: str) -> Callable[..., None] | None:
    """`progress` with the phase's name in front of its note (one callback, every phase)."""
    if progress is None:
        return None
    return lambda done, total, note="": progress(done, total, f"{name} {note}".rstrip())


def nightly(data_dir: Path, config_path: Path = DEFAULT_CONFIG, jobs: int | None = None,
            log: Callable[[str], None] = print,
            progress: Callable[..., None] | None = None,
            executor: Executor | None = None, contest: str | None = None) -> NightlyOutcome:
    """The night, every program sandboxed as its config's `sandbox` says; `contest`: the
    problems of that contest, in place of the config's problems and contests."""
    settings = read_nightly_settings(config_path)
    if contest is not None:
        settings = replace(settings, problems=(), contests=(contest,))
        contest_problems(data_dir, settings.contests)  # an unknown name: before anything runs
    with settings_kept():
        set_sandbox(settings.sandbox)
        return _night(data_dir, settings, jobs, log, progress, executor)


def _night(data_dir: Path, settings: NightlySettings, jobs: int | None,
           log: Callable[[str], None], progress: Callable[..., None] | None,
           executor: Executor | None) -> NightlyOutcome:
    from pipeline.corpus.live import refresh_registered
    from pipeline.report.html import write_report

    started = time.monotonic()
    refreshed, broken = refresh_registered(data_dir)
    for line in refreshed:
        log(line)
    problems = nightly_problems(settings)
    in_contests, refused = contest_problems(data_dir, settings.contests)
    problems += [get_problem(pid) for pid in in_contests
                 if pid not in {p.id for p in problems}]
    build_corpus(data_dir, settings, problems, log)
    summary = ingest(data_dir, default_roots(data_dir), progress=_phase(progress, "ingest"))
    if summary.rejected:
        log(f"ingest: {summary.rejected} files rejected (see the rejects table)")
    nights: list[ProblemNight] = []
    not_judged: list[str] = list(refused)
    for line in refused:
        log(line)
    for problem in problems:
        problem_id = problem.id
        try:
            idle = nothing_to_run(data_dir, problem)
        except UserError as error:  # a package holding cases none of which can be judged
            log(f"{problem_id}: not judged: {error}")
            not_judged.append(f"{problem_id}: {error}")
            continue
        if idle:  # no run is made (and none fails)
            log(f"{problem_id}: nothing to run: {idle}")
            continue
        empty = no_case_selected(data_dir, problem)
        if empty:  # no empty run is stored (it would be the baseline of the next night)
            log(f"{problem_id}: not run: {empty}")
            continue
        baseline = previous_run(data_dir, problem_id, settings)
        result = run(data_dir, RunRequest(problem=problem_id, jobs=jobs,
                                          sandbox=settings.sandbox,
                                          command=NIGHTLY_COMMAND), executor=executor,
                     progress=_phase(progress, f"run {problem_id}"))
        night = ProblemNight(problem_id, result, baseline)
        if problem_id in broken:  # its copy registered before was judged: not what is on disk
            night.failures.append(f"{broken[problem_id]}; its copy registered before was "
                                  "judged")
        night.failures.extend(f"{problem_id}/{failure.text()}" for failure in result.cannot_start)
        if result.status != "finished":
            night.failures.append(f"{problem_id}: run {result.run_id} {result.status}")
        if result.judge_failed:  # no verdict of the program: never a pass
            night.failures.append(
                f"{problem_id}: {result.judge_failed} judge error(s) (JE) in run "
                f"{result.run_id}: the judge failed, so they are no verdict (`pipeline run "
                f"--problem {problem_id} --resume {result.run_id}` judges them again)")
        elif result.expectations is not None:  # a package: its submissions' folders decide
            night.failures.extend(expectation_failures(problem_id, result.expectations))
        elif baseline:
            try:
                comparison = compare_runs(data_dir, baseline, result.run_id,
                                          **slowdown_rule(settings))
            except (KeyError, ValueError) as error:  # e.g. a pinned baseline that is gone
                night.failures.append(f"{problem_id}: cannot compare with {baseline}: {error}")
            else:
                night.comparison_text = format_comparison(comparison)
                night.failures.extend(confirmed_reasons(data_dir, baseline, comparison,
                                                        log, slowdown_rule(settings),
                                                        executor, settings.sandbox))
        else:
            night.failures.extend(trusted_failures(data_dir, result.run_id, problem_id))
        nights.append(night)
        log(f"{problem_id}: run {result.run_id} {result.status}, {result.cases} cases, "
            f"{'baseline ' + baseline if baseline else 'no baseline'}"
            f"{', FAILED' if night.failures else ''}")
    run_ids = [n.run.run_id for n in nights]
    stamp = time.strftime("%Y%m%d-%H%M%S")
    report = write_report(data_dir, run_ids, data_dir / "reports" / f"nightly-{stamp}.html",
                          slowdown_rule(settings),
                          baselines={n.run.run_id: n.baseline for n in nights}) \
        if run_ids else None  # every problem had nothing to run: no run to report on
    return NightlyOutcome(nights, summary, report, time.monotonic() - started, not_judged)


def expectation_failures(problem_id: str, found: HeldSubmissions) -> list[str]:
    """A package's submissions that got what their folder or tag does not expect, those (and
    validators) its own programs failed judging, those that agree only on part of the
    package's cases (and why its expectations could not be held, when they could not)."""
    if found.not_held:
        return [f"{problem_id}: expectations not held: {found.not_held}"]
    return [f"{problem_id}/{a.submission}: expected {a.expected}, got {a.got}"
            for a in found.disagreements] + [
        f"{problem_id}/{a.submission}: not held (judge error): expected {a.expected}, got {a.got}"
        for a in found.judge_errors] + [
        f"{problem_id}/{a.submission}: expected {a.expected}, got {a.got} on the cases judged "
        f"only: the package holds test cases that were not judged" for a in found.partial]


def failing_verdicts(night: ProblemNight) -> list[tuple[str, bool, dict[str, int]]]:
    """(solver, known wrong?, failing verdict -> count) of every solver of the night's run with
    a failing verdict (WA, RE, TLE, MLE, OLE, CE): trusted solvers first, then known-wrong
    stages, each by name."""
    failing = set(names(FAILURES))
    found = [(solver, bool(known_wrong(night.problem, solver)), bad)
             for solver, counts in night.run.verdicts.items()
             if (bad := {v: n for v, n in sorted(counts.items()) if v in failing and n})]
    return sorted(found, key=lambda item: (item[1], item[0]))


def format_outcome(outcome: NightlyOutcome) -> str:
    """The nightly's summary: per problem its cases, its solvers with failing verdicts and
    their counts (`fast WA=2`, known-wrong ones marked), its failures, and the most common
    error line of each trusted solver that had one."""
    lines = [f"nightly: {'FAILED' if outcome.failed else 'ok'} in {outcome.seconds:.0f} s"]
    lines += [f"  ! not judged: {why}" for why in outcome.not_judged]
    for night in outcome.problems:
        failing = failing_verdicts(night)
        words = "; ".join(
            f"{solver}{' (known wrong)' if wrong else ''} "
            + " ".join(f"{v}={n}" for v, n in counts.items())
            for solver, wrong, counts in failing) or "no failing verdicts"
        found = night.run.expectations
        if found is not None and not found.not_held:
            agree = sum(a.status == "agree" for a in found.agreements)
            words = f"{agree} of {len(found.agreements)} submissions got what they expect"
        lines.append(f"  {night.problem:<16} {night.run.cases:>5} cases, "
                     f"{plural(len(night.run.verdicts), 'solver')}: {words}")
        lines += [f"    ! {failure}" for failure in night.failures]
        lines += [f"    package bug: {bug.line()}" for bug in getattr(found, "bugs", ())]
        for solver, wrong, _counts in failing:
            errors = night.run.errors.get(solver)
            if errors and not wrong:
                line, count = errors.most_common(1)[0]
                lines.append(f"      {solver}: {count} x {line[:200]}")
    if outcome.report:
        lines.append(f"report: {outcome.report}")
    return "\n".join(lines)
