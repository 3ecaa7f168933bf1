"""`pipeline run`: every solver of a problem over its stored cases, into the results table.

A run reads the problem's cases from the `cases` table, makes sure each has an expected answer
(from its file, or from the first reference stage in `configs/problems.toml` that accepts it,
stored back in `cases` with that stage as `expected_source`), then runs every (case, solver,
repeat) job through an executor and grades each answer. Results are written in chunks as they
arrive; a killed run is finished with `resume`, which runs exactly the jobs not yet stored.
"""

from __future__ import annotations

import platform
import secrets
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from pipeline import store
from pipeline.problems import Problem, get_problem
from pipeline.run import tables
from pipeline.run.executors import Executor, local_pool
from pipeline.run.isolation import (choose_sandbox, containment_note, sandbox_blocker,
                                    visible_paths)
from pipeline.run.jobs import Job, Outcome, SolverSpec
from pipeline.run.solvers import (ExternalSolver, configured_externals, load_problem_config,
                                  prepare, problem_memory_mb, resolve_program)
from pipeline.run.verdicts import Verdict, grade

# A chunk of results is written every CHUNK_SECONDS (or CHUNK_ROWS rows), so a killed run
# loses at most about a second of work.
CHUNK_ROWS = 5000
CHUNK_SECONDS = 1.0


@dataclass(frozen=True)
class RunRequest:
    problem: str
    solvers: tuple[str, ...] = ()             # built-in stage names; empty = all (with externals)
    externals: tuple[ExternalSolver, ...] = ()
    group: str | None = None
    jobs: int | None = None
    timeout_s: float | None = None
    memory_mb: int | None = None              # external programs; None: the problem's; 0: none
    stack_mb: int | None = None               # external programs; None: the memory limit; 0: none
    sandbox: str = "auto"                     # external programs: auto, on or off
    repeat: int = 1
    resume: str | None = None
    command: str = ""
    case_ids: tuple[str, ...] = ()            # only these cases (empty = every case)


@dataclass
class RunSummary:
    run_id: str
    status: str
    cases: int
    verdicts: dict[str, Counter] = field(default_factory=dict)
    slowest: dict[str, tuple[float, str]] = field(default_factory=dict)
    results_written: int = 0
    notes: list[str] = field(default_factory=list)  # one line each: how programs were run


def host_info() -> dict[str, str | None]:
    cpu = platform.processor() or None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent,
                             capture_output=True, text=True, timeout=5).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        rev = None
    return {"host": socket.gethostname(), "cpu_model": cpu, "git_rev": rev}


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(3)


RUN_COLUMNS = ["case_id", "group", "input", "expected", "expected_source", "size"]


def load_cases(data_dir: Path, problem_id: str, group: str | None) -> pl.DataFrame:
    """The columns a run needs of a problem's cases (smallest first)."""
    path = store.table_dir(data_dir, "cases") / f"{problem_id}.parquet"
    if not path.exists():
        return store.empty({name: store.CASES_BASE[name] for name in RUN_COLUMNS})
    frame = pl.read_parquet(path, columns=RUN_COLUMNS)
    if group is not None:
        frame = frame.filter((pl.col("group") == group)
                             | pl.col("group").str.starts_with(group + "/"))
    return frame.sort(["size", "case_id"])


def solver_specs(request: RunRequest, problem: Problem, data_dir: Path,
                 timeout_s: float) -> list[SolverSpec]:
    # Naming any solver (--solver or --external) runs just those; naming none runs them all.
    chosen = request.solvers or request.externals
    names = request.solvers if chosen else tuple(s.name for s in problem.stages)
    # Oracles and editorial methods in Python may get longer than the judge's limit
    # (configs/problems.toml [<problem>.timeouts]); an explicit --timeout applies to all.
    per_stage = {} if request.timeout_s else load_problem_config(problem.id).get("timeouts", {})
    specs = [SolverSpec(name=name, kind="stage", problem=problem.id, stage=problem.stage(name).name,
                        timeout_s=float(per_stage.get(name, timeout_s)),
                        memory_mb=request.memory_mb) for name in names]
    externals = list(request.externals)
    if not request.solvers and not request.externals:
        externals = configured_externals(problem.id)
    memory = request.memory_mb if request.memory_mb is not None else problem_memory_mb(problem.id)
    sandbox = choose_sandbox(request.sandbox).enabled if externals else False
    for external in externals:
        argv = resolve_program(external, prepare(external, data_dir))
        blocker = sandbox_blocker(argv) if sandbox else None
        if blocker and request.sandbox == "on":
            raise ValueError(f"--sandbox on: external program {external.name!r}: {blocker}")
        sandboxed = sandbox and blocker is None
        specs.append(SolverSpec(name=external.name, kind="external", problem=problem.id,
                                argv=argv, memory_mb=memory or None, stack_mb=request.stack_mb,
                                sandbox=sandboxed,
                                visible=visible_paths(argv, data_dir) if sandboxed else (),
                                timeout_s=request.timeout_s or external.time_limit_s or timeout_s))
    seen = Counter(spec.name for spec in specs)
    duplicated = [name for name, count in seen.items() if count > 1]
    if duplicated:
        raise ValueError(f"solver names must be unique in a run: {', '.join(duplicated)}")
    return specs


