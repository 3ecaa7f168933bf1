"""Section `throughput`: `pipeline run` cases per second, end to end.

A corpus of distinct tiny cases of one problem (`--run-problem`) is laid out as `raw/P/ext/` (the
first `external_cases`) and `raw/P/rest/`, with expected outputs from the problem's first trusted
reference stage other than `fast`, and ingested once (untimed). Then, alternately, as real processes
(process start included), `repeats` times each (the long run with the external program fewer times):

- built-in: `pipeline --data-dir D run --problem P --solver fast` over every case;
- external: `pipeline --data-dir D run --problem P --group ext --external ours=BIN
  --solver ours` (the prebuilt C++ solution; `--solver` keeps just that one) over the
  `external_cases`;
- the floor: `for f in *.in; do BIN < $f > /dev/null; done` in a shell, over the same files.

Each run's printed summary must show every case `AC` for exactly the solvers asked for.

Goals: built-in cases/s at least 20x the shell loop's; external time within 1.5x of the loop's.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import (
    BenchContext,
    ProcessRun,
    fail,
    goal,
    median,
    pipeline_argv,
    record,
    say,
    spawn_timed,
)
from benchmarks.ingest import distinct_cases, write_pairs
from pipeline.problems import get_problem

SECTION = "throughput"
BUILTIN_GOAL = 20.0
EXTERNAL_GOAL = 1.5


@dataclass(frozen=True)
class RunCorpus:
    problem: str
    data_dir: Path
    cases: int
    external_cases: int

    @property
    def external_dir(self) -> Path:
        return self.data_dir / "raw" / self.problem / "ext"


def expected_stage(problem_id: str) -> str:
    """The first trusted stage of the problem's reference order other than `fast`."""
    problem = get_problem(problem_id)
    trusted = {s.name for s in problem.trusted_stages}
    for name in problem.reference:
        if name in trusted and name != "fast":
            return name
    return "fast"


def run_corpus(ctx: BenchContext, problem_id: str, cases: int = 20_000,
               external_cases: int = 2_000) -> RunCorpus:
    """Write and ingest (in-process, untimed) `cases` distinct tiny cases of the problem."""
    from pipeline.corpus.ingest import ingest

    root = ctx.work_dir / "run"
    drawn = distinct_cases(problem_id, "tiny", cases)
    stage = expected_stage(problem_id)
    problem = get_problem(problem_id)
    if not all(problem.stage(stage).accepts(case) for _, case in drawn):
        stage = "fast"
    raw = root / "raw" / problem_id
    write_pairs(raw / "ext", problem_id, drawn[:external_cases], stage)
    write_pairs(raw / "rest", problem_id, drawn[external_cases:], stage,
                 start=external_cases + 1)
    summary = ingest(root, [root / "raw"])
    if summary.rejected:
        fail(ctx, f"throughput corpus: {summary.rejected} rejected cases on ingest")
    return RunCorpus(problem_id, root, cases, external_cases)


def _verdicts(log: Path) -> dict[str, dict[str, int]]:
    """solver -> verdict counts, read off `pipeline run`'s summary lines."""
    out: dict[str, dict[str, int]] = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        match = re.match(r"\s+(\S+)\s+((?:[A-Z]+=\d+ ?)+)", line)
        if match:
            out[match.group(1)] = {k: int(v) for k, v in
                                   re.findall(r"([A-Z]+)=(\d+)", match.group(2))}
    return out


def _pipeline_run(ctx: BenchContext, corpus: RunCorpus, extra: list[str], label: str,
                  expect: dict[str, int]) -> ProcessRun:
    log = corpus.data_dir / f"{label}.log"
    argv = [*pipeline_argv(), "--data-dir", str(corpus.data_dir), "run", "--problem",
            corpus.problem, *extra]
    run = spawn_timed(argv, stdout=log)
    verdicts = _verdicts(log) if log.exists() else {}
    if run.exit_code != 0:
        fail(ctx, f"{label}: `pipeline run` exited with {run.exit_code}: "
             f"{run.stderr.strip()[-300:]}")
    for solver, count in expect.items():
        got = verdicts.get(solver, {})
        if got.get("AC", 0) != count:
            fail(ctx, f"{label}: {solver} got {got or 'no summary'}, expected AC={count}")
    extra = sorted(set(verdicts) - set(expect))
    if extra:
        fail(ctx, f"{label}: `pipeline run` also ran {', '.join(extra)}")
    return run


