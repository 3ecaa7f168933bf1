"""The floor of a measured run: what its programs needed at least, from what it recorded.

A run's floor is the larger of (a) the longest chain of work that must follow one another -
a submission's build, then its runs: its longest run (one meant to time out runs to the high
end), or all of them one after another for one run a case at a time (one not expected to
pass, stopped at its first failure under `--fail-fast`) - and (b) the CPU time of every
program that ran (every judged run with every pass of a multi-pass case and what judged it:
an output validator, interactor or checker; every build of a submission) divided by the
cores. The `contests` section holds a whole contest to it, the `peers` section each package;
both also say the share of the wall time the cores were busy with those programs.

`list_schedule` replays a run's jobs and chains on N workers (`simulated` in `contests`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

FLOOR_GOAL = 1.15  # the wall time at most this many times the floor
BUSY_GOAL = 0.85  # the cores busy with the programs at least this share of the wall time


@dataclass
class Floor:
    """What a package's (or a contest's) runs needed at least."""

    chain_s: float = 0.0      # the longest chain of work that must follow one another
    cpu_s: float = 0.0        # the CPU time of every program that ran
    runs: int = 0
    span_s: float = 0.0       # a package's run, from its start to its end (in the contest's)
    jobs_s: dict[int, float] = field(default_factory=dict)  # jobs running -> seconds so
    per_problem: dict[str, Floor] = field(default_factory=dict)
    jobs: list[SimJob] = field(default_factory=list)  # its jobs and chains (`list_schedule`)
    cpu_jobs: list[SimJob] = field(default_factory=list)  # the same, each its CPU time

    def floor_s(self, cores: int) -> float:
        return max(self.chain_s, self.cpu_s / cores)


def measured_floor(data: Path, since: float) -> Floor:
    """The floor of the runs recorded in the data folder `data` (see the module docstring):
    their results, and the builds of submissions made since `since` (a time stamp)."""
    import polars as pl

    from pipeline.tables.files import read_file
    from pipeline.tables.schemas import RESULTS

    files = sorted((data / "tables" / "results").glob("*.parquet"))
    if not files:
        return Floor()
    # a run's CPU time is every program's it took (`programs_cpu_ms`: all passes of a
    # multi-pass case, its validator, interactor or checker) and its wall time the time over
    # them all (`elapsed_ms`); in a folder stored before those columns, the solver's own
    # (each file read as the pipeline reads it: a column it lacks is null)
    results = pl.concat([read_file(path, RESULTS, list(RESULTS)) for path in files]).select(
        "problem", "solver", "verdict", pl.coalesce("programs_cpu_ms", "cpu_ms").alias("cpu_ms"),
        pl.coalesce("elapsed_ms", "wall_ms").alias("wall_ms"), "finished_at")
    builds: dict[str, list[tuple[float, float]]] = defaultdict(list)
    # (problem, submission) -> its build's CPU and wall time, where the build names its source
    built: dict[tuple[str, str], tuple[float, float]] = {}
    for path in (data / "build").glob("**/builds/*/result.json"):
        if path.stat().st_mtime < since:
            continue
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for source in result.get("sources", [])[:1]:  # DATA/problems/<id>/.../submissions/
            try:
                parts = Path(source).resolve().relative_to((data / "problems").resolve()).parts
            except ValueError:
                continue
            if "submissions" in parts and "cpu_s" in result:
                builds[parts[0]].append((result["cpu_s"], result["wall_s"]))
                at = parts.index("submissions")
                if len(parts) >= at + 3:
                    built[(parts[0], "/".join(parts[at + 1:at + 3]))] = (
                        result["cpu_s"], result["wall_s"])
    spans: dict[str, float] = {}
    for path in sorted((data / "tables" / "runs").glob("*.parquet")):
        for row in pl.read_parquet(path).iter_rows(named=True):
            if row.get("started_at") and row.get("finished_at"):
                spans[row["problem"]] = (row["finished_at"] - row["started_at"]).total_seconds()
    contest = Floor()
    for (problem,), rows in results.group_by(["problem"]):
        own = Floor(runs=rows.height, span_s=spans.get(str(problem), 0.0))
        own.cpu_s = float(rows["cpu_ms"].fill_null(0).sum()) / 1000 + \
            sum(cpu for cpu, _ in builds.get(problem, []))
        longest = 0.0
        for (solver,), runs in rows.group_by(["solver"]):
            walls = runs.filter(pl.col("verdict") != "SKIP")["wall_ms"].fill_null(0)
            one_at_a_time = not str(solver).startswith("accepted/")
            longest = max(longest, float(walls.sum() if one_at_a_time else walls.max() or 0)
                          / 1000)
        own.chain_s = max((wall for _, wall in builds.get(problem, [])), default=0.0) + longest
        contest.per_problem[str(problem)] = own
        contest.cpu_s += own.cpu_s
        contest.runs += own.runs
        contest.chain_s = max(contest.chain_s, own.chain_s)
    contest.jobs_s = jobs_running(results.filter(pl.col("verdict") != "SKIP"))
    judged = results.filter(pl.col("verdict") != "SKIP")
    contest.jobs = simulated_jobs(judged, built, cpu=False)
    contest.cpu_jobs = simulated_jobs(judged, built, cpu=True)
    return contest


@dataclass(frozen=True)
class SimJob:
    """A job of a measured run, for `list_schedule`: how long it held its worker and the
    jobs (their places in the list, all before its own) it must follow."""

    seconds: float
    after: tuple[int, ...] = ()


def simulated_jobs(results, built: dict[tuple[str, str], tuple[float, float]],
                   cpu: bool) -> list[SimJob]:
    """The jobs of a measured run (`results`: its rows but SKIP) with the chains the floor
    counts: a submission's build (`built`: (problem, submission) -> its CPU and wall time,
    where known) before its runs, and the runs of one run a case at a time (not `accepted/`:
    stopped at its first failure under --fail-fast) one after another, in the order they
    ran; each holds a worker for its wall time, or with `cpu` its CPU time (what it needs
    of a core, which the machine's other work does not stretch)."""
    jobs: list[SimJob] = []
    for (problem, solver), rows in sorted(results.group_by(["problem", "solver"]),
                                          key=lambda item: (str(item[0][0]), str(item[0][1]))):
        head: tuple[int, ...] = ()
        if (str(problem), str(solver)) in built:
            jobs.append(SimJob(built[(str(problem), str(solver))][0 if cpu else 1]))
            head = (len(jobs) - 1,)
        chained = not str(solver).startswith("accepted/")
        times = [(finished.timestamp() - (wall or 0.0) / 1000 if finished else 0.0,
                  ((used if cpu else wall) or 0.0) / 1000)
                 for finished, wall, used in zip(rows["finished_at"], rows["wall_ms"],
                                                 rows["cpu_ms"])]
        for _, seconds in sorted(times):
            jobs.append(SimJob(seconds, head))
            if chained:
                head = (len(jobs) - 1,)
    return jobs


def list_schedule(jobs: list[SimJob], workers: int) -> float:
    """The wall time of `jobs` on `workers` workers by list scheduling: whenever a worker is
    free it takes, of the jobs whose predecessors are done, the one with the longest chain
    still to follow from it (the chains first, as the contest's queue ranks them; the first
    listed on a tie); nothing else costs time."""
    import heapq

    tail = chain_tails(jobs)
    waiting = [len(job.after) for job in jobs]
    followers: list[list[int]] = [[] for _ in jobs]
    for index, job in enumerate(jobs):
        for before in job.after:
            followers[before].append(index)
    ready = [(-tail[i], i) for i, job in enumerate(jobs) if not job.after]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    now = 0.0
    while ready or running:
        while ready and len(running) < workers:
            _, index = heapq.heappop(ready)
            heapq.heappush(running, (now + jobs[index].seconds, index))
        now, index = heapq.heappop(running)
        for follower in followers[index]:
            waiting[follower] -= 1
            if not waiting[follower]:
                heapq.heappush(ready, (-tail[follower], follower))
    return now


def chain_tails(jobs: list[SimJob]) -> list[float]:
    """Per job, the longest chain of work from its start to the end (itself and the longest
    chain of the jobs that follow it)."""
    tail = [job.seconds for job in jobs]
    for index in range(len(jobs) - 1, -1, -1):
        for before in jobs[index].after:
            if before >= index:
                raise ValueError(f"job {index} follows job {before}, not listed before it")
            tail[before] = max(tail[before], jobs[before].seconds + tail[index])
    return tail


def schedule_floor(jobs: list[SimJob], workers: int) -> float:
    """No schedule of `jobs` on `workers` workers ends sooner: the longest chain, or the
    total work shared by the workers."""
    return max(max(chain_tails(jobs), default=0.0), sum(j.seconds for j in jobs) / workers)


def jobs_running(results) -> dict[int, float]:
    """How many seconds each number of jobs was running at once, from the first job's start
    to the last one's end (each job from its end, `finished_at`, back by its wall time): a
    measure of how full the queue kept the cores that the machine's other work does not
    change."""
    events = []
    for finished, wall_ms in zip(results["finished_at"], results["wall_ms"]):
        if finished is None:
            continue
        end = finished.timestamp()
        events += [(end - (wall_ms or 0.0) / 1000, 1), (end, -1)]
    events.sort()
    seconds: dict[int, float] = defaultdict(float)
    running, last = 0, events[0][0] if events else 0.0
    for moment, change in events:
        seconds[running] += moment - last
        running, last = running + change, moment
    return dict(seconds)
