"""A bad file is a reject, never an abort; memory and messages stay bounded; two ingests at
once store the union of both. Every fault is made for real (real links, real unreadable files,
real broken archives) beside a good file, and ingested by a real `pipeline` process."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import polars as pl
from diskkit import nested_folders
from processkit import alive, children_of

REPO = Path(__file__).resolve().parents[2]
GOOD_IN, GOOD_OUT = "2 2\n00\n01\n", "Alice\n"  # arc087e


def pipeline(data: Path, *args: str, drop_root: bool = False, **kwargs):
    """`pipeline --data-dir DATA ARGS` as a real process. With `drop_root`, a root process
    loses the capabilities that let it read any file, so permissions apply to it too."""
    argv = [sys.executable, "-m", "pipeline", "--data-dir", str(data), *args]
    if drop_root and os.geteuid() == 0:
        argv = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--", *argv]
    return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=120, **kwargs)


def rejects(data: Path) -> dict[str, tuple[str, str]]:
    """source -> (rule, message) of every stored reject."""
    files = list((data / "tables" / "rejects").glob("*.parquet"))
    frame = pl.read_parquet(files) if files else pl.DataFrame(
        schema={"source": pl.String, "rule": pl.String, "message": pl.String})
    return {s: (r, m) for s, r, m in frame.select("source", "rule", "message").iter_rows()}


def stored_sources(data: Path, problem: str = "arc087e") -> list[str]:
    path = data / "tables" / "cases" / f"{problem}.parquet"
    return sorted(pl.read_parquet(path)["source"].to_list()) if path.exists() else []


def good(folder: Path, name: str = "good") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.in").write_text(GOOD_IN)
    (folder / f"{name}.out").write_text(GOOD_OUT)


def test_every_kind_of_bad_file_is_a_reject_beside_a_stored_good_file(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    problem = raw / "arc087e"
    good(problem)
    (problem / "huge-number.in").write_text("1 " + "9" * 5000 + "\n0\n")
    (problem / os.fsdecode(b"bad-\xff-name.in")).write_text(GOOD_IN)
    os.symlink(problem / "gone.in", problem / "broken.in")
    os.symlink("loop-b.in", problem / "loop-a.in")
    os.symlink("loop-a.in", problem / "loop-b.in")
    (problem / "secret.in").write_text(GOOD_IN.replace("01", "11"))
    (problem / "secret.in").chmod(0)
    (problem / "locked").mkdir()
    good(problem / "locked", "inside")
    (problem / "locked").chmod(0)
    os.mkfifo(problem / "pipe.in")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("tests/01", "3 3\n0\n10\n110\n")
        zipped.writestr("tests/01.a", "Alice\n")
    whole = archive.getvalue()
    (problem / "truncated.zip").write_bytes(whole[: len(whole) // 2])
    crc = bytearray(whole)
    crc[whole.index(b"tests/01") + len("tests/01") + 2] ^= 0xFF  # a byte of the deflated data
    (problem / "bad-crc.zip").write_bytes(bytes(crc))
    try:
        done = pipeline(data, "ingest", str(raw), drop_root=True)
    finally:
        (problem / "locked").chmod(0o755)
        (problem / "secret.in").chmod(0o644)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert stored_sources(data) == ["arc087e/good.in"]
    found = rejects(data)
    rules = {source: rule for source, (rule, _) in found.items()}
    assert rules["arc087e/huge-number.in"] == "range"
    assert rules["arc087e/bad-\\xff-name.in"] == "encoding"
    assert rules["arc087e/broken.in"] == "broken-link"
    assert rules["arc087e/loop-a.in"] == rules["arc087e/loop-b.in"] == "broken-link"
    assert rules["arc087e/secret.in"] == "unreadable"
    assert rules["arc087e/locked"] == "unreadable"
    assert rules["arc087e/pipe.in"] == "not-a-file"
    assert rules["arc087e/truncated.zip"] == "corrupt-archive"
    assert rules["arc087e/bad-crc.zip!tests/01"] == "corrupt-archive"
    assert "5,000 digits" in found["arc087e/huge-number.in"][1]
    assert "does not exist" in found["arc087e/broken.in"][1]
    for source, (_rule, message) in found.items():
        assert f"reject {source}" in done.stdout or len(found) > 10  # the console names each
        assert len(message) < 500


def test_a_ten_megabyte_token_makes_a_short_reject_message(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    good(raw / "arc087e")
    (raw / "insq15g").mkdir()
    (raw / "insq15g" / "token.in").write_text("x" * 10_000_000 + "\n")
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1
    rule, message = rejects(data)["insq15g/token.in"]
    assert rule == "not-an-integer" and len(message) < 300 and "10,000,000 characters" in message
    assert len(done.stdout) < 2000


def test_files_over_the_size_limits_are_refused_unread(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    good(raw / "arc087e")
    (raw / "arc087e" / "big.in").write_bytes(b"1 1\n" + b"0" * (3 << 20))  # arc087e: 1 MB
    good(raw / "bipartitebattle", "fine")
    (raw / "bipartitebattle" / "fine.in").write_text("1\n1 1\n")
    (raw / "bipartitebattle" / "fine.out").write_text("1\n")
    (raw / "bipartitebattle" / "two-mb.in").write_bytes(b"1\n1 1\n" + b" " * (2 << 20))
    done = pipeline(data, "ingest", str(raw))  # arc087e's own limit: 1 MB
    assert done.returncode == 1, done.stderr
    found = rejects(data)
    assert found["arc087e/big.in"][0] == "too-large"
    assert "input_mb in its problem.toml" in found["arc087e/big.in"][1]
    assert "bipartitebattle/two-mb.in" not in found  # within its 10 MB
    done = pipeline(data, "ingest", str(raw), "--max-file-mb", "1")
    assert done.returncode == 1, done.stderr
    found = rejects(data)
    assert found["bipartitebattle/two-mb.in"][0] == "too-large"
    assert "above the limit of 1,048,576 bytes" in found["bipartitebattle/two-mb.in"][1]
    assert stored_sources(data) == ["arc087e/good.in"]
    # What was stored is never lost: the case stored by the first ingest stays.
    assert stored_sources(data, "bipartitebattle") == ["bipartitebattle/fine.in",
                                                       "bipartitebattle/two-mb.in"]


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    good(raw / "arc087e")
    with zipfile.ZipFile(raw / "arc087e" / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as bomb:
        with bomb.open("tests/01", "w") as member:
            block = b"0" * (1 << 20)
            for _ in range(100):
                member.write(block)
        bomb.writestr("tests/02", GOOD_IN.replace("01", "11"))
    assert (raw / "arc087e" / "bomb.zip").stat().st_size < 200_000
    # The ingest is the only child of a small parent that reports its children's peak memory
    # (this test process's own children may have been bigger).
    measure = ("import resource, subprocess, sys; "
               "code = subprocess.run(sys.argv[1:], capture_output=True).returncode; "
               "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "pipeline",
                           "--data-dir", str(data), "ingest", str(raw)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    code, peak_kb = map(int, done.stdout.split())
    assert code == 1, done.stderr
    rule, message = rejects(data)["arc087e/bomb.zip!tests/01"]
    assert rule == "too-large" and "zip bomb" in message
    assert stored_sources(data) == ["arc087e/bomb.zip!tests/02", "arc087e/good.in"]
    assert peak_kb < 300 * 1024, f"peak {peak_kb / 1024:.0f} MB"


def test_an_empty_folder_or_files_of_no_problem_fail_with_a_reason(tmp_path):
    data = tmp_path / "data"
    (tmp_path / "empty").mkdir()
    done = pipeline(data, "ingest", str(tmp_path / "empty"))
    assert done.returncode == 1 and "nothing ingested: no test files found" in done.stderr
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "01.in").write_text(GOOD_IN)
    done = pipeline(data, "ingest", str(loose))
    assert done.returncode == 1 and "name no problem" in done.stderr and "--problem" in done.stderr
    done = pipeline(data, "ingest", str(loose), "--problem", "arc087e")
    assert done.returncode == 0, done.stderr


# -- two writers -------------------------------------------------------------------------------

def bipartite_tree(root: Path, prefix: str, count: int) -> None:
    folder = root / "bipartitebattle" / prefix
    folder.mkdir(parents=True)
    for i in range(count):
        (folder / f"{i:05d}.in").write_text(f"1\n{i + 1} {len(prefix)}\n")


def test_two_ingests_at_once_store_the_union_of_both(tmp_path):
    data = tmp_path / "data"
    bipartite_tree(tmp_path / "one", "a", 2500)
    bipartite_tree(tmp_path / "two", "bb", 2500)
    argv = [sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest"]
    first = subprocess.Popen([*argv, str(tmp_path / "one")], cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen([*argv, str(tmp_path / "two")], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    outputs = [p.communicate(timeout=120) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outputs
    table = pl.read_parquet(data / "tables" / "cases" / "bipartitebattle.parquet")
    assert table.height == 5000 and table["case_id"].n_unique() == 5000


HOLD_LOCK = """
import sys, time
from pathlib import Path
from pipeline.tables.lock import data_lock
release = Path(sys.argv[2])
with data_lock(Path(sys.argv[1])):
    print("held", flush=True)
    deadline = time.monotonic() + 120
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
"""


def test_a_second_writer_waits_for_the_holder_or_fails_at_once_naming_it(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    good(raw / "arc087e")
    release = tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(data), str(release)],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        refused = pipeline(data, "ingest", str(raw), "--no-wait")
        assert refused.returncode == 1
        assert f"locked by pid {holder.pid}" in refused.stderr
        assert "Traceback" not in refused.stderr
        waiting = subprocess.Popen([sys.executable, "-m", "pipeline", "--data-dir", str(data),
                                    "ingest", str(raw)], cwd=REPO, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        line = waiting.stderr.readline()  # it says whom it waits for, then waits
        assert line.startswith(f"waiting for the data folder {data}: locked by pid "
                               f"{holder.pid}"), line
        assert waiting.poll() is None
        release.touch()
        out, err = waiting.communicate(timeout=60)
        assert waiting.returncode == 0, err
        assert holder.wait(timeout=10) == 0
    finally:
        release.touch()
        holder.wait(timeout=10)
    assert stored_sources(data) == ["arc087e/good.in"]


def test_a_holder_killed_with_minus_9_blocks_nobody(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    good(raw / "arc087e")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(data),
                               str(tmp_path / "never")], cwd=REPO, stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline() == "held\n"
    holder.kill()
    holder.wait()
    done = pipeline(data, "ingest", str(raw), "--no-wait")
    assert done.returncode == 0, done.stderr
    assert json.loads((data / ".lock").read_text() or "{}") == {}


FRAGILE_TOML = """\
title = "Fragile"
source = "tests"
size_measure = "a"
size_columns = []
reference = ["echo"]