def external_notes(request: RunRequest, specs: list[SolverSpec]) -> list[str]:
    """One line each, for the run's summary: how the external programs are run, where that is
    less than asked for (the sandbox off under `auto`, weaker containment)."""
    externals = [spec for spec in specs if spec.kind == "external"]
    if not externals:
        return []
    notes = [note for note in (containment_note(),) if note]
    if request.sandbox == "auto":
        choice = choose_sandbox("auto")
        if choice.note:
            notes.append(choice.note)
        else:
            notes += [f"sandbox off for {spec.name}: {sandbox_blocker(spec.argv)}"
                      for spec in externals if not spec.sandbox]
    return notes


def fill_expected(data_dir: Path, problem: Problem, cases: pl.DataFrame, executor: Executor,
                  timeout_s: float) -> pl.DataFrame:
    """Give every case without an expected answer one from the reference stages."""
    missing = cases.filter(pl.col("expected").is_null())
    if missing.is_empty():
        return cases
    names = {stage.name for stage in problem.trusted_stages}
    references = [name for name in load_problem_config(problem.id).get("reference", ["brute", "fast"])
                  if name in names]
    answers: dict[str, tuple[str, str]] = {}
    todo = dict(zip(missing["case_id"], missing["input"]))
    for name in references:
        if not todo:
            break
        spec = SolverSpec(name=name, kind="stage", problem=problem.id, stage=name,
                          timeout_s=timeout_s * 10)
        jobs = [Job(i, spec, case_id, text) for i, (case_id, text) in enumerate(todo.items())]
        for job, outcome in executor.run(jobs):
            if outcome.status == "ok":
                answers[job.case_id] = (outcome.answer, name)
                todo.pop(job.case_id)
    if not answers:
        return cases
    filled = pl.DataFrame({"case_id": list(answers),
                           "_expected": [a for a, _ in answers.values()],
                           "_source": [s for _, s in answers.values()]})
    _store_expected(data_dir, problem.id, filled)
    return _with_expected(cases, filled)


def _with_expected(frame: pl.DataFrame, filled: pl.DataFrame) -> pl.DataFrame:
    """`frame` with the expected answers of `filled` where it had none."""
    return frame.join(filled, on="case_id", how="left").with_columns(
        pl.coalesce("expected", "_expected").alias("expected"),
        pl.coalesce("expected_source", "_source").alias("expected_source"),
    ).drop("_expected", "_source")


def _store_expected(data_dir: Path, problem_id: str, filled: pl.DataFrame) -> None:
    path = store.table_dir(data_dir, "cases") / f"{problem_id}.parquet"
    schema = store.cases_schema()
    stored = _with_expected(store.read_file(path, schema), filled)
    store.write_problem_file(data_dir, "cases", problem_id, stored, schema)


