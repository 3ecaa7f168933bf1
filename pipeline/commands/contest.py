"""A contest as one unit (docs/packages.md#contests): `pipeline ingest CONTEST_DIR` registers
it as its package folders and records it with each problem's outcome (`DATA/contests.json`),
`pipeline run --contest NAME` judges every problem of it on one queue of jobs (`one_queue`) and
prints one summary with the package bugs its runs showed, and `pipeline problems` lists its
problems under its name. A problem that fails to register or run never stops the others.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import cast

import typer

from pipeline.commands.common import fail, say, settle, start_executor
from pipeline.commands.options import Settings, decide_sandbox
from pipeline.errors import PackageError, UnknownName, UserError
from pipeline.progress import aligned

# -- ingest -------------------------------------------------------------------------------------


def contest_roots(roots: list[Path], data_dir: Path) -> tuple[list[Path], list, dict[Path, str]]:
    """The roots an ingest reads (each contest among `roots` replaced by its package folders),
    the contests read, and the name a contest's package folder registers as where that is not
    its folder's name (`registered_name`)."""
    from pipeline.problems import contest_at, is_package_folder

    found: list[Path] = []
    contests = []
    names: dict[Path, str] = {}
    for root in roots:
        try:
            contest = contest_at(root)
        except PackageError as error:
            fail(f"{root}: {error}", code=1)
        if contest is None:
            found.append(root)
            continue
        contests.append(contest)
        packages = [root / p.id for p in contest.problems if is_package_folder(root / p.id)]
        found += packages + [root / name for name in contest.unlisted]
        for folder in packages:
            name = registered_name(data_dir, contest.name, folder)
            if name != folder.name:
                names[folder] = name
    return found, contests, names


def registered_name(data_dir: Path, contest: str, folder: Path) -> str:
    """The problem the package folder `folder` of contest `contest` registers as: the one it
    is registered as already; else its folder's name, unless a problem of another contest
    recorded in `data_dir` holds that name: then `<contest>-<folder>`, so both are kept."""
    from pipeline.corpus.live import registered_as
    from pipeline.problems import recorded_contests

    already = registered_as(data_dir, folder)
    if already is not None:
        return already
    try:
        others = {p.id for c in recorded_contests(data_dir).values() if c.name != contest
                  for p in c.problems if p.registered}
    except UserError:
        return folder.name
    name, number = folder.name, 1
    while name in others:
        number += 1
        name = f"{contest}-{folder.name}" + (f"-{number}" if number > 2 else "")
    return name


def record_ingested(settings: Settings, contests: list, summary, wait: bool,
                    names: dict[Path, str]) -> list[str]:
    """Record each contest ingested with what became of each of its problems; returns the lines
    that say so: one per problem (registered, with its cases; or why not), then the notes.
    `names`: as `contest_roots` gives them."""
    from pipeline.problems import record_contest
    from pipeline.tables.lock import data_lock

    lines = []
    for contest in contests:
        renamed = {p.id: names[Path(contest.folder) / p.id] for p in contest.problems
                   if Path(contest.folder) / p.id in names}
        why = {p.id: _not_registered(contest.folder, p.id, summary, renamed.get(p.id))
               for p in contest.problems}
        with data_lock(settings.data_dir, wait=wait):
            recorded = record_contest(settings.data_dir, contest, why, renamed)
        refused = [p for p in recorded.problems if not p.registered]
        lines.append(f"contest {contest.name} ({contest.title}): "
                     f"{len(recorded.problems) - len(refused)} of {len(recorded.problems)} "
                     "problems registered" + (f"; NOT registered: "
                                              f"{', '.join(p.id for p in refused)}"
                                              if refused else ""))
        for problem in recorded.problems:
            label = f"{problem.label} " if problem.label else ""
            if problem.registered:
                part = summary.problems.get(problem.id)
                cases = (f": {part.found:,} inputs found, {len(part.rejects):,} rejects"
                         if part is not None else "")
                named = (f" as {problem.id} (a problem of another contest is {problem.folder})"
                         if problem.folder else "")
                lines.append(f"  {label}{problem.folder or problem.id}: registered{named}"
                             f"{cases}")
            else:
                lines.append(f"  {label}{problem.id}: NOT registered: {problem.why}")
        lines += [f"  note: {note}" for note in contest.notes]
        if recorded.python:
            lines.append(f"  note: {python_note(recorded.python)}")
        if contest.unlisted:
            lines.append(f"  note: {', '.join(contest.unlisted)}: package folder(s) that "
                         "problems.yaml does not list: ingested, not part of the contest "
                         "(bt run at the contest root skips them too)")
    return lines


