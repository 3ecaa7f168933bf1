"""`contests`: a whole contest judged by `pipeline run --contest --fail-fast` against its
floor, and beside `bt run` at the contest's root.

Setters judge contests, not single packages. The contests are the real ones fetched here
(the karwa-org/karwa20xx snapshots, under the folder `GAMEBENCH_SNAPSHOTS` names; what a
snapshot lacks, large blobs, is left out as a checkout may lack it); the quick version takes
four small problems of the first. Per contest, on a fresh copy and a fresh data folder:

- the pipeline: `pipeline ingest` (untimed here), then `pipeline run --contest NAME
  --fail-fast` (stopped at a submission's first failure, as bt stops it), timed whole;
- its floor, from what the run recorded, per package and for the contest: the larger of (a)
  the longest chain of work that must follow one another - a submission's build, then its
  runs: its longest run (one meant to time out runs to the high end), or all of them one after
  another for one run a case at a time (one not expected to pass, stopped at its first
  failure) - and (b) the CPU time of every program that ran (every judged run, every build of
  the run) divided by the cores;
- the share of its wall time the cores were busy with those programs (their CPU time over
  wall time x cores);
- the same run on a local Dask cluster of two workers (`--executor dask --jobs 2`, no
  scheduler: the run starts it on loopback and stops it), on its own fresh copy and data
  folder, beside the local pool's run, and how many verdicts the two runs share;
- a simulation of the local run on 1, 2, 4, 8 and 16 workers: its stored jobs (each its wall
  time, then its CPU time) with the chains the floor counts, list-scheduled chains first,
  beside the floor with N workers (the longest chain, or the work over N);
- `bt run --no-bar` at the contest's root (its packages upgraded to bt's format first,
  untimed), on a fresh TMPDIR, at the limits the packages give (the same the pipeline judges
  at), and how many of the submissions both judged got the same verdict.

Goals: the pipeline's wall time at most 1.15x its floor, the cores busy at least 85% of it,
on Dask at most 1.2x the local pool's, and at most 0.5x bt's wall time.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.common import (
    BenchContext,
    ProcessRun,
    goal,
    load_average,
    pipeline_argv,
    record,
    say,
    spawn_timed,
)
from benchmarks.peers import _fresh_copy, bapctools, bt_copy, bt_verdicts
from pipeline.packages.expectations import kattis_class

CONTESTS = ("karwa-org/karwa2023", "karwa-org/karwa2024", "karwa-org/karwa2025")
QUICK_PROBLEMS = ("allumettes", "circuitconfort", "navettes", "stockagefacile")
FLOOR_GOAL = 1.15
BUSY_GOAL = 0.85
BT_GOAL = 0.5
DASK_WORKERS = 2
DASK_GOAL = 1.2
SIMULATED_WORKERS = (1, 2, 4, 8, 16)
# A row of the contest summary: problem (label and id), submission, expected, got.
_SUMMARY_ROW = re.compile(r"^  (\S+ \S+|\S+)\s{2,}(\S+/\S+)\s{2,}(\S+)\s{2,}([A-Z]+)\s{2,}",
                          re.MULTILINE)


def snapshot_dir(repo: str) -> Path:
    """The git folder of the fetched snapshot of `repo` ("owner/name")."""
    base = os.environ.get("GAMEBENCH_SNAPSHOTS") or "/nonexistent"
    return Path(base) / repo.replace("/", "+") / "repo"


def extract_present(git_dir: Path, folders: list[str], target: Path) -> list[str]:
    """Write the files of `folders` (all, when empty) of the snapshot's HEAD that it holds
    under `target` (links as links, modes kept); returns the paths it lacks (a snapshot may
    lack large blobs, as a checkout may lack files)."""
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "HEAD",
                              "--", *folders], capture_output=True, check=True).stdout
    entries = []
    for entry in filter(None, listing.split(b"\0")):
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, path.decode()))
    if not entries:
        return []
    batch = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                           input=b"".join(sha + b"\n" for _, sha, _ in entries),
                           capture_output=True, check=True).stdout
    stream = io.BytesIO(batch)
    missing = []
    for mode, _, path in entries:
        header = stream.readline().split()
        if header[1] == b"missing":
            missing.append(path)
            continue
        content = stream.read(int(header[2]))
        stream.read(1)  # the newline after each object
        file = target / path
        file.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            file.symlink_to(content.decode())
        else:
            file.write_bytes(content)
            if mode == b"100755":
                file.chmod(0o755)
    return missing


def contest_copy(repo: str, where: Path, only: tuple[str, ...] = ()) -> Path | None:
    """The contest of snapshot `repo` written under `where` (None: not fetched here): its
    top-level files and its problems (`only` those, its problems.yaml cut to them)."""
    git_dir = snapshot_dir(repo)
    if not git_dir.is_dir():
        return None
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    top = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "--name-only", "HEAD"],
                         capture_output=True, text=True, check=True).stdout.split()
    keep = [name for name in top if not only or name in only or "." in name or
            name in ("contest.yaml", "problems.yaml")]
    extract_present(git_dir, keep, where)
    listed = where / "problems.yaml"
    if only and listed.is_file():
        blocks = re.split(r"(?m)^(?=- )", listed.read_text(encoding="utf-8"))
        listed.write_text("".join(b for b in blocks if not b.startswith("- ") or
                                  _listed_id(b) in only), encoding="utf-8")
    return where


def _listed_id(block: str) -> str | None:
    """The id of a problems.yaml entry (`- id: NAME ...`)."""
    found = re.match(r"- id:\s*['\"]?([\w.-]+)", block)
    return found.group(1) if found else None


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

    files = sorted((data / "tables" / "results").glob("*.parquet"))
    if not files:
        return Floor()
    results = pl.read_parquet(files, columns=["problem", "solver", "verdict", "cpu_ms",
                                              "wall_ms", "finished_at"])
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


def pipeline_verdicts(text: str) -> dict[tuple[str, str], str]:
    """(problem id, submission) -> verdict, from the contest summary of `pipeline run
    --contest`."""
    return {(problem.split()[-1], submission): got
            for problem, submission, _, got in _SUMMARY_ROW.findall(text)}


def bt_contest_verdicts(text: str) -> dict[tuple[str, str], str]:
    """(problem id, submission) -> verdict, from `bt run --no-bar` at a contest's root (each
    problem's lines after its `PROBLEM name` line)."""
    found: dict[tuple[str, str], str] = {}
    for block in re.split(r"(?m)^PROBLEM ", text)[1:]:
        name, _, rest = block.partition("\n")
        for submission, verdict in bt_verdicts(rest).items():
            found[(name.strip(), submission)] = verdict
    return found