[limits]
time_s = 1.0

[stages]
echo = { role = "oracle" }
"""

FRAGILE_CODE = '''\
"""fragile: input `a` (then any whitespace); its parser kills its own process when a = 13
and sleeps a minute when a = 7."""
import os
import signal
import time
from dataclasses import dataclass

from pipeline.problems.base import Stage, define_problem


@dataclass(frozen=True)
class Case:
    a: int


def parse(text):
    a = int(text.split(maxsplit=1)[0])
    if a == 13:
        os.kill(os.getpid(), signal.SIGKILL)
    if a == 7:
        time.sleep(60)
    return Case(a)


PROBLEM = define_problem(
    __file__, parse=parse, render=lambda case: f"{case.a}\\n",
    format_answer=lambda case, answer: f"{answer}\\n", validate_answer=lambda case, text: None,
    size=lambda case: case.a, size_values=lambda case: {},
    stages=(Stage("echo", lambda case: case.a, "the input", "O(1)"),), recipes=())
'''


def fragile_tree(tmp_path: Path, values: tuple[int, ...]) -> tuple[Path, Path, dict]:
    """The fragile problem's folder, and an input of 3 MB for each value (enough in all for
    a pool of workers to validate them); returns (raw, data, environment)."""
    problems = tmp_path / "problems"
    (problems / "fragile").mkdir(parents=True)
    (problems / "fragile" / "problem.toml").write_text(FRAGILE_TOML)
    (problems / "fragile" / "__init__.py").write_text(FRAGILE_CODE)
    raw, data = tmp_path / "raw", tmp_path / "data"
    (raw / "fragile").mkdir(parents=True)
    padding = " " * (3 << 20)
    for a in values:
        (raw / "fragile" / f"{a:02d}.in").write_text(f"{a}\n{padding}\n")
    return raw, data, {**os.environ, "PIPELINE_PROBLEMS_DIR": str(problems)}


def test_a_parser_that_kills_its_worker_costs_only_its_own_file(tmp_path):
    """One of the files makes the problem's parser SIGKILL its worker. That file is a
    `parser-crashed` reject, every other file of the same batch is stored."""
    raw, data, env = fragile_tree(tmp_path, (1, 2, 13, 4))
    done = pipeline(data, "ingest", str(raw), "--jobs", "2", env=env)
    assert done.returncode == 1, done.stderr  # 1: some files were rejected
    assert "fragile/13.in: the validating process died while parsing this file" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert stored_sources(data, "fragile") == ["fragile/01.in", "fragile/02.in",
                                               "fragile/04.in"]
    rule, message = rejects(data)["fragile/13.in"]
    assert rule == "parser-crashed" and "died" in message


def ingest_with_stuck_workers(tmp_path):
    """A real ingest whose pool's workers sit in the fragile problem's minute-long parse:
    (the process, its workers' pids, the data folder)."""
    raw, data, env = fragile_tree(tmp_path, (1, 7, 3, 4))
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest", str(raw),
         "--jobs", "2"], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    deadline = time.monotonic() + 30
    while len(children_of(process.pid)) < 2:  # the pool's workers are running
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    workers = children_of(process.pid)
    time.sleep(0.5)  # well inside the sleeping parse
    return process, workers, data