def run_throughput(ctx: BenchContext, corpus: RunCorpus, binary: tuple[str, ...] | None,
                   repeats: int = 3, external_repeats: int = 1) -> dict:
    """Time the built-in run, the external run and the shell loop; print and record.

    The built-in run and the shell loop are taken `repeats` times, the (long) external run
    `external_repeats` times; all alternate."""
    say(f"`pipeline run` end to end (real processes), {corpus.problem} tiny cases; medians of "
        f"{repeats} ({external_repeats} for the external program's run), alternating")
    keys = dict(problem=corpus.problem, recipe="tiny")
    samples: dict[str, list[float]] = {"builtin": [], "external": [], "shell": []}
    n = corpus.external_cases
    loop = None
    if binary is not None:
        command = " ".join(shlex.quote(part) for part in binary)
        loop = ["bash", "-c", f'for f in *.in; do {command} < "$f" > /dev/null; done']
    for rep in range(max(repeats, external_repeats)):
        if rep < repeats:
            run = _pipeline_run(ctx, corpus, ["--solver", "fast"], "builtin",
                                {"fast": corpus.cases})
            samples["builtin"].append(run.wall_s)
            record(ctx, SECTION, "wall_s", run.wall_s, "s", solver="fast", size=corpus.cases,
                   repeat=rep, **keys)
        if binary is None:
            continue
        if rep < external_repeats:
            external = f"ours={' '.join(shlex.quote(p) for p in binary)}"
            run = _pipeline_run(ctx, corpus, ["--group", "ext", "--external", external,
                                              "--solver", "ours"], "external", {"ours": n})
            samples["external"].append(run.wall_s)
            record(ctx, SECTION, "wall_s", run.wall_s, "s", solver="cpp", size=n, repeat=rep,
                   **keys)
        if rep < repeats:
            run = spawn_timed(loop, cwd=corpus.external_dir)
            if run.exit_code != 0:
                fail(ctx, f"the shell loop exited with {run.exit_code}: {run.stderr[-300:]}")
            samples["shell"].append(run.wall_s)
            record(ctx, SECTION, "wall_s", run.wall_s, "s", solver="shell-loop", size=n,
                   repeat=rep, **keys)
    result: dict = {"problem": corpus.problem}
    builtin_s = median(samples["builtin"])
    builtin_rate = corpus.cases / builtin_s
    record(ctx, SECTION, "wall_s_median", builtin_s, "s", solver="fast", size=corpus.cases,
           **keys)
    record(ctx, SECTION, "cases_per_s", builtin_rate, "cases/s", solver="fast",
           size=corpus.cases, **keys)
    say(f"  built-in fast: {corpus.cases:>6} cases in {builtin_s:6.2f} s = "
        f"{builtin_rate:>7,.0f} cases/s")
    result.update(builtin_s=builtin_s, builtin_rate=builtin_rate)
    if binary is None:
        say("  (no C++ binary: external and shell-loop figures skipped)")
        return result
    external_s, shell_s = median(samples["external"]), median(samples["shell"])
    external_rate, shell_rate = n / external_s, n / shell_s
    builtin_ratio = builtin_rate / shell_rate
    external_ratio = external_s / shell_s
    for solver, seconds, rate in (("cpp", external_s, external_rate),
                                  ("shell-loop", shell_s, shell_rate)):
        record(ctx, SECTION, "wall_s_median", seconds, "s", solver=solver, size=n, **keys)
        record(ctx, SECTION, "cases_per_s", rate, "cases/s", solver=solver, size=n, **keys)
    record(ctx, SECTION, "ratio_builtin_shell_rate", builtin_ratio, "x", solver="fast", **keys)
    record(ctx, SECTION, "ratio_external_shell_time", external_ratio, "x", solver="cpp", **keys)
    say(f"  external cpp:  {n:>6} cases in {external_s:6.2f} s = {external_rate:>7,.0f} cases/s")
    say(f"  shell loop:    {n:>6} cases in {shell_s:6.2f} s = {shell_rate:>7,.0f} cases/s "
        "(one process per case, one at a time)")
    mark = goal(ctx, SECTION, builtin_ratio >= BUILTIN_GOAL,
                f"built-in fast {builtin_rate:,.0f} cases/s = {builtin_ratio:.1f}x the shell "
                f"loop's {shell_rate:,.0f} cases/s (goal >= 20x)", solver="fast", **keys)
    say(f"  built-in / shell loop cases/s = {builtin_ratio:5.1f}x  (goal >= 20x: {mark})")
    mark = goal(ctx, SECTION, external_ratio <= EXTERNAL_GOAL,
                f"external cpp {external_s:.2f} s = {external_ratio:.2f}x the shell loop's "
                f"{shell_s:.2f} s for {n} cases (goal <= 1.5x)", solver="cpp", **keys)
    say(f"  external / shell loop time    = {external_ratio:5.2f}x  (goal <= 1.5x: {mark})")
    result.update(external_s=external_s, shell_s=shell_s, builtin_ratio=builtin_ratio,
                  external_ratio=external_ratio)
    return result
