"""Helpers for the run-layer tests: the toy problem, real programs, real corpora.

Every test here has the toy problem registered (`tests/fixtures/problems/toy/`). Test programs are
tiny Python scripts in `programs/` (run with this interpreter) and C++ programs compiled once
per session with g++. Corpora are ingested with the real ingest into a temporary data dir.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

# (the tests import them from here)
from processkit import alive, children_of, descendants_of  # noqa: F401

from pipeline.corpus.ingest import ingest
from pipeline.programs.jobs import Job, Outcome, SolverSpec
from pipeline.run.executors import LocalPoolExecutor
from pipeline.tables.results import read_run_results, read_runs

PROGRAMS = Path(__file__).resolve().parent / "programs"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _toy_registered(toy):
    return toy


def py(name: str, *args: str) -> tuple[str, ...]:
    """argv running the Python test program `programs/<name>.py`."""
    return (sys.executable, str(PROGRAMS / f"{name}.py"), *args)


def command(argv: tuple[str, ...]) -> str:
    """The argv as one `--external` command line (paths here have no spaces)."""
    return " ".join(argv)


@pytest.fixture(scope="session")
def cpp(tmp_path_factory) -> dict[str, str]:
    """name -> executable of every `programs/*.cpp`, compiled once."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    out = tmp_path_factory.mktemp("cpp")
    sources = sorted(PROGRAMS.glob("*.cpp"))
    builds = {src.stem: subprocess.Popen(["g++", "-O1", "-o", str(out / src.stem), str(src)])
              for src in sources}
    for name, build in builds.items():
        assert build.wait() == 0, f"g++ failed on {name}.cpp"
    return {name: str(out / name) for name in builds}


def stage(name: str, timeout_s: float = 5.0) -> SolverSpec:
    return SolverSpec(name=name, kind="stage", problem="toy", stage=name, timeout_s=timeout_s)


def external(argv: tuple[str, ...], timeout_s: float = 5.0, name: str = "prog",
             **limits) -> SolverSpec:
    return SolverSpec(name=name, kind="external", problem="toy", argv=tuple(argv),
                      timeout_s=timeout_s, **limits)


def jobs_of(pairs: list[tuple[SolverSpec, str]]) -> list[Job]:
    return [Job(i, spec, f"case{i}", text) for i, (spec, text) in enumerate(pairs)]


def run_jobs(executor: LocalPoolExecutor, jobs: list[Job]) -> dict[int, Outcome]:
    """Every job's outcome by key; fails if a job gets none or two."""
    outcomes: dict[int, Outcome] = {}
    for job, outcome in executor.run(jobs):
        assert outcome.key == job.key
        assert job.key not in outcomes, f"job {job.key} got two outcomes"
        outcomes[job.key] = outcome
    assert sorted(outcomes) == sorted(job.key for job in jobs)
    return outcomes


def run_one(executor: LocalPoolExecutor, spec: SolverSpec, text: str = "2 3\n") -> Outcome:
    return run_jobs(executor, [Job(0, spec, "case", text)])[0]


@pytest.fixture(scope="module")
def pool():
    """Two workers shared by a module's tests (started on first use)."""
    with LocalPoolExecutor(2) as executor:
        yield executor


def corpus(data_dir: Path, cases: dict[str, tuple[str, str | None]]) -> Path:
    """Ingest `{relative path: (input, expected or None)}` as toy cases into `data_dir`."""
    raw = data_dir.parent / f"{data_dir.name}-raw"
    for rel, (text, expected) in cases.items():
        path = raw / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if expected is not None:
            path.with_suffix(".out").write_text(expected)
    summary = ingest(data_dir, [raw], problem_override="toy")
    assert not summary.problems["toy"].rejects
    return raw


def results(data_dir: Path, run_id: str) -> pl.DataFrame:
    return read_run_results(data_dir, run_id)


def graded(data_dir: Path, run_id: str) -> pl.DataFrame:
    """The run's results with each case's `source` (its file name) and `input` joined on."""
    cases = pl.read_parquet(data_dir / "tables" / "cases" / "toy.parquet")
    names = cases.select("case_id", pl.col("source").str.split("/").list.last().alias("name"),
                         "input")
    return results(data_dir, run_id).join(names, on="case_id", how="left")


def verdicts(frame: pl.DataFrame) -> dict[tuple[str, str], str]:
    """(case file name, solver) -> verdict, for a run without repeats."""
    pairs = [((row["name"], row["solver"]), row["verdict"]) for row in frame.iter_rows(named=True)]
    found = dict(pairs)
    assert len(found) == len(pairs), "a (case, solver) pair has two results"
    return found


