"""`pipeline run`: every solver of a problem over its stored cases, into the results table.

1. Give each case an expected answer (its file, or the first reference stage that accepts it).
2. Run every (case, solver, repeat) job through an executor, grade each answer and write the
   results in chunks as they arrive.
3. `resume` finishes a killed run: the solvers rebuilt from their recorded identities, the jobs
   not stored (or `JE`) run over exactly the cases it recorded.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import platform
import secrets
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from pipeline.errors import UserError, closest_name
from pipeline.problems import Problem, cases_schema, get_problem, package_content
from pipeline.problems.identity import answer_id
from pipeline.problems.model import HeldSubmissions, JudgedLimit, PackageJudge, SubmissionJudging
from pipeline.programs import contained
from pipeline.programs.contained import choose_sandbox, containment_note, set_sandbox
from pipeline.programs.jobs import Job, Outcome, SolverSpec
from pipeline.run.checker import check_answer
from pipeline.run.choice import make_executor
from pipeline.run.executors import Executor
from pipeline.run.request import (
    RunRequest,
    Selection,
    identities,
    resumed_selection,
    select_solvers,
)
from pipeline.run.solvers import ready
from pipeline.run.startup import StartFailure, error_line, is_start_failure, start_failure
from pipeline.tables.files import now, problem_file, read_file, write_problem_file
from pipeline.tables.layout import no_data_folder
from pipeline.tables.lock import data_lock, process_start, run_lock
from pipeline.tables.results import (
    drop_results,
    next_chunk,
    read_run_cases,
    read_run_results,
    read_runs,
    results_of,
    write_results_chunk,
    write_run,
    write_run_cases,
)
from pipeline.untrusted import excerpt
from pipeline.verdicts import Verdict, stops_fail_fast

__all__ = ["RunRequest", "RunSummary", "run", "format_summary", "nothing_to_run"]

# A chunk of results is written every CHUNK_SECONDS (or CHUNK_ROWS rows): a killed run loses
# about a second of work.
CHUNK_ROWS = 5000
CHUNK_SECONDS = 1.0


@dataclass
class RunSummary:
    run_id: str
    status: str
    cases: int
    verdicts: dict[str, Counter] = field(default_factory=dict)
    # solver -> (CPU ms or None, wall ms, case id) of its case with the most CPU (else wall) time
    slowest: dict[str, tuple[float | None, float, str]] = field(default_factory=dict)
    case_names: dict[str, str] = field(default_factory=dict)  # case id -> its stored source
    results_written: int = 0
    results_before: int = 0  # a resumed run: results stored before it (counted in `verdicts`)
    notes: list[str] = field(default_factory=list)  # one line each: how programs were run
    errors: dict[str, Counter] = field(default_factory=dict)  # first RE/MLE/OLE error lines
    start_errors: dict[str, Counter] = field(default_factory=dict)  # those that never started
    cannot_start: list[StartFailure] = field(default_factory=list)  # most cases never started
    expectations: HeldSubmissions | None = None  # submissions against their expectations

    @property
    def judge_failed(self) -> int:
        """How many results are judge errors (`JE`): no verdict of the program."""
        return sum(counts[Verdict.JE.value] for counts in self.verdicts.values())


def host_info() -> dict[str, str | int | None]:
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in
                    Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), None)
    except OSError:
        cpu = None
    return {"host": socket.gethostname(), "cpu_model": cpu or platform.processor() or None,
            "git_rev": git_revision(Path(__file__).resolve().parents[2]),
            "pid": os.getpid(), "pid_started": process_start(os.getpid())}


def git_revision(checkout: Path) -> str | None:
    """The commit `checkout` has checked out, read from its `.git` folder (no `git` process),
    else from `git rev-parse HEAD` (a linked worktree's `.git` is a file)."""
    git = checkout / ".git"
    with contextlib.suppress(OSError):
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head or None
        ref = head[5:]
        if (git / ref).is_file():
            return (git / ref).read_text().strip() or None
        for line in (git / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True,
                              text=True, timeout=5).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


RUN_COLUMNS = ["case_id", "source", "group", "groups", "input", "expected", "expected_source",
               "size"]


def load_cases(data_dir: Path, problem_id: str, group: str | None) -> pl.DataFrame:
    """The columns a run needs of a problem's cases (smallest first), of `group` if given."""
    path = problem_file(data_dir, "cases", problem_id)
    frame = read_file(path, cases_schema(), RUN_COLUMNS)
    if group is not None:
        frame = frame.filter(_in_group(group))
    return frame.sort(["size", "case_id"])


def _groups() -> pl.Expr:
    """Every group path of a case (`groups`; `group` alone in rows stored before it was)."""
    return pl.col("groups").fill_null(pl.concat_list(pl.col("group")))


def _in_group(group: str) -> pl.Expr:
    """Whether a case is in `group` (or a group below it) under any of its paths."""
    return _groups().list.eval((pl.element() == group)
                               | pl.element().str.starts_with(group + "/")).list.any()


def nothing_to_run(data_dir: Path, problem: Problem, group: str | None = None) -> str | None:
    """Why a run of `problem` would have nothing to do (a package without test data, none
    stored from elsewhere), or None."""
    reason = problem.why_no_cases()
    if reason is None or load_cases(data_dir, problem.id, group).height:
        return None
    return reason


def the_run_cases(stored: pl.DataFrame, recorded: pl.DataFrame, run_id: str,
                  problem_id: str) -> pl.DataFrame:
    """The cases a run recorded, in its order, from the `stored` ones; refuses when some are
    gone or have another expected answer now (judging them would finish another run)."""
    found = recorded.with_row_index("_order").join(stored, on="case_id", how="left")
    found = found.with_columns(pl.Series("_now", [
        answer_id(e) for e in found["expected"]], dtype=pl.String))
    missing = found.filter(pl.col("input").is_null())["case_id"].to_list()
    changed = found.filter(pl.col("input").is_not_null() & pl.col("_now").ne_missing(
        pl.col("answer_id")))["case_id"].to_list()
    if missing or changed:
        parts = []
        if missing:
            parts.append(f"{len(missing)} of its {recorded.height} cases are no longer stored "
                         f"(e.g. case {missing[0][:12]})")
        if changed:
            parts.append(f"{len(changed)} of its cases have another expected answer now (e.g. "
                         f"case {changed[0][:12]})")
        raise UserError(f"run {run_id} cannot be resumed: {' and '.join(parts)} after a "
                        "later ingest; the cases it judged are gone from storage, and "
                        "resuming would judge others. Start a new run (pipeline run "
                        f"--problem {problem_id})")
    return found.sort("_order").drop("_order", "_now", "answer_id")


def no_case_selected(data_dir: Path, problem: Problem, group: str | None = None) -> str | None:
    """Why a run of `problem`'s stored cases (of `group`) would select none, or None: such a
    run would become the latest one the reports read. Names the groups, and the closest."""
    where = Path(data_dir).resolve()
    if missing := no_data_folder(data_dir):
        return missing
    every = read_file(problem_file(data_dir, "cases", problem.id), cases_schema(),
                      ["group", "groups"])
    if every.is_empty():
        return f"no stored cases of {problem.id} in {where}: `pipeline ingest` stores them"
    if group is None or not every.filter(_in_group(group)).is_empty():
        return None
    paths = every.select(_groups()).to_series().explode().drop_nulls()
    names = sorted({"/".join(parts[:end]) for path in paths
                    for parts in [path.split("/")] for end in range(1, len(parts) + 1)})
    close = closest_name(group, names)
    return (f"no case of {problem.id} is in group {group!r}"
            f"{f' (did you mean {close!r}?)' if close else ''}; its groups: "
            f"{', '.join(names)}")


def solver_specs(problem: Problem, selection: Selection, request: RunRequest, data_dir: Path,
                 timeout_s: float | None, build_on_workers: bool = False,
                 notes: list[str] | None = None) -> list[SolverSpec]:
    """How to run each selected solver: stages at their own timeout unless `timeout_s` is
    given; external programs at the problem's memory limit unless `--memory` says otherwise,
    built and resolved now (`build_on_workers`: packed) so a missing one stops the run before
    anything is written; `notes` gets a line per command built once (`solvers.built_once`)."""
    specs = [SolverSpec(name=name, kind="stage", problem=problem.id, stage=name,
                        timeout_s=timeout_s or problem.stage_timeout_s(name),
                        memory_mb=request.memory_mb) for name in selection.stages]
    memory = request.memory_mb if request.memory_mb is not None else problem.memory_mb
    sandbox = contained.default_sandbox() if selection.externals else False  # the run's
    return specs + [ready(SolverSpec(name=program.name, kind="external", problem=problem.id,
                                     program=program, memory_mb=memory or None,
                                     stack_mb=request.stack_mb, sandbox=sandbox,
                                     hidden=contained.data_folder_hidden(data_dir)
                                     if sandbox else (),
                                     timeout_s=timeout_s or program.time_limit_s
                                     or problem.time_limit_s,
                                     judged_by_problem=problem.package_judge is not None),
                          data_dir, build_on_workers, notes) for program in selection.externals]


def external_notes(request: RunRequest, specs: list[SolverSpec],
                   submissions: tuple[str, ...] = ()) -> list[str]:
    """Lines for the run's summary where its programs run less contained than asked for."""
    if not submissions and all(spec.kind == "stage" for spec in specs):
        return []
    return [note for note in (containment_note(), choose_sandbox("auto").note
                              if request.sandbox == "auto" else None) if note]


def fill_expected(data_dir: Path, problem: Problem, cases: pl.DataFrame,
                  executor: Executor, wait: bool = True) -> pl.DataFrame:
    """Give every case without an expected answer one from the reference stages."""
    missing = cases.filter(pl.col("expected").is_null())
    if missing.is_empty():
        return cases
    trusted = {stage.name for stage in problem.trusted_stages}
    references = [name for name in problem.reference if name in trusted]
    answers: list[tuple[str, str, str]] = []  # (case id, its expected answer, the stage's name)
    todo = dict(zip(missing["case_id"], missing["input"]))
    for name in references:
        if not todo:
            break
        spec = SolverSpec(name=name, kind="stage", problem=problem.id, stage=name,
                          timeout_s=problem.stage_timeout_s(name) * 10)
        jobs = [Job(i, spec, case_id, text) for i, (case_id, text) in enumerate(todo.items())]
        for job, outcome in executor.run(jobs):
            if outcome.verdict is None and outcome.answer is not None:  # (ran: it has one)
                answers.append((job.case_id, outcome.answer, name))
                todo.pop(job.case_id)
    if not answers:
        return cases
    filled = pl.DataFrame(answers, schema=["case_id", "_expected", "_source"], orient="row")
    schema = cases_schema()  # stored in `cases` as it is now (re-read under the lock)
    with data_lock(data_dir, wait=wait):
        stored = _with_expected(read_file(problem_file(data_dir, "cases", problem.id), schema),
                                filled)
        write_problem_file(data_dir, "cases", problem.id, stored, schema)
    return _with_expected(cases, filled)


def _with_expected(frame: pl.DataFrame, filled: pl.DataFrame) -> pl.DataFrame:
    """`frame` with the expected answers of `filled` where it had none."""
    return frame.join(filled, on="case_id", how="left").with_columns(
        pl.coalesce("expected", "_expected").alias("expected"),
        pl.coalesce("expected_source", "_source").alias("expected_source"),
    ).drop("_expected", "_source")


def run(data_dir: Path, request: RunRequest, executor: Executor | None = None,
        progress: Callable[..., None] | None = None) -> RunSummary:
    """Run the request; its summary (the results are in the tables). Held by this process
    throughout (`run_lock`): a second resume of it refuses at once."""
    if request.resume and read_runs(data_dir).filter(pl.col("run_id") == request.resume) \
            .is_empty():
        raise UserError(f"no run {request.resume!r} to resume")
    if not request.resume and not request.case_ids:
        why = no_case_selected(data_dir, get_problem(request.problem), request.group)
        if why:  # nothing is stored: an empty run would be the latest one reports read
            raise UserError(why)
    run_id = request.resume or (datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-"
                                + secrets.token_hex(3))
    with run_lock(data_dir, run_id) as give_back_reserve, contained.settings_kept():
        return _run(data_dir, request, run_id, executor, progress, give_back_reserve)


def _run(data_dir: Path, request: RunRequest, run_id: str, executor: Executor | None,
         progress: Callable[..., None] | None,
         give_back_reserve: Callable[[], None]) -> RunSummary:
    problem = get_problem(request.problem)
    info = host_info()
    summary = RunSummary(run_id, "running", 0)
    failed: dict[str, str] = {}  # --fail-fast: solver -> the case it first failed on
    done: set[tuple[str, str, int]] = set()
    again = 0  # a resumed run: its judge errors stored before, judged again
    hosts: set[str] = set()  # hosts of this run's results
    chunk = 0
    run_row: dict | None = None
    recorded: pl.DataFrame | None = None  # a resumed run's own cases, as it chose them
    if request.resume:
        runs = read_runs(data_dir).filter(pl.col("run_id") == run_id)
        if runs.is_empty():  # gone since `run` looked, before its lock was taken
            raise UserError(f"no run {request.resume!r} to resume")
        run_row = runs.row(0, named=True)
        if run_row["problem"] != problem.id:
            raise UserError(f"run {request.resume} is of problem {run_row['problem']}")
        selection = resumed_selection(problem, run_row)
        request = replace(request, group=run_row.get("group"), repeat=run_row["repeat"] or 1,
                          fail_fast=bool(run_row.get("fail_fast")),
                          timeout_s=run_row["timeout_s"] if request.timeout_s is None
                          else request.timeout_s)
        previous = read_run_results(data_dir, run_row["run_id"],
                                    ["case_id", "solver", "repeat", "host", "verdict",
                                     "wall_ms", "cpu_ms", "error", "exit_code"])
        # a judge error is no verdict: its case runs again
        again = previous.filter(pl.col("verdict") == Verdict.JE.value).height
        previous = previous.filter(pl.col("verdict").ne_missing(Verdict.JE.value))
        done = set(zip(previous["case_id"], previous["solver"], previous["repeat"]))
        recorded = read_run_cases(data_dir, run_id)
        if recorded is None and done:
            raise UserError(f"run {run_id} cannot be resumed: it kept no list of its cases "
                            "(started by an older pipeline), so which cases it had is not "
                            f"known; start a new run (pipeline run --problem {problem.id})")
        hosts.update(previous["host"].drop_nulls())
        chunk = next_chunk(data_dir, run_id)
        summary.results_before = previous.height  # the summary is of the whole run
        for row in previous.iter_rows(named=True):
            _tally(summary, row, failed if request.fail_fast else None)
    else:
        selection = select_solvers(problem, request)
    # Every program of the run follows its sandbox setting (`on` where the sandbox cannot
    # work is refused here, before anything is written), and none sees the data folder.
    set_sandbox(request.sandbox)
    contained.hide(data_dir)
    # Every program is resolved (and built) before anything runs or is written.
    specs = solver_specs(problem, selection, request, data_dir, request.timeout_s,
                         getattr(executor, "builds_on_workers", False), summary.notes)
    summary.notes += external_notes(request, specs, selection.submissions)
    own_executor = executor is None
    if executor is None:  # start the workers now: they import while the cases load
        executor = make_executor("local", None, request.jobs, problem, selection)
    noted = failed if request.fail_fast else None  # (where `_tally` notes a failure)
    buffer: list[dict] = []  # set before `try`: Ctrl-C may come before the first result
    # every row this run stores, while they are all it has (not resumed): what `_hold` reads
    written: list[dict] | None = None if request.resume else []
    started = False          # the run's row says `running`: it must say how it ended

    def flush() -> None:
        nonlocal chunk, buffer
        if buffer:
            write_results_chunk(data_dir, run_id, chunk, buffer)
            if written is not None:
                written.extend(buffer)
            summary.results_written += len(buffer)
            chunk, buffer = chunk + 1, []

    def skip(job: Job) -> str | None:  # (--fail-fast) why `job` is not run, or None
        case = failed.get(job.solver.name)
        return None if case is None else f"not run (--fail-fast): failed case {case} before"

    try:
        if recorded is not None:
            cases = the_run_cases(load_cases(data_dir, problem.id, None), recorded, run_id,
                                  problem.id)
        else:
            cases = load_cases(data_dir, problem.id, request.group)
            if request.case_ids:
                cases = cases.filter(pl.col("case_id").is_in(list(request.case_ids)))
        summary.cases = cases.height
        summary.case_names = dict(zip(cases["case_id"], cases["source"]))
        if run_row is None:
            run_row = {"run_id": run_id, "started_at": now(), "finished_at": None,
                       "status": "running", "problem": problem.id,
                       "solvers": list(selection.names),
                       "solver_identities": identities(selection, problem.id),
                       "package_digest": package_content(problem.folder),
                       "jobs": getattr(executor, "size", None), "timeout_s": request.timeout_s,
                       "repeat": request.repeat, "cases": cases.height, "group": request.group,
                       "command": request.command, "fail_fast": request.fail_fast, **info}
        else:
            run_row = {**run_row, "status": "running", "pid": info["pid"],
                       "pid_started": info["pid_started"], "host": info["host"]}
        write_run(data_dir, run_row)
        started = True
        cases = fill_expected(data_dir, problem, cases, executor, request.wait)
        if request.resume and again:  # checked and started: its judge errors are run again
            drop_results(data_dir, run_id, Verdict.JE.value)
            summary.notes.append(f"{again} judge error(s) stored before are judged again")
        if recorded is None:  # what a resume finishes: these cases, with these answers
            write_run_cases(data_dir, run_id, cases["case_id"].to_list(),
                            [answer_id(e) for e in cases["expected"]])
        judging = _judging(problem, selection, cases, executor, request.timeout_s, specs,
                           summary, request.fail_fast)
        by_case = {case["case_id"]: case for case in cases.select(  # (a case's id is its key)
            "case_id", "input", "group", "expected", "expected_source", "size").iter_rows(
            named=True)}
        own_judge = problem.package_judge is not None  # it reads the answer and the group
        todo = [(case, spec, rep) for case, spec, rep in itertools.product(
            by_case.values(), specs, range(request.repeat))
            if (case["case_id"], spec.name, rep) not in done]
        jobs = [Job(key, spec, case["case_id"], case["input"], rep,
                    answer=case["expected"] if own_judge else None,
                    group=case["group"] if own_judge else None)
                for key, (case, spec, rep) in enumerate(todo)]
        judged: dict = {}
        already: list[tuple[Job, Outcome]] = []  # judged while the time limit was derived
        if judging is not None:
            already = [(job, outcome) for job, outcome in judging.done
                       if (job.case_id, job.solver.name, 0) not in done]
            done = done | {(job.case_id, job.solver.name, 0) for job, _ in already}
            jobs += _judge_of(problem).jobs(judging, cases, request.repeat, done, len(jobs))
        last_flush = time.monotonic()
        total = len(already) + len(jobs)
        # --fail-fast: one not expected to pass runs a case at a time, none past its failure
        failing = frozenset(name for name in {job.solver.name for job in jobs}
                            if not problem.expected_to_pass(name)) if request.fail_fast \
            else frozenset()
        for job, outcome in itertools.chain(already, executor.run(
                jobs, skip if request.fail_fast else None, one_at_a_time=failing)):
            row = _result_row(run_id, problem, job, outcome, by_case[job.case_id], info)
            buffer.append(row)
            hosts.add(row["host"])
            if outcome.judgement is not None and job.repeat == 0 \
                    and job.solver.kind == "submission":  # held against their expectations
                judged.setdefault(job.solver.name, {})[outcome.judgement.case] = outcome.judgement
            _tally(summary, row, noted)
            if progress:
                verdicts = sum(summary.verdicts.values(), Counter())
                progress(summary.results_written + len(buffer), total,
                         " ".join(f"{k}:{v}" for k, v in sorted(verdicts.items())))
            if len(buffer) >= CHUNK_ROWS or time.monotonic() - last_flush > CHUNK_SECONDS:
                flush()
                last_flush = time.monotonic()
        flush()
        if judging is not None:
            _hold(data_dir, problem, run_id, selection, judging.limit, judged, cases, summary,
                  frozenset(failed), written)
        summary.cannot_start = _cannot_start(summary, specs)
        summary.status = "finished"
    except KeyboardInterrupt:
        summary.status = "interrupted"
        flush()
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        folder = Path(error.filename).parent if error.filename else Path(data_dir)
        raise UserError(f"no space left on device in {folder}: run {run_id} stopped and is "
                        f"marked failed, its stored results kept (`pipeline run --problem "
                        f"{problem.id} --resume {run_id}` finishes it once there is room)") \
            from None
    finally:
        if own_executor:
            executor.close()
        if summary.status == "running":
            summary.status = "failed"
        if started:
            assert run_row is not None  # written before `started`
            if hosts:
                run_row["host"] = hosts.pop() if len(hosts) == 1 else None
            give_back_reserve()  # the space kept for this last write, should the disk be full
            write_run(data_dir, {**run_row, "status": summary.status, "finished_at": now()})
    return summary


def _judging(problem: Problem, selection: Selection, cases: pl.DataFrame, executor: Executor,
             timeout_s: float | None, specs: list[SolverSpec],
             summary: RunSummary, fail_fast: bool = False) -> SubmissionJudging | None:
    """The judging of the package submissions in `selection` (None: none). A limit still to
    be derived is derived now and given to the external programs at the problem's limit; the
    runs that derived it stand as results."""
    if not selection.submissions:
        return None
    judging = _judge_of(problem).judging(selection.submissions, timeout_s, lambda: cases,
                                         executor, holding=True, fail_fast=fail_fast)
    if judging.note is not None:
        summary.notes.append(judging.note)
        for index, spec in enumerate(specs):
            if spec.kind == "external" and spec.timeout_s == problem.time_limit_s:
                specs[index] = replace(spec, timeout_s=judging.limit.time_s)
    return judging


def _judge_of(problem: Problem) -> PackageJudge:
    """The judge of `problem`'s submissions (a run that selected some: it has one)."""
    judge = problem.package_judge
    if judge is None:
        raise UserError(f"problem {problem.id} has no submissions")
    return judge


def _hold(data_dir: Path, problem: Problem, run_id: str, selection: Selection,
          limit: JudgedLimit, judged: dict, cases: pl.DataFrame, summary: RunSummary,
          cut_short: frozenset[str] = frozenset(), written: list[dict] | None = None) -> None:
    """Hold each submission against its expectation (with what a resumed run stored before)
    into the `expectations` table; those `cut_short` (--fail-fast) to the cases they ran.
    `written`: every row the run stored, when they are at hand (else they are read back)."""
    from pipeline.tables.results import write_expectations, write_package_bugs

    columns = ["case_id", "solver", "repeat", "verdict", "score", "message", "cpu_ms", "wall_ms"]
    earlier = read_run_results(data_dir, run_id, columns) if written is None \
        else results_of(written, columns)
    earlier = earlier.filter(pl.col("solver").is_in(list(selection.submissions)))
    inputs = dict(zip(cases["case_id"], cases["input"]))
    found, rows = _judge_of(problem).hold(run_id, selection.submissions, judged, earlier,
                                          inputs, limit, cut_short)
    summary.expectations = found
    if rows:
        write_expectations(data_dir, run_id, [{**row, "checked_at": now()} for row in rows])
    if found.bugs or rows:
        write_package_bugs(data_dir, run_id, [{"problem": problem.id, "kind": bug.kind,
                                               "subject": bug.subject,
                                               "message": bug.message} for bug in found.bugs])


def _result_row(run_id: str, problem: Problem, job: Job, outcome: Outcome, case: dict,
                info: dict) -> dict:
    """The results row of `outcome`, its answer graded against `case`'s expected one."""
    expected = case["expected"]
    error, score, message = outcome.error, None, None
    if outcome.judgement is not None:  # judged where it ran, by the problem's own rules
        judged = outcome.judgement
        verdict, score, message = judged.verdict, judged.score, judged.message or None
        error = None if verdict is Verdict.AC else message
    elif outcome.verdict is None:
        assert outcome.answer is not None  # an outcome that ran to its end carries its answer
        verdict, difference = check_answer(problem, job.input, expected, outcome.answer)
        error = difference or error
    else:
        verdict = outcome.verdict
    return {"run_id": run_id, "problem": problem.id, "case_id": job.case_id,
            "solver": job.solver.name, "repeat": job.repeat, "verdict": verdict.value,
            "answer": outcome.answer, "score": score, "message": message,
            "wall_ms": outcome.wall_ms, "cpu_ms": outcome.cpu_ms,
            "programs_cpu_ms": outcome.cpu_ms if outcome.programs_cpu_ms is None
            else outcome.programs_cpu_ms,
            "elapsed_ms": outcome.wall_ms if outcome.elapsed_ms is None else outcome.elapsed_ms,
            "peak_rss_kb": outcome.peak_rss_kb, "exit_code": outcome.exit_code, "error": error,
            "expected_source": case["expected_source"] if expected is not None else None,
            "size": case["size"], "host": outcome.host or info["host"], "finished_at": now()}


def _tally(summary: RunSummary, row: dict, failed: dict[str, str] | None) -> None:
    """Count `row` into `summary`; into `failed` (--fail-fast), its solver's first failure."""
    if failed is not None and stops_fail_fast(row["verdict"]):
        failed.setdefault(row["solver"], row["case_id"])
    summary.verdicts.setdefault(row["solver"], Counter())[row["verdict"]] += 1
    if row["verdict"] in (Verdict.RE, Verdict.MLE, Verdict.OLE, Verdict.JE):  # (str == verdict)
        line = error_line(row["error"])
        summary.errors.setdefault(row["solver"], Counter())[line] += 1
        if is_start_failure(row["verdict"], row["exit_code"], row["error"]):
            summary.start_errors.setdefault(row["solver"], Counter())[line] += 1
    if row["wall_ms"] is not None and row["verdict"] != Verdict.SKIP.value:
        # the slowest case by CPU time (what limits a case), else by wall time
        ms = row["cpu_ms"] if row["cpu_ms"] is not None else row["wall_ms"]
        best = summary.slowest.get(row["solver"])
        if best is None or ms > (best[0] if best[0] is not None else best[1]):
            summary.slowest[row["solver"]] = (row["cpu_ms"], row["wall_ms"], row["case_id"])


def _cannot_start(summary: RunSummary, specs: list[SolverSpec]) -> list[StartFailure]:
    """The programs of the run most of whose cases ended with one start-up failure."""
    sandboxed = {spec.name: spec.sandbox for spec in specs}
    found = (start_failure(solver, sum(summary.verdicts[solver].values()), failures,
                           sandboxed.get(solver, False))
             for solver, failures in summary.start_errors.items())
    return [failure for failure in found if failure is not None]


def format_summary(summary: RunSummary) -> str:
    total = summary.results_before + summary.results_written
    part = (f" ({summary.results_written} now, {summary.results_before} stored before the "
            "resume)" if summary.results_before else "")
    lines = [f"run {summary.run_id}: {summary.status}, {summary.cases} cases, "
             f"{total} results{part}"]
    lines += [f"  note: {note}" for note in summary.notes]
    for solver, counts in summary.verdicts.items():
        verdicts = " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        slow = summary.slowest.get(solver)
        slow_text = ""
        if slow is not None:  # the case named by its file (its id where none was stored)
            name = summary.case_names.get(slow[2]) or slow[2][:12]
            slow_text = (f"; slowest {slow[0]:.1f} ms CPU ({slow[1]:.0f} ms wall, {name})"
                         if slow[0] is not None else f"; slowest {slow[1]:.1f} ms wall ({name})")
        errors = summary.errors.get(solver)
        error_text = f"; error: {excerpt(errors.most_common(1)[0][0], 160)}" if errors else ""
        lines.append(f"  {solver:<12} {verdicts}{slow_text}{error_text}")
    lines += [f"  {failure.text()}" for failure in summary.cannot_start]
    if summary.expectations is not None:
        lines += ["  " + line for line in summary.expectations.table().splitlines()]
    return "\n".join(lines)
