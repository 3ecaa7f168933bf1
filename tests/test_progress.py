"""Progress on a log: one line every few seconds when stderr is not a terminal, on a real
`pipeline run` and `pipeline ingest` too (a terminal keeps its redrawn bar)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

from pipeline.progress import LOG_EVERY_ENV, LOG_EVERY_S, progress_bar

PIPELINE = Path(sys.executable).with_name("pipeline")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_log_one_line_every_interval_and_a_closing_one():
    stream, clock = io.StringIO(), Clock()
    update = progress_bar("run", stream, every_s=10.0, clock=clock)
    for done in range(1, 1001):              # 1000 jobs over 25 s
        clock.now += 0.025
        update(done, 1000, f"AC:{done}")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3, lines            # at 10 s, at 20 s, and the end
    assert lines[0] == "run: 401/1000 (40%) after 10 s  AC:401"
    assert lines[1].startswith("run: 801/1000 (80%) after 20 s")
    assert lines[2] == "run: 1000/1000 (100%) after 25 s  AC:1000, done"
    assert "\r" not in stream.getvalue() and "\033" not in stream.getvalue()


def test_a_short_phase_prints_nothing_and_phases_share_the_cadence():
    stream, clock = io.StringIO(), Clock()
    update = progress_bar("nightly", stream, every_s=10.0, clock=clock)
    for done in range(1, 9):                 # an ingest of 8 files in 1 s
        clock.now += 0.125
        update(done, 8)
    assert stream.getvalue() == ""
    for done in range(1, 121):               # then a run of 120 jobs over 15 s
        clock.now += 0.125
        update(done, 120)
    lines = stream.getvalue().splitlines()
    # the run's clock starts at its first call, not when the callback was made
    assert lines == ["nightly: 81/120 (68%) after 10 s",
                     "nightly: 120/120 (100%) after 15 s, done"]


def test_a_terminal_gets_the_bar_and_the_default_interval_is_ten_seconds(monkeypatch):
    stream, clock = Terminal(), Clock()
    update = progress_bar("ingest", stream, clock=clock)
    update(1, 2)
    clock.now += 1
    update(2, 2)
    assert stream.getvalue().startswith("\ringest [") and stream.getvalue().endswith("\n")
    assert LOG_EVERY_S == 10.0
    monkeypatch.delenv(LOG_EVERY_ENV, raising=False)
    log, clock = io.StringIO(), Clock()
    update = progress_bar("run", log, clock=clock)
    clock.now += 60                          # a minute of set-up before the first job
    update(1, 5)
    clock.now += 9.9
    update(2, 5)
    assert log.getvalue() == ""
    clock.now += 0.2
    update(3, 5)
    assert log.getvalue() == "run: 3/5 (60%) after 10 s\n"


def test_a_real_run_with_stderr_to_a_file_logs_its_progress(toy, tmp_path):
    """`pipeline run` with stderr redirected to a file (as under `make nightly > log`)."""
    data = tmp_path / "data"
    folder = data / "raw" / "toy" / "t"
    folder.mkdir(parents=True)
    for i in range(300):
        (folder / f"{i:03d}.in").write_text(f"{i} {i % 7}\n")
    env = {**os.environ, LOG_EVERY_ENV: "0.2"}
    log = tmp_path / "stderr.log"
    with log.open("w") as stderr:
        ingest = subprocess.run([str(PIPELINE), "--data-dir", str(data), "ingest"], env=env,
                                stdout=subprocess.PIPE, stderr=stderr, text=True)
        assert ingest.returncode == 0, log.read_text()
        done = subprocess.run([str(PIPELINE), "--data-dir", str(data), "run", "--problem",
                               "toy", "--solver", "nap", "--jobs", "1"], env=env,
                              stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=120)
    assert done.returncode == 0, log.read_text()
    runs = [line for line in log.read_text().splitlines() if line.startswith("run: ")]
    # 300 cases of 2 ms each on one worker: over 0.6 s, so several lines 0.2 s apart
    assert len(runs) >= 3, log.read_text()
    counts = [int(re.match(r"run: (\d+)/300 ", line).group(1)) for line in runs]
    assert counts == sorted(counts) and counts[-1] == 300
    assert runs[-1].endswith(", done") and "AC:300" in runs[-1]
