"""`contests`: a whole contest judged by `pipeline run --contest --fail-fast` against its
floor, and beside `bt run` at the contest's root.

Setters judge contests, not single packages. The contests are the real ones fetched here
(the karwa-org/karwa20xx snapshots, under the folder `GAMEBENCH_SNAPSHOTS` names; what a
snapshot lacks, large blobs, is left out as a checkout may lack it); the quick version takes
four small problems of the first. Per contest, on a fresh copy and a fresh data folder:

- the pipeline: `pipeline ingest` (untimed here), then `pipeline run --contest NAME
  --fail-fast` (stopped at a submission's first failure, as bt stops it), timed whole;
- its floor, from what the run recorded, per package and for the contest (`benchmarks.floor`:
  the longest chain of work that must follow one another, or every program's CPU time over
  the cores), and the share of its wall time the cores were busy with those programs;
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
import os
import re
import shutil
import subprocess
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
from benchmarks.floor import (
    BUSY_GOAL,
    FLOOR_GOAL,
    Floor,
    chain_tails,
    list_schedule,
    measured_floor,
    schedule_floor,
)
from benchmarks.peers import _fresh_copy, bapctools, bt_copy, bt_verdicts
from pipeline.packages.expectations import kattis_class

CONTESTS = ("karwa-org/karwa2023", "karwa-org/karwa2024", "karwa-org/karwa2025")
QUICK_PROBLEMS = ("allumettes", "circuitconfort", "navettes", "stockagefacile")
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
