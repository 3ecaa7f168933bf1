"""The commands the README shows, run through Typer's CliRunner (and a real process where it
matters): each documented example is also a test."""

from __future__ import annotations

import json
import os
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


HEAVY = frozenset({"polars", "pyarrow", "numpy", "pandas", "dask", "distributed", "yaml"})


@pytest.mark.parametrize(("argv", "status", "allowed"), [
    (["--help"], 0, {"rich"}),                # help is drawn by Typer's rich panels
    (["run", "--help"], 0, {"rich"}),
    (["problems"], 0, set()),
    (["run", "--problem", "nosuch"], 2, set()),  # the run's start, to its first check
])
def test_a_commands_start_imports_only_what_it_needs(tmp_path, argv, status, allowed):
    """What a command imports before its real work, in a real process started where no data
    folder is: none of the heavy modules (Polars, Arrow, Dask, YAML), and no rich but for
    help, so its start stays short without any resident process (`make bench`'s `startup`
    section times it)."""
    code = (f"import sys; from pipeline.entry import main; sys.argv = {['pipeline', *argv]!r}; "
            "main()")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == status, done.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "pipeline.cli" in imported  # (the command went through the Typer application)
    top = {name.partition(".")[0] for name in imported}
    assert not (HEAVY | {"rich"} - allowed) & top, sorted((HEAVY | {"rich"}) & top)


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


def test_the_query_help_names_every_table():
    from pipeline.tables.schemas import TABLES

    [sql] = [param for param in _commands()[1]["query"].params if param.name == "sql"]
    named = sql.help.split("over the tables", 1)[1].rstrip(".").replace(",", " ").split()
    assert named == list(TABLES)


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


# -- help, completion, the data folder ----------------------------------------------------------

def _commands():
    import typer

    group = typer.main.get_command(app)
    return group, {name: command for name, command in group.commands.items()}


@pytest.mark.parametrize("name", [n for n in _commands()[1] if n != "solve"])
def test_every_command_s_help_has_examples_defaults_and_readable_metavars(name):
    from pipeline.problems import problem_ids

    result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "120"},
                           catch_exceptions=False)
    assert result.exit_code == 0
    text = result.output
    assert "Examples" in text and f"pipeline {name}" in text.split("Examples", 1)[1]
    plain = text.replace("{seed}", "")   # the generator commands' placeholder is no metavar
    for odd in ("<bool>", "<str>", "<path>", "<int", "<float", "{", "list[", "x>=1"):
        assert odd not in plain, (name, odd)
    assert not set(problem_ids()) & set(text.replace("(", " ").replace(")", " ").split())
    # every option and argument shows its default: Typer's [default: ...], or its help says
    for param in _commands()[1][name].params:
        if param.name == "help" or getattr(param, "is_flag", False) or param.required:
            continue
        if param.default is None:
            assert "default" in (param.help or ""), (name, param.name)
        else:
            assert "[default: " in text, (name, param.name)
    # a value's metavar says what it is (N, MB, FILE, ...), never the option's name shouted
    for param in _commands()[1][name].params:
        if getattr(param, "is_flag", False) or param.name == "help":
            continue
        if param.param_type_name == "option":
            assert param.metavar is not None, (name, param.name)
            assert param.show_default is not False, (name, param.name)


def test_the_top_level_help_lists_completion_and_names_no_type():
    text = runner.invoke(app, ["--help"], env={"COLUMNS": "120"}).output
    assert "--install-completion" in text and "--show-completion" in text
    assert "DIR" in text and "<path>" not in text and "<bool>" not in text
    assert "Examples" in text


PIPELINE = Path(sys.executable).with_name("pipeline")


