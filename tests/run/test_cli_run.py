"""`pipeline run` on the command line: misbehaving programs get verdicts, not a hung or crashed
pipeline, and nothing given on the command line reaches a shell."""

from __future__ import annotations

import json
import os
import shlex

import polars as pl
from typer.testing import CliRunner

from runkit import alive, command, corpus, graded, py, run_cli, verdicts, wait_until

from pipeline.cli import app
from pipeline.tables.results import read_runs


def test_every_kind_of_misbehaviour_gets_its_verdict_and_the_run_finishes(tmp_path, cpp):
    data, workspace = tmp_path / "data", tmp_path / "workspace"
    workspace.mkdir()
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    pids, argv_record, marker = tmp_path / "pids", tmp_path / "argv.json", tmp_path / "pwned"
    programs = {
        "sum": command(py("sum")), "cpp": cpp["sum"],
        "odd": command(py("wrong_on_odd")),
        "sleeper": command(py("sleeper")), "spinner": cpp["spin"],
        "exit3": command(py("exit_code")), "segv": command(py("segfault")),
        "hog": cpp["hog"], "flood": command(py("flood")),
        "forker": command(py("forker", str(pids), "2", "answer")),
        "litter": command(py("inspect_world")),
        "literal": command(py("record_argv", str(argv_record))) + f" ; touch {marker} "
                   f"'$(touch {marker})' \"`touch {marker}`\" '|' '&&' '*'",
    }
    options = [f"--external={name}={cmd}" for name, cmd in programs.items()]
    done = run_cli(data, "run", "--problem", "toy", "--solver", "fast", "--solver", "sleepy",
                   "--solver", "crashy", *options, "--timeout", "0.5", "--memory", "96",
                   "--jobs", "2", cwd=workspace)
    assert done.returncode == 0, done.stderr
    [run_row] = read_runs(data).iter_rows(named=True)
    assert run_row["status"] == "finished"
    frame = graded(data, run_row["run_id"])
    assert {solver: verdict for (_, solver), verdict in verdicts(frame).items()} == {
        "fast": "AC", "sleepy": "TLE", "crashy": "RE", "sum": "AC", "cpp": "AC", "odd": "WA",
        "sleeper": "TLE", "spinner": "TLE", "exit3": "RE", "segv": "RE", "hog": "MLE",
        "flood": "OLE", "forker": "AC", "litter": "WA", "literal": "AC"}
    # the summary: the run id, then verdict counts and the slowest case per solver
    assert done.stdout.startswith(f"run {run_row['run_id']}: finished, 1 cases, 15 results")
    assert "sleepy       TLE=1; slowest" in done.stdout
    # forks: the children are gone
    assert wait_until(lambda: not any(alive(int(pid)) for pid in pids.read_text().split()))
    # no shell: every word reached the program as it was written
    assert json.loads(argv_record.read_text()) == [
        ";", "touch", str(marker), f"$(touch {marker})", f"`touch {marker}`", "|", "&&", "*"]
    assert not marker.exists()
    # the program ran in its own temporary directory, not in ours nor in the data dir
    seen = json.loads(frame.filter(pl.col("solver") == "litter")["answer"][0])
    assert seen["listing"] == [] and not os.path.exists(seen["cwd"])
    assert list(workspace.iterdir()) == []
    assert not list(data.rglob("litter.txt")) and not list(tmp_path.rglob("litter.txt"))


def test_an_external_command_is_split_like_a_shell_would_but_never_run_by_one(tmp_path):
    data, record = tmp_path / "data", tmp_path / "argv.json"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    words = ["two words", "$HOME", "a;b", "x'y"]
    line = command(py("record_argv", str(record))) + " " + shlex.join(words)
    result = CliRunner().invoke(app, ["--data-dir", str(data), "run", "--problem", "toy",
                                      "--solver", "fast", "--external", f"args={line}",
                                      "--jobs", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert json.loads(record.read_text()) == words
    [run_row] = read_runs(data).iter_rows(named=True)
    assert run_row["solvers"] == ["fast", "args"]


def test_jobs_default_to_the_number_of_cores(tmp_path):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    result = CliRunner().invoke(app, ["--data-dir", str(data), "run", "--problem", "toy",
                                      "--solver", "fast"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert read_runs(data)["jobs"].to_list() == [os.cpu_count()]


def test_bad_run_options_are_refused_before_anything_runs(tmp_path):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    for args, message in ((["--external", "no-equals-sign"], "NAME=COMMAND"),
                          (["--solver", "nope"], "no solver 'nope'")):
        result = CliRunner().invoke(app, ["--data-dir", str(data), "run", "--problem", "toy",
                                          *args])
        assert result.exit_code == 2
        assert message in result.output
    assert not (data / "tables" / "runs").exists()
