"""`make nightly`: the whole job, end to end, on the default corpus.

1. generate the corpus of `configs/nightly.toml` under `DATA/raw/<problem>/nightly/<recipe>/`
   when it is missing or its manifest records another seed or count (deterministic seeds, so a
   rebuilt corpus is the same corpus);
2. ingest `DATA/raw`;
3. run every problem with every stage and every configured external solver;
4. compare each run with the previous finished run of its problem (or the baseline pinned in
   the config);
5. write the HTML report and print a short summary with its path.

The job fails (non-zero exit) on any new WA, RE, TLE, MLE or OLE of a trusted solver, or a
flagged slowdown that a re-measurement confirms (the flagged cases run again five times; the
median must still be slower). Without a baseline every such verdict counts as new. Stages registered as
known to be wrong are reported but never fail the job.

Runs go through the executor the caller gives (`pipeline nightly --executor dask` connects to a
cluster once for the whole night), else through a local pool started for each problem.
"""

from __future__ import annotations

import contextlib
import json
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.corpus.generate import MANIFEST_NAME, generate
from pipeline.corpus.ingest import IngestSummary, ingest
from pipeline.problems import get_problem
from pipeline.run import tables
from pipeline.run.executors import Executor
from pipeline.run.runner import RunRequest, RunSummary, run
from pipeline.run.solvers import CONFIG_DIR, configured_externals
from pipeline.run.verdicts import FAILURES

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

    @property
    def failed(self) -> bool:
        return any(p.failures for p in self.problems) or any(
            p.run.status != "finished" for p in self.problems)


def load_config(path: Path = DEFAULT_CONFIG) -> dict:
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def corpus_is_current(folder: Path, problem: str, recipe: str, seed: int, count: int) -> bool:
    manifest = folder / MANIFEST_NAME
    if not manifest.exists():
        return False
    try:
        data = json.loads(manifest.read_text())
    except ValueError:
        return False
    return (data.get("problem"), data.get("recipe"), data.get("seed"), data.get("count")) == (
        problem, recipe, seed, count)


def build_corpus(data_dir: Path, config: dict, log: Callable[[str], None]) -> int:
    """Generate what is missing; returns the number of recipes (re)generated."""
    seed = int(config.get("seed", 1))
    made = 0
    for problem_id, spec in config["problems"].items():
        problem = get_problem(problem_id)
        expected_from = spec.get("expected_from", "brute")
        for recipe, count in spec["recipes"].items():
            folder = data_dir / "raw" / problem_id / "nightly" / recipe
            if corpus_is_current(folder, problem_id, recipe, seed, count):
                continue
            started = time.monotonic()
            generate(problem, recipe, count, seed, folder, expected_from)
            made += 1
            log(f"generated {problem_id}/{recipe}: {count} cases "
                f"({time.monotonic() - started:.1f} s)")
    return made


def trusted_failures(data_dir: Path, run_id: str, problem_id: str) -> list[str]:
    """Failing verdicts of trusted solvers in a run (used when there is no baseline)."""
    problem = get_problem(problem_id)
    wrong = {s.name for s in problem.stages if s.known_wrong}
    results = tables.read_run_results(data_dir, run_id)
    bad = results.filter(pl.col("verdict").is_in([v.value for v in FAILURES])
                         & ~pl.col("solver").is_in(list(wrong)))
    counts = bad.group_by("solver", "verdict").len().sort("solver", "verdict")
    return [f"{problem_id}/{row['solver']}: {row['len']} {row['verdict']}"
            for row in counts.iter_rows(named=True)]


REMEASURE_REPEAT = 5


def slowdown_rule(config: dict) -> dict[str, float]:
    """The nightly's slowdown thresholds (`slowdown_ratio`, `slowdown_min_ms` in its config)."""
    return {"ratio_threshold": float(config.get("slowdown_ratio", 1.5)),
            "min_diff_ms": float(config.get("slowdown_min_ms", 20.0))}


@contextlib.contextmanager
def _one_at_a_time(executor: Executor | None) -> Iterator[Executor | None]:
    """`executor` running one batch at a time (None: the run starts a local pool of one)."""
    limited = getattr(executor, "limited", None)
    if limited is None:
        yield None
        return
    with limited(1):
        yield executor


