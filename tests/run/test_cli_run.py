"""`pipeline run` on the command line: misbehaving programs get verdicts, not a hung or crashed
pipeline, and nothing given on the command line reaches a shell."""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil

import polars as pl
import pytest
from runkit import (
    command,
    corpus,
    graded,
    processes_with,
    py,
    results,
    run_cli,
    verdicts,
    wait_until,
)
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.tables.results import read_runs


def test_every_kind_of_misbehaviour_gets_its_verdict_and_the_run_finishes(tmp_path, cpp):
    data, workspace = tmp_path / "data", tmp_path / "workspace"
    workspace.mkdir()
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    token, marker = f"forker-{secrets.token_hex(4)}", tmp_path / "pwned"
    programs = {
        "sum": command(py("sum")), "cpp": cpp["sum"],
        "odd": command(py("wrong_on_odd")),
        "sleeper": command(py("sleeper")), "spinner": cpp["spin"],
        "exit3": command(py("exit_code")), "segv": command(py("segfault")),
        "hog": cpp["hog"], "flood": command(py("flood")),
        "forker": command(py("forker", token, "3", "answer")),
        "litter": command(py("inspect_world")),
        "literal": command(py("echo_argv")) + f" ; touch {marker} "
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
        "flood": "OLE", "forker": "AC", "litter": "WA", "literal": "WA"}
    # the summary: the run id, then verdict counts and the slowest case per solver
    assert done.stdout.startswith(f"run {run_row['run_id']}: finished, 1 cases, 15 results")
    assert "sleepy       TLE=1; slowest" in done.stdout
    # forks: the children are gone, setsid and double fork or not
    assert wait_until(lambda: not processes_with(token))
    # no shell: every word reached the program as it was written (its answer is its argv)
    literal = frame.filter(pl.col("solver") == "literal")["answer"][0]
    assert json.loads(literal) == [
        ";", "touch", str(marker), f"$(touch {marker})", f"`touch {marker}`", "|", "&&", "*"]
    assert not marker.exists()
    # the program ran in its own temporary directory, not in ours nor in the data dir
    seen = json.loads(frame.filter(pl.col("solver") == "litter")["answer"][0])
    assert seen["listing"] == [] and not os.path.exists(seen["cwd"])
    assert list(workspace.iterdir()) == []
    assert not list(data.rglob("litter.txt")) and not list(tmp_path.rglob("litter.txt"))


def test_an_external_command_is_split_like_a_shell_would_but_never_run_by_one(tmp_path):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    words = ["two words", "$HOME", "a;b", "x'y"]
    line = command(py("echo_argv")) + " " + shlex.join(words)
    result = CliRunner().invoke(app, ["--data-dir", str(data), "run", "--problem", "toy",
                                      "--solver", "fast", "--external", f"args={line}",
                                      "--jobs", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [run_row] = read_runs(data).iter_rows(named=True)
    assert run_row["solvers"] == ["fast", "args"]
    answers = results(data, run_row["run_id"]).filter(pl.col("solver") == "args")["answer"]
    assert json.loads(answers[0]) == words


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


def test_resume_refuses_solvers_programs_or_a_group_it_would_not_run(tmp_path):
    """A resumed run runs what it recorded; options naming other solvers are refused, not
    ignored, and the run is left as it was."""
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    first = CliRunner().invoke(app, ["--data-dir", str(data), "run", "--problem", "toy",
                                     "--solver", "fast"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    [run_id] = read_runs(data)["run_id"]
    for args in (["--solver", "brute"], ["--external", f"fast={command(py('sum'))}"],
                 ["--group", "a"]):
        result = CliRunner().invoke(app, ["--data-dir", str(data), "run", "--problem", "toy",
                                          "--resume", run_id, *args])
        assert result.exit_code == 2, (args, result.output)
        assert "--resume RUN_ID runs the solvers, programs and group the run recorded" in \
            result.output
    assert read_runs(data)["status"].to_list() == ["finished"]
    assert results(data, run_id)["solver"].to_list() == ["fast"]


def test_a_relative_program_path_is_taken_from_the_folder_pipeline_runs_in(tmp_path, cpp):
    data, workspace = tmp_path / "data", tmp_path / "workspace"
    (workspace / "bin").mkdir(parents=True)
    shutil.copy(cpp["sum"], workspace / "bin" / "noy")
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    done = run_cli(data, "run", "--problem", "toy", "--external", "noy=./bin/noy", "--jobs", "1",
                   cwd=workspace)
    assert done.returncode == 0, done.stderr
    [run_id] = read_runs(data)["run_id"]
    assert results(data, run_id)["verdict"].to_list() == ["AC"]


def test_a_script_given_to_an_interpreter_is_found_from_the_folder_pipeline_runs_in(tmp_path):
    data, workspace = tmp_path / "data", tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "add.sh").write_text("read a b\necho $((a + b))\n")
    corpus(data, {"a/01.in": ("1 2\n", "3\n"), "a/02.in": ("20 22\n", "42\n")})
    done = run_cli(data, "run", "--problem", "toy", "--external", "add=sh add.sh",
                   "--solver", "add", "--jobs", "1", cwd=workspace)
    assert done.returncode == 0, done.stderr
    [run_id] = read_runs(data)["run_id"]
    assert results(data, run_id)["verdict"].to_list() == ["AC", "AC"]


def test_a_program_that_does_not_resolve_or_cannot_run_stops_the_run_before_it_starts(
        tmp_path):
    data, workspace = tmp_path / "data", tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("not a program\n")
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    for program, message in (
            ("./bin/noy", f"{workspace}/bin/noy does not exist (taken from {workspace})"),
            ("no-such-program-anywhere", "'no-such-program-anywhere' is not on PATH"),
            ("./notes.txt", f"{workspace}/notes.txt is not an executable file")):
        done = run_cli(data, "run", "--problem", "toy", "--solver", "fast",
                       "--external", f"noy={program} --flag", cwd=workspace)
        assert done.returncode == 1
        assert done.stderr.strip().splitlines() == [f"error: external program 'noy': {message}"]
    assert not (data / "tables" / "runs").exists() and not (data / "tables" / "results").exists()


def test_the_nice_value_and_cpus_a_command_runs_with_reach_every_program_it_runs(tmp_path):
    """`nice -n 5 taskset -c CPU pipeline run ...`: the command runs its programs from its own
    process (through its worker server and workers), so each program inherits the command's
    niceness and CPU affinity, as a user who lowers or pins a run expects."""
    nice, taskset = shutil.which("nice"), shutil.which("taskset")
    if nice is None or taskset is None:
        pytest.skip("nice or taskset is not installed")
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n"), "a/02.in": ("2 2\n", "4\n")})
    cpu = min(os.sched_getaffinity(0))
    expected_nice = min(19, os.nice(0) + 5)
    done = run_cli(data, "run", "--problem", "toy", "--solver", "fast", "--jobs", "2",
                   "--external", f"sched={command(py('report_scheduling'))}",
                   wrapper=(nice, "-n", "5", taskset, "-c", str(cpu)))
    assert done.returncode == 0, done.stderr
    [run_id] = read_runs(data)["run_id"]
    answers = results(data, run_id).filter(pl.col("solver") == "sched")["answer"].to_list()
    assert [json.loads(answer) for answer in answers] == [
        {"nice": expected_nice, "cpus": [cpu]}] * 2