def python_note(runner: str) -> str:
    """What the contest's languages.yaml runs a Python submission by, and what we run it by."""
    import platform

    from pipeline.problems import python_choice

    choice = python_choice(runner)
    if choice is not None:
        return choice.note
    return (f"the contest's languages.yaml runs a Python submission (x.py, no #! line) by "
            f"{runner}; the pipeline runs it by CPython {platform.python_version()}")


def _not_registered(folder: Path, problem_id: str, summary,
                    name: str | None = None) -> str | None:
    """Why the contest's problem `problem_id` (registering as `name`) did not register in
    this ingest (None: it did)."""
    if any(note.problem == (name or problem_id) and not note.text.startswith("note:")
           for note in summary.packages):
        return None
    for fault in summary.unplaced:
        if fault.label == problem_id or fault.label.startswith(f"{problem_id}/"):
            rule = "" if f"rule {fault.rule}" in fault.message else f" [{fault.rule}]"
            return f"{fault.message}{rule}"
    from pipeline.problems import is_package_folder

    if not is_package_folder(Path(folder) / problem_id):
        return (f"{Path(folder) / problem_id} holds no problem.yaml (Kattis) or problem.xml "
                "(Polygon): not a problem package")
    return "not registered by this ingest (see the lines above)"


# -- run ----------------------------------------------------------------------------------------

@dataclass
class ProblemOutcome:
    """What running one problem of a contest came to."""

    id: str
    label: str | None
    summary: object | None = None     # the run's `RunSummary`
    failed: str | None = None         # why it was not judged (not registered, no run made)
    idle: str | None = None           # why there was nothing to run (no test data)
    status: int = 0                   # the exit status its run earns
    rows: list[tuple[str, ...]] = field(default_factory=list)
    bugs: list[str] = field(default_factory=list)  # the package's own bugs, a line each


def find_contest(settings: Settings, name: str):
    """The contest recorded under `name` (a usage error naming the recorded ones when there
    is none)."""
    from pipeline.problems import recorded_contests

    contests = recorded_contests(settings.data_dir)
    if name in contests:
        return contests[name]
    titled = [c for c in contests.values() if c.title == name]
    if len(titled) == 1:
        return titled[0]
    known = ", ".join(f"{c.name} ({c.title})" for c in contests.values()) or "none"
    fail(f"unknown contest {name!r}; contests recorded in {Path(settings.data_dir).resolve()}: "
         f"{known} (`pipeline ingest CONTEST_DIR` records one)")


def contest_runs(settings: Settings, name: str) -> list[str]:
    """The newest finished run of each registered problem of the contest `name` (`pipeline
    report --contest`), saying on stderr which problems have none."""
    from pipeline.tables.results import latest_run_per_problem

    contest = find_contest(settings, name)
    runs = []
    for entry in contest.problems:
        if not entry.registered:
            say(f"note: {labelled(entry)}: not registered: {entry.why}", err=True)
            continue
        if newest := latest_run_per_problem(settings.data_dir, entry.id):
            runs += newest
        else:
            say(f"note: {labelled(entry)}: no finished run (`pipeline run --contest "
                f"{contest.name}` makes one)", err=True)
    if not runs:
        fail(f"contest {contest.name}: none of its problems has a finished run: run "
             f"`pipeline run --contest {contest.name}` first")
    return runs