def run_bt_contest(bt: Path, source: Path, scratch: Path) -> tuple[ProcessRun, dict]:
    """`bt run --no-bar` at the root of a fresh copy of the contest `source` (its packages
    upgraded to bt's format first, untimed), with a fresh TMPDIR; its run and verdicts."""
    copy, env = bt_copy(bt, source, scratch)
    out, err = scratch / "bt-stdout.txt", scratch / "bt-stderr.txt"
    run = spawn_timed([str(bt), "run", "--no-bar"], stdout=out, cwd=copy, env=env, stderr=err)
    text = out.read_text(encoding="utf-8", errors="replace") + \
        err.read_text(encoding="utf-8", errors="replace")
    return run, bt_contest_verdicts(text)


def run_pipeline_contest(source: Path, name: str, scratch: Path, options: tuple[str, ...] = (),
                         tag: str = "pipeline") -> tuple[ProcessRun, dict, Floor]:
    """`pipeline ingest` (untimed) then `pipeline run --contest NAME --fail-fast [OPTIONS]`
    on a fresh copy and data folder (named after `tag`); its run, verdicts and floor."""
    import time

    copy = _fresh_copy(source, scratch / tag / source.name)
    data = scratch / f"{tag}-data"
    shutil.rmtree(data, ignore_errors=True)
    command = [*pipeline_argv(), "--data-dir", str(data)]
    spawn_timed([*command, "ingest", "--allow-rejects", str(copy)],
                stdout=scratch / f"{tag}-ingest-stdout.txt")
    out = scratch / f"{tag}-stdout.txt"
    started = time.time()
    run = spawn_timed([*command, "run", "--contest", name, "--fail-fast", *options], stdout=out,
                      stderr=scratch / f"{tag}-stderr.txt")
    text = out.read_text(encoding="utf-8", errors="replace")
    return run, pipeline_verdicts(text), measured_floor(data, started)


def contest_name(source: Path) -> str:
    """The name the pipeline records the contest under: contest.yaml's id, else its folder."""
    found = re.search(r"^id:\s*['\"]?([\w.-]+)", (source / "contest.yaml").read_text(
        encoding="utf-8", errors="replace"), re.MULTILINE) \
        if (source / "contest.yaml").is_file() else None
    return found.group(1) if found else source.name