def run(data_dir: Path, request: RunRequest, executor: Executor | None = None,
        progress: Callable[..., None] | None = None) -> RunSummary:
    """Run the request; returns a summary (the results are in the tables)."""
    problem = get_problem(request.problem)
    config = load_problem_config(problem.id)
    timeout_s = request.timeout_s or config.get("time_limit_s", problem.time_limit_s)
    info = host_info()
    run_row: dict
    done: set[tuple[str, str, int]] = set()
    chunk = 0
    if request.resume:
        runs = tables.read_runs(data_dir).filter(pl.col("run_id") == request.resume)
        if runs.is_empty():
            raise ValueError(f"no run {request.resume!r} to resume")
        run_row = runs.row(0, named=True)
        if run_row["problem"] != problem.id:
            raise ValueError(f"run {request.resume} is of problem {run_row['problem']}")
        request = RunRequest(**{**request.__dict__, "group": run_row.get("group"),
                                "solvers": tuple(s.name for s in problem.stages),
                                "externals": (*configured_externals(problem.id),
                                              *request.externals)})
        previous = tables.read_run_results(data_dir, request.resume)
        done = set(zip(previous["case_id"], previous["solver"], previous["repeat"]))
        chunk = len(tables.stored_chunks(data_dir, request.resume))
        run_id = request.resume
        solvers_wanted = set(run_row["solvers"])
        # Only names are stored: the run's --external programs must be given again.
        available = {s.name for s in problem.stages} | {e.name for e in request.externals}
        missing = sorted(solvers_wanted - available)
        if missing:
            raise ValueError(f"run {run_id} also ran {', '.join(missing)}: give "
                             "--external NAME=COMMAND again for each to resume it")
        request_repeat = run_row["repeat"] or 1
        timeout_s = run_row["timeout_s"] or timeout_s
    else:
        run_id = new_run_id()
        solvers_wanted = None
        request_repeat = request.repeat
    # Every program is resolved (and built) before anything runs or is written.
    specs = solver_specs(request, problem, data_dir, timeout_s)
    if solvers_wanted is not None:
        specs = [s for s in specs if s.name in solvers_wanted]
    own_executor = executor is None
    if executor is None:  # start the workers now: they import while the cases load
        executor = local_pool(problem, request.solvers, bool(request.externals), request.jobs)
    cases = load_cases(data_dir, problem.id, request.group)
    if request.case_ids:
        cases = cases.filter(pl.col("case_id").is_in(list(request.case_ids)))
    summary = RunSummary(run_id, "running", cases.height, notes=external_notes(request, specs))
    buffer: list[dict] = []  # set before `try`: Ctrl-C may come before the first result
    try:
        if not request.resume:
            run_row = {"run_id": run_id, "started_at": store.now(), "finished_at": None,
                       "status": "running", "problem": problem.id,
                       "solvers": [s.name for s in specs], "jobs": getattr(executor, "size", None),
                       "timeout_s": timeout_s, "repeat": request_repeat, "cases": cases.height,
                       "group": request.group,
                       "command": request.command, **info}
            tables.write_run(data_dir, run_row)
        cases = fill_expected(data_dir, problem, cases, executor, timeout_s)
        expected = dict(zip(cases["case_id"], cases["expected"]))
        expected_source = dict(zip(cases["case_id"], cases["expected_source"]))
        sizes = dict(zip(cases["case_id"], cases["size"]))
        jobs = []
        for case_id, text in zip(cases["case_id"], cases["input"]):
            for spec in specs:
                for rep in range(request_repeat):
                    if (case_id, spec.name, rep) not in done:
                        jobs.append(Job(len(jobs), spec, case_id, text, rep))
        last_flush = time.monotonic()
        finished = 0
        for job, outcome in executor.run(jobs):
            row = _result_row(run_id, problem, job, outcome, expected.get(job.case_id),
                              expected_source.get(job.case_id), sizes.get(job.case_id), info)
            buffer.append(row)
            _tally(summary, row)
            finished += 1
            if progress:
                progress(finished, len(jobs), _verdict_note(summary))
            if len(buffer) >= CHUNK_ROWS or time.monotonic() - last_flush > CHUNK_SECONDS:
                tables.write_results_chunk(data_dir, run_id, chunk, buffer)
                summary.results_written += len(buffer)
                chunk, buffer, last_flush = chunk + 1, [], time.monotonic()
        if buffer:
            tables.write_results_chunk(data_dir, run_id, chunk, buffer)
            summary.results_written += len(buffer)
            chunk, buffer = chunk + 1, []
        summary.status = "finished"
    except KeyboardInterrupt:
        summary.status = "interrupted"
        if buffer:
            tables.write_results_chunk(data_dir, run_id, chunk, buffer)
            summary.results_written += len(buffer)
    finally:
        if own_executor:
            executor.close()
        if summary.status == "running":
            summary.status = "failed"
        if "run_row" in locals():
            tables.write_run(data_dir, {**run_row, "status": summary.status,
                                        "finished_at": store.now()})
    return summary


_STATUS_VERDICT = {"tle": Verdict.TLE, "mle": Verdict.MLE, "re": Verdict.RE,
                   "ole": Verdict.OLE, "skip": Verdict.SKIP}


def _result_row(run_id: str, problem: Problem, job: Job, outcome: Outcome, expected: str | None,
                expected_source: str | None, size: int | None, info: dict) -> dict:
    error = outcome.error
    if outcome.status == "ok":
        verdict, difference = grade(outcome.answer, expected, problem.compare)
        error = difference or error
    else:
        verdict = _STATUS_VERDICT[outcome.status]
    return {"run_id": run_id, "problem": problem.id, "case_id": job.case_id,
            "solver": job.solver.name, "repeat": job.repeat, "verdict": verdict.value,
            "answer": outcome.answer, "wall_ms": outcome.wall_ms, "cpu_ms": outcome.cpu_ms,
            "peak_rss_kb": outcome.peak_rss_kb, "exit_code": outcome.exit_code, "error": error,
            "expected_source": expected_source if expected is not None else None,
            "size": size, "host": info["host"], "finished_at": store.now()}


def _tally(summary: RunSummary, row: dict) -> None:
    summary.verdicts.setdefault(row["solver"], Counter())[row["verdict"]] += 1
    if row["wall_ms"] is not None and row["verdict"] != "SKIP":
        best = summary.slowest.get(row["solver"])
        if best is None or row["wall_ms"] > best[0]:
            summary.slowest[row["solver"]] = (row["wall_ms"], row["case_id"])


def _verdict_note(summary: RunSummary) -> str:
    total: Counter = Counter()
    for counts in summary.verdicts.values():
        total.update(counts)
    return " ".join(f"{k}:{v}" for k, v in sorted(total.items()))


def format_summary(summary: RunSummary) -> str:
    lines = [f"run {summary.run_id}: {summary.status}, {summary.cases} cases, "
             f"{summary.results_written} results"]
    lines += [f"  note: {note}" for note in summary.notes]
    for solver, counts in summary.verdicts.items():
        verdicts = " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        slow = summary.slowest.get(solver)
        slow_text = f"; slowest {slow[0]:.1f} ms ({slow[1][:12]})" if slow else ""
        lines.append(f"  {solver:<12} {verdicts}{slow_text}")
    return "\n".join(lines)