def run_contest(settings: Settings, *, name: str, jobs: int | None, memory: int | None,
                stack: int | None, sandbox: str, repeat: int, no_wait: bool, fail_fast: bool,
                executor_kind: str, scheduler: str | None) -> None:
    """Judge every problem of the contest `name` as `pipeline run --problem P` judges it, all
    on one queue (`one_queue`), then print one summary and exit with the status it earns."""
    from pipeline.run.request import RunRequest

    contest = find_contest(settings, name)
    decide_sandbox(sandbox)  # every program of every problem's run
    if executor_kind.strip().lower() == "local":
        from pipeline.programs.contained import warm_up
        from pipeline.run.workerserver import start_server

        start_server([p.id for p in contest.problems if p.registered])
        warm_up()  # (its answer kept for the builds and the runs; the server has its own)
    from pipeline.programs import contained

    contained.hide(settings.data_dir)
    request = RunRequest(problem="", jobs=jobs, memory_mb=memory, stack_mb=stack,
                         sandbox=sandbox, repeat=repeat, wait=not no_wait, fail_fast=fail_fast,
                         command=" ".join(["pipeline", *sys.argv[1:]]))  # of every problem
    if executor_kind.strip().lower() == "local":
        start_builds(contest, request)  # on the cores Polars' loading and the ranking leave
    settle(settings.data_dir)
    outcomes = [ProblemOutcome(entry.id, entry.label) for entry in contest.problems]
    for entry, outcome in zip(contest.problems, outcomes):
        if not entry.registered:
            outcome.failed, outcome.status = f"not registered: {entry.why}", 1
    judge = functools.partial(judge_entry, settings, request, executor_kind, scheduler)
    todo = [(entry, outcome) for entry, outcome in zip(contest.problems, outcomes)
            if entry.registered]
    if len(todo) > 1:
        one_queue(settings, todo, judge, jobs, executor_kind, scheduler)
    else:
        for entry, outcome in todo:  # (one at most)
            say(f"== {labelled(entry)}")
            problem_ended(settings, entry, outcome, judge(entry, outcome, None), header=False)
    say(format_contest(contest, outcomes))
    if contest.python:
        say(f"note: {python_note(contest.python)}")
    codes = [o.status for o in outcomes]
    code = 130 if 130 in codes else max(codes, default=0)
    if code:
        raise typer.Exit(code)


def start_builds(contest, request) -> None:
    """Start building the submissions each registered problem's run will judge, as its run's
    start does (`judge_problem`), before the contest's runs start; a problem that cannot be
    loaded is left to its run, which says why."""
    from pipeline.problems import get_problem
    from pipeline.run.request import select_solvers

    for entry in contest.problems:
        if not entry.registered:
            continue
        try:
            problem = get_problem(entry.id)
            judge = problem.package_judge
            selection = select_solvers(problem, replace(request, problem=entry.id))
        except (UnknownName, UserError, PackageError, OSError):
            continue
        if judge is not None and selection.submissions:
            judge.start_building(selection.submissions)


def labelled(entry) -> str:
    """A contest's problem as its summaries name it: its label (if any), then its id."""
    return f"{entry.label} {entry.id}" if entry.label else entry.id


def judge_entry(settings: Settings, request, executor_kind: str, scheduler: str | None, entry,
                outcome: ProblemOutcome, shared) -> list[tuple[str, bool]]:
    """Judge the contest's problem `entry` as `request` asks (on `shared`, the contest's queue,
    when given), its outcome into `outcome`; returns the lines that say how it went, each with
    whether it goes to stderr."""
    from pipeline.commands.running import NoCaseSelected, judge_problem
    from pipeline.problems import get_problem
    from pipeline.programs.languages import BuildError
    from pipeline.run.executors import ExecutorError
    from pipeline.run.request import select_solvers
    from pipeline.run.runner import format_summary

    request = replace(request, problem=entry.id)
    try:
        problem = get_problem(entry.id)
        selection = select_solvers(problem, request)
        result = judge_problem(settings, problem, request, selection, executor_kind=executor_kind,
                               scheduler=scheduler, jobs=request.jobs,
                               shared=None if shared is None else shared.lane(problem.id))
    except (NoCaseSelected, BuildError, ExecutorError, UnknownName, UserError) as error:
        outcome.failed, outcome.status = f"not run: {error}", 1
        return [(f"{entry.id}: not run: {error}", True)]
    if isinstance(result, str):
        outcome.idle = result
        return [(f"{entry.id}: nothing to run: {result}", False)]
    outcome.summary = result
    outcome.rows = _rows(result)
    outcome.bugs = [bug.line() for bug in getattr(result.expectations, "bugs", ())]
    return [(format_summary(result), False)]


def problem_ended(settings: Settings, entry, outcome: ProblemOutcome,
                  lines: list[tuple[str, bool]], header: bool = True) -> None:
    """Print how the contest's problem `entry` went (`lines`, from `judge_entry`; after its
    name unless `header` is False) and how to finish its run when it was interrupted."""
    from pipeline.commands.running import exit_status, resume_command

    if header:
        say(f"== {labelled(entry)}")
    for line, err in lines:
        say(line, err=err)
    result = outcome.summary
    if result is None:
        return
    outcome.status = exit_status(result)
    if result.status == "interrupted":  # type: ignore[attr-defined]
        say(f"to finish it: {resume_command(settings, entry.id, result.run_id)}")  # type: ignore[attr-defined]