def run_contests(ctx: BenchContext, quick: bool) -> None:
    cores = os.cpu_count() or 1
    bt = bapctools(ctx)
    if bt is None:
        say("(bt is not here and could not be installed: the pipeline against its floor only)")
    say(f"{cores} cores; load average {load_average():.2f} (other work on these cores slows "
        "both tools and leaves the cores less busy with ours)")
    for repo in CONTESTS[:1] if quick else CONTESTS:
        scratch = ctx.work_dir / "contests" / repo.split("/")[-1]
        source = contest_copy(repo, scratch / "source", QUICK_PROBLEMS if quick else ())
        if source is None:
            say(f"({repo} is not fetched here ({snapshot_dir(repo)}): skipped)")
            continue
        name = contest_name(source)
        label = f"{name}{' (4 problems)' if quick else ''}"
        run, verdicts, floor = run_pipeline_contest(source, name, scratch)
        floor_s = floor.floor_s(cores)
        busy = floor.cpu_s / (run.wall_s * cores) if run.wall_s else 0.0
        say(f"{label}: {len(floor.per_problem)} problems, {floor.runs} runs; pipeline run "
            f"--contest --fail-fast {run.wall_s:.1f} s wall (exit {run.exit_code}); floor "
            f"{floor_s:.1f} s (longest chain {floor.chain_s:.1f} s, CPU {floor.cpu_s:.1f} s / "
            f"{cores} cores = {floor.cpu_s / cores:.1f} s); cores busy {busy:.0%}")
        say(f"  {'package':<22} {'chain':>7} {'cpu':>7} {'floor':>7} {'its run':>8} "
            f"{'runs':>6}  (its run: from its start to its end, beside the others)")
        for problem, own in sorted(floor.per_problem.items(),
                                   key=lambda item: -item[1].floor_s(cores)):
            say(f"  {problem:<22} {own.chain_s:>6.1f}s {own.cpu_s:>6.1f}s "
                f"{own.floor_s(cores):>6.1f}s {own.span_s:>7.1f}s {own.runs:>6}")
            record(ctx, "contests", "package_run_s", own.span_s, "s", problem=problem,
                   recipe=name)
            record(ctx, "contests", "package_floor_s", own.floor_s(cores), "s", problem=problem,
                   recipe=name)
            record(ctx, "contests", "package_chain_s", own.chain_s, "s", problem=problem,
                   recipe=name)
            record(ctx, "contests", "package_cpu_s", own.cpu_s, "s", problem=problem,
                   recipe=name)
        for metric, value in (("run_wall_s", run.wall_s), ("floor_s", floor_s),
                              ("chain_s", floor.chain_s), ("programs_cpu_s", floor.cpu_s),
                              ("busy_share", busy)):
            record(ctx, "contests", metric, value, "share" if metric == "busy_share" else "s",
                   problem=name)
        span = sum(floor.jobs_s.values())
        full = sum(t for n, t in floor.jobs_s.items() if n >= cores) / span if span else 0.0
        idle = floor.jobs_s.get(0, 0.0)
        record(ctx, "contests", "all_cores_running_share", full, "share", problem=name)
        say(f"  from the first job's start to the last one's end ({span:.1f} s): a job on "
            f"every core {full:.0%} of it, none for {idle:.1f} s")
        ratio = run.wall_s / floor_s if floor_s else float("inf")
        say(f"  pipeline / floor {ratio:.2f}x: "
            f"{goal(ctx, 'contests/floor', ratio <= FLOOR_GOAL, f'{label}: pipeline {ratio:.2f}x its floor (goal {FLOOR_GOAL}x)', problem=name)}; "  # noqa: E501
            f"cores busy {busy:.0%}: "
            f"{goal(ctx, 'contests/busy', busy >= BUSY_GOAL, f'{label}: cores busy {busy:.0%} (goal {BUSY_GOAL:.0%})', problem=name)}")  # noqa: E501
        on_dask(ctx, source, name, label, scratch, run, verdicts)
        simulated(ctx, name, floor)
        if bt is None:
            continue
        theirs_run, theirs = run_bt_contest(bt, source, scratch)
        say(f"  bt run at the contest root {beside(ctx, name, label, theirs_run, run, 'bt')}; "
            f"{compared(verdicts, theirs, 'pipeline', 'bt', kattis_class)}")