def _bash(script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """`script` in a real bash, with the installed `pipeline` first on PATH and HOME in
    tmp_path (so an installed completion lands there). The script is followed by an `exit`, so
    bash runs `pipeline` as its child (a lone command it would exec in its own place): the
    shell Typer finds among `pipeline`'s parents is this bash, whatever runs the tests."""
    env = {"PATH": f"{PIPELINE.parent}:/usr/bin:/bin", "HOME": str(tmp_path),
           "SHELL": "/bin/bash", "PIPELINE_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(["bash", "-c", f"{script}\nexit $?"], env=env, capture_output=True,
                          text=True, timeout=60)


def _complete(words: str, tmp_path: Path) -> list[str]:
    """What bash completion offers for the words typed so far (the last one is being
    completed), through the script `pipeline --show-completion` prints."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    done = _bash(f'eval "$(pipeline --show-completion)"; COMP_WORDS=({words}); '
                 f'[ "{words[-1:]}" = " " ] && COMP_WORDS+=(""); COMP_CWORD={cword}; '
                 '_pipeline_completion pipeline; printf "%s\\n" "${COMPREPLY[@]}"', tmp_path)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


def test_shell_completion_works_in_a_real_bash(tmp_path):
    script = _bash("pipeline --show-completion", tmp_path)
    assert script.returncode == 0, script.stderr
    assert "complete -o default -F _pipeline_completion pipeline" in script.stdout
    assert _complete("pipeline mis", tmp_path) == ["mismatches"]
    assert set(_complete("pipeline s", tmp_path)) == {"solve", "slow", "strength", "stress"}
    assert "--top" in _complete("pipeline mismatches --t", tmp_path)
    assert _complete("pipeline run --problem arc", tmp_path) == ["arc087e"]
    assert set(_complete("pipeline slow --problem ", tmp_path)) == {
        p.id for p in all_problems()}


def test_install_completion_writes_the_script_where_bash_reads_it(tmp_path):
    done = _bash("pipeline --install-completion", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "bash completion installed in" in done.stdout
    script = tmp_path / ".bash_completions" / "pipeline.sh"
    assert "_pipeline_completion" in script.read_text()
    assert str(script) in (tmp_path / ".bashrc").read_text()


def test_query_on_an_empty_data_folder_names_it_on_stderr(tmp_path):
    (tmp_path / "data").mkdir()
    relative = subprocess.run([str(PIPELINE), "query", "SELECT * FROM runs"],
                              capture_output=True, text=True, cwd=tmp_path,
                              env={**os.environ, "PIPELINE_DATA_DIR": "data"})
    assert relative.returncode == 0 and relative.stdout.startswith("shape: (0,")
    assert f"the data folder {tmp_path / 'data'} holds no tables yet" in relative.stderr
    # a query answering no rows from real tables says nothing more
    invoke("--data-dir", str(tmp_path / "data"), "ingest",
           str(get_problem("arc087e").samples), "--problem", "arc087e")
    empty = invoke("--data-dir", str(tmp_path / "data"), "query",
                   "SELECT * FROM cases WHERE size < 0")
    assert empty.exit_code == 0 and "note:" not in empty.output


READING = [["slow"], ["mismatches"], ["compare"], ["report"], ["strength"], ["doctor"],
           ["query", "SELECT count(*) FROM runs"], ["run", "--problem", "arc087e"]]


@pytest.mark.parametrize("command", READING, ids=lambda command: command[0])
def test_a_command_reading_a_missing_data_folder_says_so_and_makes_none(tmp_path, command):
    """A command started in a folder with no `data` (the default), or given a --data-dir that
    does not exist, exits 2 naming the folder and how one is made; it makes no folder."""
    done = subprocess.run([str(PIPELINE), *command], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr == (f"error: no data folder at {tmp_path / 'data'}: `pipeline ingest` "
                           "makes one (--data-dir DIR or PIPELINE_DATA_DIR names another)\n")
    missing = tmp_path / "nowhere"
    named = subprocess.run([str(PIPELINE), "--data-dir", str(missing), *command],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert named.returncode == 2 and f"no data folder at {missing}:" in named.stderr
    assert list(tmp_path.iterdir()) == []


def test_problems_lists_without_a_data_folder_and_notes_a_missing_one_named(tmp_path):
    """Listing the problems needs no data folder (it is the README's first step): a missing
    one named with --data-dir is noted, since its registered packages cannot be listed, and
    none is made."""
    listed = subprocess.run([str(PIPELINE), "problems"], capture_output=True, text=True,
                            cwd=tmp_path)
    assert listed.returncode == 0 and "arc087e" in listed.stdout and listed.stderr == ""
    named = subprocess.run([str(PIPELINE), "--data-dir", "nowhere", "problems"],
                           capture_output=True, text=True, cwd=tmp_path)
    assert named.returncode == 0 and "arc087e" in named.stdout
    assert named.stderr == (f"note: no data folder at {tmp_path / 'nowhere'}: `pipeline "
                            "ingest` makes one (--data-dir DIR or PIPELINE_DATA_DIR names "
                            "another); no package registered in it is listed\n")
    assert list(tmp_path.iterdir()) == []


def test_ingest_makes_a_missing_data_folder_and_says_where(tmp_path):
    data = tmp_path / "deep" / "data"
    done = subprocess.run([str(PIPELINE), "--data-dir", str(data), "ingest",
                           str(get_problem("arc087e").samples), "--problem", "arc087e"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == f"note: made the data folder {data}"
    again = subprocess.run([str(PIPELINE), "--data-dir", str(data), "ingest",
                            str(get_problem("arc087e").samples), "--problem", "arc087e"],
                           capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 0 and "made the data folder" not in again.stderr


def _runs(data: Path) -> int:
    folder = data / "tables" / "runs"
    return len(list(folder.glob("*.parquet"))) if folder.is_dir() else 0


def test_a_run_of_a_group_with_no_case_is_refused_naming_the_groups(tmp_path):
    """`--group sample` where the group is `samples`: exit 2 with a did-you-mean and the groups
    there are, before anything is stored (no run row: `slow` and `compare` would read it)."""
    data = tmp_path / "data"
    invoke("--data-dir", str(data), "ingest")  # every problem's samples, in group samples
    done = subprocess.run([str(PIPELINE), "--data-dir", str(data), "run", "--problem",
                           "arc087e", "--solver", "fast", "--group", "sample", "--jobs", "1"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr == ("error: no case of arc087e is in group 'sample' (did you mean "
                           "'samples'?); its groups: samples\n")
    assert done.stdout == "" and _runs(data) == 0
    far = subprocess.run([str(PIPELINE), "--data-dir", str(data), "run", "--problem",
                          "arc087e", "--solver", "fast", "--group", "zzz", "--jobs", "1"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert far.returncode == 2 and "did you mean" not in far.stderr
    assert "its groups: samples" in far.stderr and _runs(data) == 0
    right = invoke("--data-dir", str(data), "run", "--problem", "arc087e", "--solver", "fast",
                   "--group", "samples", "--jobs", "1")
    assert right.exit_code == 0 and _runs(data) == 1


def test_run_with_no_stored_cases_names_the_data_folder_and_stores_no_run(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    result = invoke("--data-dir", str(data), "run", "--problem", "arc087e", "--solver", "fast",
                    "--jobs", "1")
    assert result.exit_code == 2
    assert (f"no stored cases of arc087e in {data.resolve()}: `pipeline ingest` stores them"
            in result.output)
    assert _runs(data) == 0


# -- the application a start builds: the invoked command's options only --------------------------

def _commands_of(argv: list[str]) -> list[str]:
    from pipeline.cli import app_for

    chosen = app_for(argv)
    return sorted(command.name for command in chosen.registered_commands)


def test_a_start_builds_only_the_command_it_invokes_past_the_root_options_and_their_values():
    every = _commands_of([])
    assert len(every) > 10 and "run" in every and "ingest" in every
    assert _commands_of(["run", "--problem", "x"]) == ["run"]
    # a root option's value is no command, even when it reads like one
    assert _commands_of(["--data-dir", "ingest", "run", "--problem", "x"]) == ["run"]
    assert _commands_of(["--data-dir=ingest", "problems"]) == ["problems"]
    assert _commands_of(["--problems-dir", "a", "--problems-dir", "b", "query", "SQL"]) == \
        ["query"]
    # the help, a word that names no command, and no word at all: every command
    assert _commands_of(["--help"]) == every
    assert _commands_of(["nosuch", "run"]) == every
    assert _commands_of(["--data-dir", "d"]) == every


def test_the_help_and_a_mistyped_command_still_name_every_command_in_a_real_process(tmp_path):
    entry = [sys.executable, "-m", "pipeline", "--data-dir", str(tmp_path / "data")]
    shown = subprocess.run([*entry, "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0
    for name in _commands_of([]):
        assert name in shown.stdout
    wrong = subprocess.run([*entry, "rnu", "--problem", "arc087e"], capture_output=True,
                           text=True, timeout=60)
    assert wrong.returncode == 2 and "No such command 'rnu'" in wrong.stderr
    listed = subprocess.run([*entry, "problems"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0 and "arc087e" in listed.stdout


def test_shell_completion_offers_every_command(tmp_path):
    env = {**os.environ, "_PIPELINE_COMPLETE": "complete_bash", "COMP_WORDS": "pipeline ",
           "COMP_CWORD": "1"}
    done = subprocess.run([sys.executable, "-m", "pipeline"], env=env, capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    offered = set(done.stdout.split())
    assert {"run", "ingest", "query", "report"} <= offered, done.stdout + done.stderr