def confirmed_reasons(data_dir: Path, baseline: str, comparison,
                      log: Callable[[str], None], rule: dict[str, float] | None = None,
                      executor: Executor | None = None) -> list[str]:
    """The comparison's reasons to fail, with slowdowns kept only if a re-measurement agrees.

    One timing of a 2 ms case on a shared 2-core machine can be 10x off, and whole minutes run
    15% slower than others. Before a slowdown fails the night, its cases are run again by the
    solvers that were flagged, `REMEASURE_REPEAT` times each on one worker (no neighbour
    competing for the core), and the fastest of those runs is compared with the baseline: noise
    only ever adds time, so a case that is still 1.5x slower at its fastest really regressed. The re-measurement is stored as a run with status `remeasure`, so
    it is never taken as the next night's baseline.
    """
    from pipeline.report.compare import SLOWDOWN_MARK, compare_runs

    if not comparison.failed:
        return []
    reasons = [r for r in comparison.reasons if SLOWDOWN_MARK not in r]
    flagged = {(s.solver, t.case_id) for s in comparison.solvers if not s.known_wrong
               for t in s.slowdowns}
    if not any(SLOWDOWN_MARK in r for r in comparison.reasons) or not flagged:
        return reasons
    problem = get_problem(comparison.problem)
    stages = {s.name for s in problem.stages}
    solvers = {name for name, _ in flagged}
    request = RunRequest(
        problem=problem.id, solvers=tuple(sorted(solvers & stages)),
        externals=tuple(e for e in configured_externals(problem.id) if e.name in solvers),
        jobs=1, repeat=REMEASURE_REPEAT, case_ids=tuple(sorted({c for _, c in flagged})),
        command="pipeline nightly (re-measuring flagged slowdowns)")
    with _one_at_a_time(executor) as single:
        remeasured = run(data_dir, request, executor=single)
    row = tables.read_runs(data_dir).filter(pl.col("run_id") == remeasured.run_id).row(
        0, named=True)
    tables.write_run(data_dir, {**row, "status": "remeasure"})
    again = compare_runs(data_dir, baseline, remeasured.run_id, timing="min", **(rule or {}))
    confirmed = [r for r in again.reasons if SLOWDOWN_MARK in r]
    log(f"{problem.id}: {len(flagged)} flagged slowdowns re-measured "
        f"({REMEASURE_REPEAT} runs each, run {remeasured.run_id}): "
        f"{'confirmed' if confirmed else 'not confirmed (noise)'}")
    return reasons + [f"{r} (confirmed by re-measuring)" for r in confirmed]


def previous_run(data_dir: Path, problem_id: str, config: dict) -> str | None:
    pinned = config.get("baseline", {}).get(problem_id)
    if pinned:
        return pinned
    runs = tables.read_runs(data_dir)
    if runs.is_empty():
        return None
    finished = runs.filter((pl.col("problem") == problem_id) & (pl.col("status") == "finished")
                           ).sort("started_at", descending=True)
    return finished["run_id"][0] if finished.height else None


def nightly(data_dir: Path, config_path: Path = DEFAULT_CONFIG, jobs: int | None = None,
            log: Callable[[str], None] = print,
            progress: Callable[..., None] | None = None,
            executor: Executor | None = None) -> NightlyOutcome:
    from pipeline.report.compare import compare_runs, format_comparison
    from pipeline.report.html import write_report

    started = time.monotonic()
    config = load_config(config_path)
    build_corpus(data_dir, config, log)
    summary = ingest(data_dir, [data_dir / "raw"], progress=progress)
    if summary.rejected:
        log(f"ingest: {summary.rejected} files rejected (see the rejects table)")
    nights: list[ProblemNight] = []
    for problem_id in config["problems"]:
        baseline = previous_run(data_dir, problem_id, config)
        result = run(data_dir, RunRequest(problem=problem_id, jobs=jobs,
                                          command="pipeline nightly"), executor=executor,
                     progress=progress)
        night = ProblemNight(problem_id, result, baseline)
        if result.status != "finished":
            night.failures.append(f"{problem_id}: run {result.run_id} {result.status}")
        elif baseline:
            try:
                comparison = compare_runs(data_dir, baseline, result.run_id,
                                          **slowdown_rule(config))
            except (KeyError, ValueError) as error:  # e.g. a pinned baseline that is gone
                night.failures.append(f"{problem_id}: cannot compare with {baseline}: {error}")
            else:
                night.comparison_text = format_comparison(comparison)
                night.failures.extend(confirmed_reasons(data_dir, baseline, comparison,
                                                        log, slowdown_rule(config), executor))
        else:
            night.failures.extend(trusted_failures(data_dir, result.run_id, problem_id))
        nights.append(night)
        log(f"{problem_id}: run {result.run_id} {result.status}, {result.cases} cases, "
            f"{'baseline ' + baseline if baseline else 'no baseline'}"
            f"{', FAILED' if night.failures else ''}")
    run_ids = [n.run.run_id for n in nights]
    stamp = time.strftime("%Y%m%d-%H%M%S")
    report = write_report(data_dir, run_ids, data_dir / "reports" / f"nightly-{stamp}.html",
                          slowdown_rule(config))
    return NightlyOutcome(nights, summary, report, time.monotonic() - started)


def format_outcome(outcome: NightlyOutcome) -> str:
    lines = [f"nightly: {'FAILED' if outcome.failed else 'ok'} in {outcome.seconds:.0f} s"]
    for night in outcome.problems:
        counts: dict[str, int] = {}
        for per_solver in night.run.verdicts.values():
            for verdict, n in per_solver.items():
                counts[verdict] = counts.get(verdict, 0) + n
        verdicts = " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        lines.append(f"  {night.problem:<16} {night.run.cases:>5} cases  {verdicts}")
        for failure in night.failures:
            lines.append(f"    ! {failure}")
    if outcome.report:
        lines.append(f"report: {outcome.report}")
    return "\n".join(lines)