def on_dask(ctx: BenchContext, source: Path, name: str, label: str, scratch: Path,
            local: ProcessRun, verdicts: dict) -> None:
    """The same contest on a local Dask cluster of `DASK_WORKERS` workers (`--executor dask
    --jobs N` with no scheduler: the run starts it on loopback and stops it), beside the
    local pool's run (`local`, `verdicts`)."""
    run, theirs, _ = run_pipeline_contest(
        source, name, scratch, ("--executor", "dask", "--jobs", str(DASK_WORKERS)), tag="dask")
    say(f"  on a local {DASK_WORKERS}-worker Dask cluster (started by the run): "
        f"{beside(ctx, name, label, run, local, 'dask')}; "
        f"{compared(verdicts, theirs, 'local', 'Dask')}")


# other: (its name in the rows, the ratio's row, the ratio's words, the goal: at most)
_BESIDE = {"bt": ("bt", "pipeline_over_bt", "pipeline / bt", "bt run", BT_GOAL, True),
           "dask": ("dask", "dask_over_local", "Dask / local pool", "the local pool", DASK_GOAL,
                    False)}


def beside(ctx: BenchContext, name: str, label: str, other: ProcessRun, ours: ProcessRun,
           which: str) -> str:
    """Record the wall time of the run `other` (bt's, or the pipeline's on Dask: `which`)
    and its ratio to the local pool's (`ours`; bt's: ours over it), check the goal; the words
    that say so."""
    prefix, metric, words, against, most, ours_over = _BESIDE[which]
    top, bottom = (ours, other) if ours_over else (other, ours)
    ratio = top.wall_s / bottom.wall_s if bottom.wall_s else float("inf")
    record(ctx, "contests", f"{prefix}_wall_s", other.wall_s, "s", problem=name)
    record(ctx, "contests", metric, ratio, "ratio", problem=name)
    subject = "pipeline" if ours_over else "Dask"
    met = goal(ctx, f"contests/{which}", ratio <= most,
               f"{label}: {subject} {ratio:.2f}x {against} (goal {most}x)", problem=name)
    return (f"{other.wall_s:.1f} s wall (exit {other.exit_code}); {words} {ratio:.2f}x: "
            f"{met}")


def compared(ours: dict, theirs: dict, we: str, they: str, as_theirs=lambda v: v) -> str:
    """How many of the submissions both runs judged (`ours`, `theirs`: (problem,
    submission) -> verdict) got the same verdict (ours seen as theirs by `as_theirs`), and
    how many only one judged; then a line per one that differs."""
    shared = sorted(set(theirs) & set(ours))
    differ = [f"    differ: {p}/{s}: {they} {theirs[(p, s)]}, {we} {ours[(p, s)]}"
              for p, s in shared if theirs[(p, s)] != as_theirs(ours[(p, s)])]
    alone = len(set(theirs) ^ set(ours))
    return "\n".join([f"verdicts: {len(shared) - len(differ)}/{len(shared)} the same"
                      + (f" ({alone} judged by one run only)" if alone else ""), *differ])


def simulated(ctx: BenchContext, name: str, floor: Floor) -> None:
    """How the wall time of the measured run's jobs and chains (`Floor.jobs`) falls with more
    workers: list scheduling (`list_schedule`) beside the floor (`schedule_floor`), each job
    taking its measured wall time, and again its CPU time (`Floor.cpu_jobs`)."""
    if not floor.jobs:
        return
    say(f"  simulated on more workers: the local run's {len(floor.jobs)} jobs and chains, "
        "list scheduling, chains first; each job its wall time "
        f"({sum(j.seconds for j in floor.jobs):.1f} s of work, longest chain "
        f"{max(chain_tails(floor.jobs)):.1f} s), or its CPU time "
        f"({sum(j.seconds for j in floor.cpu_jobs):.1f} s, longest chain "
        f"{max(chain_tails(floor.cpu_jobs)):.1f} s):")
    say(f"    {'workers':>7} {'wall':>8} {'floor':>8} {'speed-up':>8}   {'cpu':>8} {'floor':>8} "
        f"{'speed-up':>8}")
    one = list_schedule(floor.jobs, 1), list_schedule(floor.cpu_jobs, 1)
    for workers in SIMULATED_WORKERS:
        cells = []
        for kind, jobs, first in (("wall", floor.jobs, one[0]), ("cpu", floor.cpu_jobs, one[1])):
            wall = list_schedule(jobs, workers)
            low = schedule_floor(jobs, workers)
            record(ctx, "contests", f"simulated_{kind}_s", wall, "s", problem=name, size=workers)
            record(ctx, "contests", f"simulated_{kind}_floor_s", low, "s", problem=name,
                   size=workers)
            cells.append(f"{wall:>7.1f}s {low:>7.1f}s {first / wall if wall else 0:>7.2f}x")
        say(f"    {workers:>7} {cells[0]}   {cells[1]}")