def test_sigterm_while_workers_validate_ends_the_ingest_and_its_workers_at_once(tmp_path):
    """A parser stuck for a minute in a worker: SIGTERM to the ingest ends it with 143 in
    seconds, its workers gone, nothing stored and no traceback."""
    process, workers, data = ingest_with_stuck_workers(tmp_path)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    assert time.monotonic() - started < 10
    assert "Traceback" not in out + err and "interrupted (SIGTERM)" in err
    assert not [pid for pid in workers if alive(pid)]
    assert not (data / "tables" / "cases").exists() or not list(
        (data / "tables" / "cases").glob("*.parquet"))


def test_k3_a_kill_9_of_the_ingest_takes_its_validating_workers_with_it(tmp_path):
    """K3: the pool's workers, stuck in a parser, die with an ingest killed with SIGKILL (they
    lived on before, adopted by init, 80 MB each); nothing half-written is left stored."""
    process, workers, data = ingest_with_stuck_workers(tmp_path)
    process.kill()
    process.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if alive(pid)], "workers outlived a kill -9 of the ingest"
    assert not (data / "tables" / "cases").exists() or not list(
        (data / "tables" / "cases").glob("*.parquet"))


def test_second_pass_deep_folders_and_names_with_a_newline_are_rejects(tmp_path):
    """Folders nested 2,000 deep (a RecursionError, exit 70, before) and a file or zip member
    whose name holds a newline (stored, it forged lines of every report naming it): each is a
    one-line reject with the newline shown as `\\n`, beside a good file that is stored."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    problem = raw / "arc087e"
    good(problem)
    (problem / "new\nline.in").write_text(GOOD_IN)
    (problem / "new\nline.out").write_text(GOOD_OUT)
    with zipfile.ZipFile(problem / "z.zip", "w") as archive:
        archive.writestr("a\nb.in", GOOD_IN)
        archive.writestr("a\nb.out", GOOD_OUT)
    with nested_folders(problem, 2000):
        done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert "reject arc087e/new\\nline.in: the file name holds a control character" \
        in done.stdout, done.stdout
    assert "reject arc087e/z.zip!a\\nb.in: the member's name holds a control character" \
        in done.stdout, done.stdout
    found = rejects(data)
    assert found["arc087e/new\\nline.in"][0] == "file-name"
    assert found["arc087e/z.zip!a\\nb.out"][0] == "file-name"
    [(source, (rule, _))] = [(s, v) for s, v in found.items() if v[0] == "too-deep"]
    assert source == "arc087e" + "/d" * 64  # the folder 65 deep under the root
    assert stored_sources(data) == ["arc087e/good.in"]
