"""Faults of the second hostile pass (issue 22) in runs and the command line, each reproduced
with real parts: real `pipeline` processes racing, a real `kill -9`, a pid really handed to
another process, a real full tmpfs. Each test is named after the fault's letter."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from diskkit import fill, small_disk
from runkit import REPO, alive, corpus, descendants_of, pipeline_argv, results, run_cli, wait_until

from pipeline.tables.lock import process_start
from pipeline.tables.results import read_runs, write_run
from pipeline.tables.schemas import RUNS

FIXTURE_TOY = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "toy"


def _start_run(data: Path, repeat: int, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        pipeline_argv(data, "run", "--problem", "toy", "--solver", "nap", "--jobs", "2",
                      "--repeat", str(repeat), *extra),
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _chunks(data: Path) -> list[Path]:
    return list((data / "tables" / "results").glob("*.parquet"))


def _kill_mid_run(data: Path, process: subprocess.Popen) -> dict:
    """Kill the run with -9 once it stored two chunks; its row (still `running`)."""
    try:
        assert wait_until(lambda: len(_chunks(data)) >= 2, timeout=60), "no results chunk"
        workers = descendants_of(process.pid)
        assert process.poll() is None, "the run finished before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    assert wait_until(lambda: not any(alive(pid) for pid in workers), timeout=10)
    [row] = read_runs(data).iter_rows(named=True)
    assert row["status"] == "running" and row["pid"] == process.pid
    return row


def _once_each(frame: pl.DataFrame) -> Counter:
    return Counter(zip(frame["case_id"], frame["solver"], frame["repeat"]))


def test_c2_two_resumes_of_one_run(tmp_path):
    cases, repeat = 600, 8
    data = tmp_path / "data"
    corpus(data, {f"a/{i:04d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(cases)})
    row = _kill_mid_run(data, _start_run(data, repeat))
    run_id = row["run_id"]
    before = results(data, run_id)
    assert 0 < before.height < cases * repeat

    argv = pipeline_argv(data, "run", "--problem", "toy", "--resume", run_id, "--jobs", "2")
    both = [subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    try:
        ended = [process.communicate(timeout=180) for process in both]
    finally:
        for process in both:
            if process.poll() is None:
                process.kill()
    codes = [process.returncode for process in both]
    assert sorted(codes) == [0, 1], ended
    (won_out, _), (_, lost_err) = ended[codes.index(0)], ended[codes.index(1)]
    assert f"run {run_id}: finished" in won_out
    assert f"run {run_id} is being run by pid" in lost_err  # it names who holds the run
    # one error line; before it, at most the note that the killed first run was marked
    # interrupted (whichever resume looks first settles it, the loser as well)
    lines = lost_err.strip().splitlines()
    assert "Traceback" not in lost_err and lines[-1].startswith("error: "), lost_err
    assert all(line == f"note: run {run_id} was left running by a process that is gone: "
               "marked interrupted" for line in lines[:-1]) and len(lines) <= 2, lost_err

    after = results(data, run_id)
    keys = _once_each(after)
    assert len(keys) == cases * repeat and set(keys.values()) == {1}
    assert before.join(after, on=["case_id", "solver", "repeat"], how="anti").is_empty()
    assert read_runs(data)["status"].to_list() == ["finished"]
    names = [path.name for path in _chunks(data)]
    assert len(names) == len(set(names))


def _taken_pid(pid: int) -> subprocess.Popen | None:
    """A new process given `pid` (the kernel's next pid set just below it, where it may be
    set), or None when it could not be arranged."""
    for _ in range(50):
        try:
            Path("/proc/sys/kernel/ns_last_pid").write_text(str(pid - 1))
        except OSError:
            return None
        other = subprocess.Popen(["sleep", "120"])
        if other.pid == pid:
            return other
        other.kill()
        other.wait()
    return None


def test_k5_a_dead_run_whose_pid_another_process_took_is_not_running(tmp_path):
    data = tmp_path / "data"
    corpus(data, {f"a/{i:04d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(400)})
    row = _kill_mid_run(data, _start_run(data, 5))
    assert row["pid_started"] is not None  # the run recorded when its process started
    other = _taken_pid(row["pid"])
    if other is None:  # no way to pick a pid here: give the row a live pid of another process
        other = subprocess.Popen(["sleep", "120"])
        write_run(data, {**{name: row.get(name) for name in RUNS}, "pid": other.pid})
    try:
        assert alive(other.pid) and process_start(other.pid) != row["pid_started"]
        found = run_cli(data, "doctor")
        assert found.returncode == 1, found.stdout
        assert f"run {row['run_id']}: left `running` by a process that is gone" in found.stdout
        fixed = run_cli(data, "doctor", "--fix")
        assert fixed.returncode == 0, fixed.stderr
        assert "marked 1 runs interrupted" in fixed.stdout
        assert read_runs(data)["status"].to_list() == ["interrupted"]
        assert alive(other.pid)  # the process that has the pid now is none of ours to touch
    finally:
        other.kill()
        other.wait()


def test_k5_a_live_run_is_still_running_for_doctor(tmp_path):
    data = tmp_path / "data"
    corpus(data, {f"a/{i:04d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(400)})
    process = _start_run(data, 10)
    try:
        assert wait_until(lambda: len(_chunks(data)) >= 1, timeout=60)
        found = run_cli(data, "doctor")
        assert found.returncode == 0, found.stdout  # its pid and start time are its own
    finally:
        process.kill()
        process.wait()


def test_d2_a_run_on_a_full_disk(tmp_path):
    cases, repeat = 300, 12
    with small_disk(tmp_path / "disk", "8m") as disk:
        data = disk / "data"
        corpus(data, {f"a/{i:04d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(cases)})
        process = _start_run(data, repeat)
        try:
            assert wait_until(lambda: len(_chunks(data)) >= 1, timeout=60), "no chunk written"
            ballast = fill(disk)
            out, err = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 1, (out, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert "no space left on device in" in err and str(data / "tables") in err
        [row] = read_runs(data).iter_rows(named=True)
        assert row["status"] == "failed"  # said with the disk still full
        assert f"run {row['run_id']} stopped" in err
        assert not list((data / "tables").rglob("*.tmp"))  # nothing half-written is left
        stored = results(data, row["run_id"])  # every chunk reads back whole
        assert 0 < stored.height < cases * repeat

        ballast.unlink()
        done = run_cli(data, "run", "--problem", "toy", "--resume", row["run_id"], "--jobs", "2")
        assert done.returncode == 0, done.stderr
        keys = _once_each(results(data, row["run_id"]))
        assert len(keys) == cases * repeat and set(keys.values()) == {1}
        assert read_runs(data)["status"].to_list() == ["finished"]


@pytest.mark.parametrize("command", ["ingest", "doctor", "run --problem toy", "slow"])
def test_q5_a_data_folder_that_is_a_file(tmp_path, command):
    data = tmp_path / "data"
    data.write_text("not a folder\n")
    done = run_cli(data, *command.split())
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (f"error: the data folder {data} is not a folder "
                                   "(--data-dir DIR or PIPELINE_DATA_DIR names another)")
    assert data.read_text() == "not a folder\n"


def test_q8_a_scheduler_address_that_is_none(tmp_path):
    started = time.monotonic()
    done = run_cli(tmp_path / "data", "run", "--problem", "toy", "--executor", "dask",
                   "--scheduler", "garbage://x", timeout=50)
    assert time.monotonic() - started < 30  # no minute-long wait for a Client to close
    assert done.returncode == 1
    assert done.stderr.strip().startswith("error: --scheduler 'garbage://x' is not a Dask "
                                          "scheduler address")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("args, option", [
    ("run --problem toy --timeout nan", "--timeout"),
    ("run --problem toy --timeout -1", "--timeout"),
    ("run --problem toy --timeout inf", "--timeout"),
    ("run --problem toy --timeout 0", "--timeout"),
    ("compare --ratio nan", "--ratio"),
    ("compare --ratio -2", "--ratio"),
    ("compare --min-diff-ms nan", "--min-diff-ms"),
    ("ingest --max-file-mb nan", "--max-file-mb"),
    ("ingest --max-file-mb inf", "--max-file-mb"),
    ("run --problem toy --repeat 100000000", "--repeat"),
    ("run --problem toy --memory 99999999999999", "--memory"),
])
def test_q3_a_numeric_option_out_of_range_is_a_usage_error(tmp_path, args, option):
    data = tmp_path / "data"
    corpus(data, {"a/1.in": ("1 2\n", "3\n")})
    done = run_cli(data, *args.split())
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"Invalid value for '{option}'" in done.stderr and "Traceback" not in done.stderr
    assert not list((data / "tables" / "runs").glob("*.parquet"))  # nothing ran


@pytest.mark.parametrize("duration", ["nan", "inf", "-5"])
def test_q3_a_duration_that_is_no_number_of_seconds(tmp_path, duration):
    done = run_cli(tmp_path / "data", "stress", "--problem", "toy", "--solver", "fast",
                   "--budget", duration)
    assert done.returncode == 2, done.stderr
    assert "a duration must be a positive number of seconds" in done.stderr \
        or "is not a duration" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args", ["run --problem toy --jobs 100000", "ingest --jobs 100000",
                                  "stress --problem toy --solver fast --jobs 100000 "
                                  "--budget 5s"])
def test_q4_jobs_beyond_the_machine_are_refused_at_once(tmp_path, args):
    data = tmp_path / "data"
    corpus(data, {"a/1.in": ("1 2\n", "3\n")})
    started = time.monotonic()
    done = run_cli(data, *args.split(), timeout=60)
    assert time.monotonic() - started < 20
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "100000 worker processes are more than 8 per core" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list((data / "tables" / "runs").glob("*.parquet"))


def test_issue19_a_bug_that_raises_valueerror_is_an_internal_error(tmp_path):
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURE_TOY, problems / "buggy")
    source = problems / "buggy" / "__init__.py"
    source.write_text(source.read_text().replace(
        "RECIPES = (\n",
        'RECIPES = (\n    Recipe("broken", "tiny", "a bug", lambda rng: int("not a number")),\n'))
    data = tmp_path / "data"
    bug = run_cli(data, "--problems-dir", str(problems), "generate", "buggy", "--recipe",
                  "broken", "--out", str(tmp_path / "out"))
    assert bug.returncode == 70, bug.stderr
    assert bug.stderr.startswith("internal error: ValueError: invalid literal for int()")
    user = run_cli(data, "run", "--problem", "toy", "--resume", "20990101T000000-abcdef")
    assert user.returncode == 1
    assert user.stderr.strip() == "error: no run '20990101T000000-abcdef' to resume"


def test_second_pass_an_external_name_with_a_newline_is_refused(tmp_path):
    """`--external $'a\\n  forged  AC=2\\nb=python3 sum.py'`: the name's newline forged lines of
    the run's summary (and stored them as a solver's name); now it is refused before anything
    runs, in one line."""
    data = tmp_path / "data"
    corpus(data, {"a/1.in": ("1 2\n", "3\n")})
    program = REPO / "tests" / "run" / "programs" / "sum.py"
    done = run_cli(data, "run", "--problem", "toy", "--external",
                   f"a\n  forged       AC=2\nb=python3 {program}")
    assert done.returncode in (1, 2), (done.stdout, done.stderr)
    assert done.stderr.strip() == ("error: --external NAME may not hold a control character, "
                                   "got 'a\\n  forged       AC'")
    assert not list((data / "tables" / "runs").glob("*.parquet"))