def pipeline_argv(data_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pipeline", "--data-dir", str(data_dir), *args]


def run_cli(data_dir: Path, *args: str, cwd: Path | None = None, timeout: float = 60,
            wrapper: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """`python -m pipeline --data-dir D ARGS...` in a real process, run by the command
    `wrapper` when one is given (`nice -n 5`)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([*wrapper, *pipeline_argv(data_dir, *args)], cwd=cwd or REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def wait_until(condition, timeout: float = 10.0, interval: float = 0.02) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(interval)
    return condition()



def processes_with(token: str) -> dict[int, list[str]]:
    """pid -> argv of every live process with `token` as one of its arguments (what a program
    forks shares its command line; pids seen from here, whatever namespace it runs in)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                argv = [word.decode(errors="replace") for word in handle.read().split(b"\0")]
        except OSError:
            continue
        if token in argv and alive(int(entry)):
            found[int(entry)] = argv
    return found


def running_program(token: str, script: str) -> list[int]:
    """Pids of the live processes of the Python test program `script` marked by `token`."""
    return [pid for pid, argv in processes_with(token).items()
            if len(argv) > 1 and argv[1].endswith(f"/{script}.py")]



FAIL_FAST_CASES = {f"a/{i:04d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(1000)}


def check_fail_fast(data_dir: Path, run_id: str) -> pl.DataFrame:
    """A --fail-fast run of `fast` and `wrong` over FAIL_FAST_CASES: `fast` ran every case;
    `wrong` (WA where a is odd) failed once or more before it was stopped, and each case it
    did not run is stored as SKIP naming the case it failed first. Returns the results."""
    frame = results(data_dir, run_id)
    fast = frame.filter(pl.col("solver") == "fast")
    assert fast["verdict"].to_list() == ["AC"] * len(FAIL_FAST_CASES)
    wrong = frame.filter(pl.col("solver") == "wrong").sort("finished_at", maintain_order=True)
    assert wrong.height == len(FAIL_FAST_CASES)  # one row per case: run, or not run
    counts = dict(wrong["verdict"].value_counts().iter_rows())
    assert set(counts) <= {"AC", "WA", "SKIP"} and counts.get("WA", 0) >= 1, counts
    assert counts.get("SKIP", 0) > len(FAIL_FAST_CASES) // 4, counts  # most were never run
    first = wrong.filter(pl.col("verdict") == "WA")["case_id"][0]
    skipped = wrong.filter(pl.col("verdict") == "SKIP")
    assert set(skipped["error"]) == {f"not run (--fail-fast): failed case {first} before"}
    assert skipped["wall_ms"].null_count() == skipped.height  # never started
    [row] = read_runs(data_dir).filter(pl.col("run_id") == run_id).iter_rows(named=True)
    assert row["fail_fast"] is True and row["status"] == "finished"
    return frame


WAITS_FOR_MARK = """import os, sys, time
end = time.monotonic() + 20
while not os.path.exists(sys.argv[1]) and time.monotonic() < end:
    time.sleep(0.02)
print("seen" if os.path.exists(sys.argv[1]) else "alone")
"""


def check_turns_by_problem(pool, tmp_path: Path) -> None:
    """Two problems' runs on one queue on `pool` (closed here), each with a solver named
    `prog` run one at a time: the first's job waits for a mark the second's jobs leave, so it
    sees it only when the second problem's `prog` is not held back by the first's (turns are
    a problem's own) and runs while it waits; each run gets exactly its own jobs' outcomes,
    in any order."""
    import threading
    from dataclasses import replace

    from pipeline.run.queue import ContestQueue

    mark, script = tmp_path / "mark", tmp_path / "waits.py"
    script.write_text(WAITS_FOR_MARK)
    waits = replace(external((sys.executable, str(script), str(mark)), timeout_s=30),
                    problem="arc087e")
    leaves = replace(external(("/bin/sh", "-c", f"touch {mark}; echo left"), timeout_s=30),
                     problem="movcoin2")
    queue = ContestQueue(pool, {"arc087e": 0, "movcoin2": 1})
    got: dict[str, list] = {}

    def judge(spec, count: int) -> None:
        jobs = [Job(i, spec, f"case{i}", "") for i in range(count)]
        got[spec.problem] = [(job.key, outcome.answer) for job, outcome in
                             queue.lane(spec.problem).run(jobs, one_at_a_time=frozenset({"prog"}))]

    try:
        threads = [threading.Thread(target=judge, args=(waits, 1)),
                   threading.Thread(target=judge, args=(leaves, 3))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        queue.close()
    assert got["arc087e"] == [(0, "seen\n")]
    assert sorted(got["movcoin2"]) == [(0, "left\n"), (1, "left\n"), (2, "left\n")]
