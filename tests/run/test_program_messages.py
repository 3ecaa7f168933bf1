"""What a message keeps of a failing program's stderr: its head and its tail (`excerpt`), the
line saying why it died always (a Python traceback's exception, a failed assert()), and the
run summary naming its slowest case by the case's file.

The programs are real: a Python script recursing until RecursionError and a C program whose
assert() aborts, each after writing lines of its own to stderr first (more than a message
keeps), run by a real `pipeline run` over the stored samples of arc087e.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import polars as pl
import pytest
from runkit import run_cli

from pipeline.run.startup import error_line
from pipeline.untrusted import MESSAGE_CHARS, excerpt, fatal_line

RECURSING = '''\
import sys
for line in range(30):
    print(f"debug: warming up step {line} of the walk over the tree", file=sys.stderr)
def hello(n):
    return world(n + 1) + 1
def world(n):
    return hello(n + 1) * 2
sys.stdin.read()
hello(0)
'''

ABORTING = r'''
#include <assert.h>
#include <stdio.h>
int main(void) {
    int n = 0;
    if (scanf("%d", &n) != 1) n = 0;
    for (int i = 0; i < 40; i++)
        fprintf(stderr, "debug: coin walk step %d of the game, still going strong\n", i);
    fflush(stderr);
    assert(n < 0 && "the number of coins is negative");
    return 0;
}
'''


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """A data folder holding every problem's samples (arc087e's in group `samples`)."""
    data = tmp_path_factory.mktemp("messages") / "data"
    done = run_cli(data, "ingest")
    assert done.returncode == 0, done.stderr
    return data


def _errors(data: Path, solver: str) -> list[str]:
    folder = data / "tables" / "results"
    frame = pl.concat([pl.read_parquet(f) for f in sorted(folder.rglob("*.parquet"))],
                      how="diagonal_relaxed")
    return frame.filter(pl.col("solver") == solver)["error"].to_list()


def _summary_line(stdout: str, solver: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith(f"  {solver} "))


def test_a_deep_recursion_keeps_the_head_and_the_exception(stored, tmp_path):
    script = tmp_path / "recurse.py"
    script.write_text(RECURSING)
    done = run_cli(stored, "run", "--problem", "arc087e", "--jobs", "1", "--sandbox", "off",
                   "--external", f"deep={sys.executable} {script}", "--solver", "deep",
                   timeout=180)
    assert done.returncode == 0, done.stderr
    errors = _errors(stored, "deep")
    assert len(errors) == 6
    for error in errors:
        lines = error.splitlines()
        assert lines[0] == "exit code 1: debug: warming up step 0 of the walk over the tree"
        assert lines[-1] == "RecursionError: maximum recursion depth exceeded"
        assert "..." in lines and len(error) <= len("exit code 1: ") + MESSAGE_CHARS
    line = _summary_line(done.stdout, "deep")
    assert line.endswith("; error: exit code 1: RecursionError: maximum recursion depth "
                         "exceeded")
    assert "slowest" in line and "ms wall, samples/0" in line  # the case by its file


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_an_assert_abort_keeps_the_assertion_line(stored, tmp_path):
    source = tmp_path / "abort.c"
    source.write_text(ABORTING)
    done = run_cli(stored, "run", "--problem", "arc087e", "--jobs", "1", "--sandbox", "off",
                   "--external", f"ab={source}", "--solver", "ab", timeout=180)
    assert done.returncode == 0, done.stderr
    errors = _errors(stored, "ab")
    assert len(errors) == 6
    assertion = ("Assertion `n < 0 && \"the number of coins is negative\"' failed.")
    for error in errors:
        lines = error.splitlines()
        assert lines[0] == ("signal 6 (SIGABRT): debug: coin walk step 0 of the game, still "
                            "going strong")
        assert lines[-1].endswith(assertion) and "..." in lines
    line = _summary_line(done.stdout, "ab")
    assert line.split("; error: ")[1].startswith("signal 6 (SIGABRT): ")
    assert line.endswith(assertion)


def test_an_excerpt_keeps_a_fatal_line_from_the_middle_and_both_ends():
    said = "\n".join([*(f"noise {i}" for i in range(200)),
                      "prog: a.c:3: main: Assertion `x' failed.",
                      *(f"after {i}" for i in range(200))])
    short = excerpt(said)
    lines = short.splitlines()
    assert lines[0] == "noise 0" and lines[-1] == "after 199"
    assert "prog: a.c:3: main: Assertion `x' failed." in lines
    assert lines.count("...") == 2 and len(short) <= MESSAGE_CHARS + 10
    assert error_line("signal 6 (SIGABRT): " + short) == \
        "signal 6 (SIGABRT): prog: a.c:3: main: Assertion `x' failed."


def test_an_excerpt_of_one_long_line_keeps_its_start_and_its_end():
    said = "start " + "x" * 5000 + " the end"
    short = excerpt(said, 100)
    assert short.startswith("start ") and short.endswith(" the end") and " ... " in short
    assert len(short) <= 100
    assert excerpt("short enough\n") == "short enough"
    assert fatal_line("just a message") is None