def work_ranks(settings: Settings, problem_ids: list[str]) -> dict[str, int]:
    """Each problem's place in the contest's queue: the most work (test cases x submissions x
    time limit, 1 s when it is to be derived) first, the others fill the cores around it."""
    from pipeline.problems import get_problem
    from pipeline.run.runner import load_cases

    work: dict[str, float] = {}
    for problem_id in problem_ids:
        try:
            problem = get_problem(problem_id)
            cases = load_cases(settings.data_dir, problem_id, None).height
            judge = problem.package_judge
            package = judge.problem.load() if judge is not None else None  # type: ignore
            submissions = len(package.submissions) if package is not None else 1
            limit = (package.limits.time_s if package is not None else None) or 1.0
        except (UnknownName, UserError, PackageError, OSError, AttributeError):
            cases, submissions, limit = 0, 0, 0.0  # its run says what is wrong
        work[problem_id] = cases * submissions * limit
    order = sorted(problem_ids, key=lambda p: -work[p])
    return {problem_id: rank for rank, problem_id in enumerate(order)}


# Problems of a contest whose runs are under way at once: per core, and at most: enough that
# the cores have work while some wait on their limit's derivation or run a failing submission
# one case at a time, few enough that their builds (each run builds its submissions a core's
# worth at once) do not crowd the machine.
PROBLEMS_PER_CORE = 2
MOST_PROBLEMS_AT_ONCE = 8


def one_queue(settings: Settings, todo: list, judge, jobs: int | None,
              executor_kind: str = "local", scheduler: str | None = None) -> None:
    """Judge the problems `todo` ((entry, outcome) pairs), each on a thread of its own
    (`judge(entry, outcome, shared)` gives its lines), their jobs on one pool or cluster
    (`run.queue.ContestQueue`), the most work first, a few per core at once; each problem's
    lines printed in the contest's order. Ctrl-C stops every run and starts no other."""
    import os
    from concurrent.futures import ThreadPoolExecutor, wait

    from pipeline.run.queue import ContestQueue, Shared

    ranks = work_ranks(settings, [entry.id for entry, _ in todo])
    shared = ContestQueue(cast(Shared, start_executor(executor_kind, scheduler, jobs)), ranks)

    def work(entry, outcome) -> list[tuple[str, bool]]:
        try:
            return judge(entry, outcome, shared)
        except BaseException as error:  # said, never lost on a thread
            outcome.failed, outcome.status = f"not run: {error!r}", 1
            return [(f"{entry.id}: not run: {error!r}", True)]

    threads = ThreadPoolExecutor(max(2, min(PROBLEMS_PER_CORE * (os.cpu_count() or 1),
                                            MOST_PROBLEMS_AT_ONCE)),
                                 thread_name_prefix="gamebench-contest")
    said = {entry.id: threads.submit(work, entry, outcome)  # started in the order of `ranks`
            for entry, outcome in sorted(todo, key=lambda pair: ranks[pair[0].id])}
    printed = 0
    try:
        for entry, outcome in todo:
            while not said[entry.id].done():  # (waits that end: Ctrl-C is taken between them)
                wait([said[entry.id]], timeout=0.5)
            problem_ended(settings, entry, outcome, said[entry.id].result())
            printed += 1
    except KeyboardInterrupt:  # every run under way stops (interrupted), no other starts
        threads.shutdown(wait=False, cancel_futures=True)
        shared.interrupt()
        threads.shutdown()
        for entry, outcome in todo[printed:]:
            if not said[entry.id].cancelled():
                problem_ended(settings, entry, outcome, said[entry.id].result())
    finally:
        shared.close()


def _rows(summary) -> list[tuple[str, ...]]:
    """submission, expected, got, time, agree: one row per submission held."""
    held = summary.expectations
    if held is None or held.not_held:
        return []
    rows: list[tuple[str, ...]] = []
    partial = ", on the judged cases only" if getattr(held, "unjudged", ()) else ""
    for a in held.agreements:
        slow = summary.slowest.get(a.submission)
        time = ("-" if slow is None else f"{slow[0] / 1000:.3f} s" if slow[0] is not None
                else f"{slow[1] / 1000:.3f} s wall")
        status = {"agree": "yes" + partial, "disagree": "NO"}.get(a.status, a.status)
        if a.sensitive:
            status += " (sensitive to time limit)"
        if a.with_extra_time:
            status += " (with the safety margin's extra time)"
        rows.append((a.submission, a.expected, a.got, time, status))
    return rows


