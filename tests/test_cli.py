"""The commands the README shows, run through Typer's CliRunner (and a real process where it
matters): each documented example is also a test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.errors import BeyondLimits
from pipeline.problems import all_problems, get_problem


runner = CliRunner()


def invoke(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input, catch_exceptions=False)


def samples(problem_id: str) -> list[tuple[Path, Path]]:
    folder = get_problem(problem_id).samples
    return [(i, i.with_suffix(".out")) for i in sorted(folder.glob("*.in"))]


def test_problems_lists_five_problems_with_their_stages():
    result = invoke("problems")
    assert result.exit_code == 0
    for problem in all_problems():
        assert problem.id in result.output
        assert {"brute", "editorial", "fast"} <= {s.name for s in problem.stages}
    assert "[known wrong]" in result.output


@pytest.mark.parametrize("problem_id", [p.id for p in all_problems()])
def test_solve_reproduces_every_sample_with_every_stage_within_limits(problem_id):
    problem = get_problem(problem_id)
    pairs = samples(problem_id)
    assert pairs, f"no samples stored for {problem_id}"
    for input_path, output_path in pairs:
        text = input_path.read_text()
        case = problem.parse(text)
        for stage in problem.trusted_stages:
            if not stage.accepts(case):
                continue
            result = invoke("solve", problem_id, "--solver", stage.name, input=text)
            assert result.exit_code == 0, result.output
            assert problem.compare(output_path.read_text(), result.output) is None, \
                (input_path.name, stage.name, result.output)


def test_solve_from_stdin_in_a_real_process_does_not_import_polars():
    code = ("import sys; from pipeline.entry import main; sys.argv = ['pipeline', 'solve', "
            "'arc087e']; main()")
    probe = (f"{code}")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", probe],
                          input="2 2\n00\n01\n", capture_output=True, text=True, check=True)
    assert done.stdout == "Alice\n"
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    assert "polars" not in imported and "pyarrow" not in imported


def test_solve_out_dir_writes_good_files_and_reports_every_bad_one(tmp_path):
    good = tmp_path / "01.in"
    good.write_text("1 2\n11\n")
    bad1 = tmp_path / "02.in"
    bad1.write_text("2 3\n0\n01\n")
    bad2 = tmp_path / "03.in"
    bad2.write_text("1 0\n1\n")
    result = invoke("solve", "arc087e", str(good), str(bad1), str(bad2),
                    "--out-dir", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert (tmp_path / "out" / "01.out").read_text() == "Alice\n"
    assert not (tmp_path / "out" / "02.out").exists()
    assert f"{bad1}:line 3" in result.output
    assert f"{bad2}:line 1" in result.output


def test_solve_a_bad_stdin_input_names_the_line_and_fails():
    result = invoke("solve", "bipartitebattle", input="1\n0 1\n")
    assert result.exit_code == 1
    assert "line 2" in result.output


def test_solve_refuses_a_case_beyond_brute_limits_cleanly():
    text = "1\n1000000000 1000000000\n"
    with pytest.raises(BeyondLimits):
        get_problem("bipartitebattle").solve_text(text, "brute")
    result = invoke("solve", "bipartitebattle", "--solver", "brute", input=text)
    assert result.exit_code == 1 and "brute" in result.output


def test_generate_writes_cases_expected_outputs_and_a_manifest(tmp_path):
    out = tmp_path / "gen"
    result = invoke("generate", "arc087e", "--recipe", "tiny", "--count", "5", "--seed", "7",
                    "--out", str(out))
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["expected_from"] == "brute" and manifest["seed"] == 7
    problem = get_problem("arc087e")
    for name in ("001", "002", "003", "004", "005"):
        case = problem.parse((out / f"{name}.in").read_text())
        expected = problem.format_answer(case, problem.stage("brute")(case))
        assert (out / f"{name}.out").read_text() == expected
    again = tmp_path / "again"
    invoke("generate", "arc087e", "--recipe", "tiny", "--count", "5", "--seed", "7",
           "--out", str(again))
    assert (again / "003.in").read_text() == (out / "003.in").read_text()


def test_generate_defaults_under_the_data_dir_then_ingest_and_query(tmp_path):
    data = tmp_path / "data"
    result = invoke("--data-dir", str(data), "generate", "bipartitebattle", "--recipe", "tiny",
                    "--count", "4", "--expected-from", "fast")
    assert result.exit_code == 0
    assert (data / "raw" / "bipartitebattle" / "generated" / "tiny" / "004.in").exists()
    result = invoke("--data-dir", str(data), "ingest")
    assert result.exit_code == 0, result.output
    assert "bipartitebattle:" in result.output
    result = invoke("--data-dir", str(data), "query",
                    "SELECT expected_source, count(*) AS n FROM cases GROUP BY 1", "--format",
                    "csv")
    lines = result.output.strip().splitlines()
    assert lines[0] == "expected_source,n"
    assert lines[1].startswith("fast,")


def test_ingest_exit_status_reports_rejects_unless_allowed(tmp_path):
    raw = tmp_path / "data" / "raw" / "insq15g" / "t"
    raw.mkdir(parents=True)
    (raw / "01.in").write_text("2 2 1\n3 1\n")
    result = invoke("--data-dir", str(tmp_path / "data"), "ingest")
    assert result.exit_code == 1
    assert "insq15g/t/01.in:2" in result.output
    result = invoke("--data-dir", str(tmp_path / "data"), "ingest", "--allow-rejects")
    assert result.exit_code == 0


def test_query_formats(tmp_path):
    data = tmp_path / "data"
    sample = get_problem("arc087e").samples
    invoke("--data-dir", str(data), "ingest", str(sample), "--problem", "arc087e")
    as_json = invoke("--data-dir", str(data), "query", "SELECT count(*) AS n FROM cases",
                     "--format", "json")
    assert [json.loads(line) for line in as_json.output.splitlines()] == [{"n": 6}]
    table = invoke("--data-dir", str(data), "query", "SELECT source FROM cases ORDER BY source")
    assert "01.in" in table.output
    out = tmp_path / "q.parquet"
    invoke("--data-dir", str(data), "query", "SELECT * FROM cases", "--format", "parquet",
           "--out", str(out))
    assert pl.read_parquet(out).height == 6
    bad = invoke("--data-dir", str(data), "query", "SELECT nope FROM cases")
    assert bad.exit_code == 1


def test_run_on_the_samples_gets_ac_from_every_trusted_stage(tmp_path):
    data = tmp_path / "data"
    invoke("--data-dir", str(data), "ingest", str(get_problem("arc087e").samples), "--problem",
           "arc087e")
    result = invoke("--data-dir", str(data), "run", "--problem", "arc087e", "--jobs", "2",
                    "--solver", "brute", "--solver", "fast", "--solver", "editorial")
    assert result.exit_code == 0, result.output
    assert "fast" in result.output and "AC=6" in result.output
    verdicts = pl.read_parquet(str(data / "tables" / "results" / "*.parquet"))
    assert set(verdicts["verdict"]) == {"AC"}
    assert verdicts.height == 18


def test_the_console_script_solves_without_typer_and_reports_bad_files(tmp_path):
    """`pipeline solve` through the installed entry point: the light path, same behaviour."""
    script = Path(sys.executable).with_name("pipeline")
    good, bad = tmp_path / "a.in", tmp_path / "b.in"
    good.write_text("1\n1 2\n")
    bad.write_text("1\n1 0\n")
    done = subprocess.run([str(script), "solve", "bipartitebattle", str(good), str(bad),
                           "--out-dir", str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 1
    assert (tmp_path / "out" / "a.out").read_text() == "0\n"
    assert f"{bad}:line 2" in done.stderr
    code = ("import sys; from pipeline.entry import main; sys.argv = ['pipeline', 'solve', "
            "'bipartitebattle']; main()")
    probe = subprocess.run([sys.executable, "-X", "importtime", "-c", code], input="1\n1 1\n",
                           capture_output=True, text=True)
    assert probe.returncode == 0 and probe.stdout == "1\n"
    imported = {line.split("|")[-1].strip() for line in probe.stderr.splitlines()}
    assert not {"typer", "polars", "pyarrow"} & imported