def format_contest(contest, outcomes: list[ProblemOutcome]) -> str:
    """The contest's summary: per problem its submissions (expected, got, time, agree), or
    why it was not judged; then the totals."""
    header = ("problem", "submission", "expected", "got", "time", "agree")
    rows: list[tuple[str, ...]] = [header]
    statuses: list[str] = []  # of the submissions in `rows` (their text says more)
    notes = []
    for o in outcomes:
        name = labelled(o)
        if o.failed or o.idle or o.summary is None:  # no rows: why
            why = o.failed or (f"nothing to run: {o.idle}" if o.idle
                               else "not run (the contest's run was interrupted before it)")
            notes.append(f"{name}: {why}")
            continue
        held = o.summary.expectations  # type: ignore[attr-defined]
        if held is not None and held.not_held:
            notes.append(f"{name}: expectations not held: {held.not_held}")
        if unjudged := getattr(held, "unjudged", ()):
            rules = sorted({error.rule for error in unjudged})
            notes.append(f"{name}: {len(unjudged)} test case(s) the package holds were not "
                         f"judged (rule {', '.join(rules)}; see its run above)")
        if o.summary.status != "finished":  # type: ignore[attr-defined]
            notes.append(f"{name}: run {o.summary.status}")  # type: ignore[attr-defined]
        rows += [(name, *row) for row in o.rows]
        if o.rows:
            statuses += [a.status for a in held.agreements]  # (`_rows`' own)
    submissions = rows[1:]
    agree, disagree, partial = (statuses.count(s) for s in ("agree", "disagree", "partial"))
    other = len(submissions) - agree - disagree - partial
    interrupted = sum(getattr(o.summary, "status", None) == "interrupted" for o in outcomes)
    judged = sum(1 for o in outcomes if o.summary is not None) - interrupted
    not_judged = sum(1 for o in outcomes if o.failed or (o.summary is None and not o.idle))
    lines = [f"contest {contest.name} ({contest.title}): {len(outcomes)} problems"]
    if len(rows) > 1:
        lines += ["  " + line for line in aligned(rows)]
    lines += [f"  {note}" for note in notes]
    bugs = [(o, line) for o in outcomes for line in o.bugs]
    if bugs:
        lines.append(f"  package bugs ({len(bugs)}):")
        lines += [f"    {labelled(o)}: {line}" for o, line in bugs]
    idle = len(outcomes) - judged - interrupted - not_judged
    lines.append(f"total: {len(outcomes)} problems ({judged} judged, "
                 + (f"{interrupted} interrupted, " if interrupted else "")
                 + f"{not_judged} not judged"
                 + (f", {idle} with nothing to run" if idle else "") + "); "
                 f"{len(submissions)} submissions: {agree} agree, {disagree} disagree"
                 + (f", {partial} partial (not judged on every case)" if partial else "")
                 + (f", {other} neither (judge error or skipped)" if other else "")
                 + (f"; {len(bugs)} package bug(s)" if bugs else ""))
    return "\n".join(lines)


# -- problems -----------------------------------------------------------------------------------

def list_problems(settings: Settings) -> None:
    """Every problem (`pipeline problems`): those of no contest first, then each recorded
    contest's under its name, in its order, with their labels."""
    from pipeline.problems import all_problems, describe, recorded_contests

    try:
        contests = recorded_contests(settings.data_dir) if Path(settings.data_dir).is_dir() \
            else {}
    except UserError as error:
        say(f"note: {error}", err=True)
        contests = {}
    problems = {problem.id: problem for problem in all_problems()}
    in_contest = {p.id for c in contests.values() for p in c.problems if p.id in problems}
    for problem in problems.values():
        if problem.id not in in_contest:
            say(describe(problem))
    for contest in contests.values():
        say(f"contest {contest.name}  {contest.title}  ({len(contest.problems)} problems; "
            f"{contest.source})")
        for entry in contest.problems:
            label = f"{entry.label} " if entry.label else ""
            if entry.id in problems and entry.registered:
                text = describe(problems[entry.id])
                say("\n".join(f"  {label}{line}" if i == 0 else f"  {line}"
                              for i, line in enumerate(text.splitlines())))
            else:
                say(f"  {label}{entry.id}  NOT registered: {entry.why or 'not in the data folder'}")

