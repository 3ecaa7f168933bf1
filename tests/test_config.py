"""Reading the TOML files: every key checked, every error naming the file, line and rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import (
    ConfigError,
    read_configured_solvers,
    read_nightly_settings,
    read_problem_settings,
)

GOOD = """
title = "T"
size_columns = ["n"]
reference = ["brute"]
[limits]
time_s = 2
[stages]
brute = { role = "oracle", timeout_s = 10 }
bad = { role = "known-wrong", why = "off by one" }
[nightly]
tiny = 3
[growth]
sizes = [10, 100]
[[solutions]]
name = "cpp"
source = "solutions/main.cpp"
run = "{exe}"
build = "g++ -o {exe} {source}"
"""


def write(tmp_path: Path, text: str, name: str = "problem.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_problem_toml_is_read_into_settings(tmp_path):
    settings = read_problem_settings(write(tmp_path, GOOD))
    assert settings.time_limit_s == 2.0 and settings.memory_mb == 512  # the default
    assert settings.stages["brute"].role == "oracle" and settings.stages["brute"].timeout_s == 10
    assert settings.stages["bad"].known_wrong == "off by one"
    assert settings.nightly == {"tiny": 3} and settings.growth_sizes == (10, 100)
    [solution] = settings.solutions
    assert solution.path == tmp_path / "solutions" / "main.cpp"  # relative to the folder


@pytest.mark.parametrize("change, line, rule", [
    (("time_s = 2", "time_s = \"two\""), 6, "type"),
    (("[nightly]", "[nightly]\ntypo_key = { x = 1 }"), 11, "type"),
    (("title = \"T\"", "title = \"T\"\ntitel = \"oops\""), 3, "unknown-key"),
    (("role = \"oracle\"", "role = \"wizard\""), 8, "role"),
    (("why = \"off by one\"", "timeout_s = 1"), 9, "known-wrong"),
    (("time_s = 2", "time_s = 2 2"), 6, "toml"),
])
def test_a_broken_problem_toml_names_the_file_line_and_rule(tmp_path, change, line, rule):
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(ConfigError) as caught:
        read_problem_settings(path)
    assert (caught.value.path, caught.value.line, caught.value.rule) == (path, line, rule)
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_a_missing_time_limit_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"limits.time_s: is required \[missing\]"):
        read_problem_settings(write(tmp_path, GOOD.replace("time_s = 2", "")))


def test_nightly_settings_and_user_solvers(tmp_path):
    nightly = read_nightly_settings(write(tmp_path, 'seed = 9\nproblems = ["a"]\n'
                                          '[corpus.a]\ntiny = 4\n[baseline]\na = "r1"\n',
                                          "nightly.toml"))
    assert (nightly.seed, nightly.problems, nightly.corpus, nightly.baseline) == (
        9, ("a",), {"a": {"tiny": 4}}, {"a": "r1"})
    assert read_configured_solvers(tmp_path / "absent.toml") == []
    [entry] = read_configured_solvers(write(
        tmp_path, '[[solver]]\nname = "mine"\nproblem = "a"\nrun = "./mine"\n', "solvers.toml"))
    assert (entry.problem, entry.program.name, entry.program.run) == ("a", "mine", "./mine")


def test_the_nightly_runs_external_programs_in_the_sandbox_mode_of_its_config(tmp_path):
    assert read_nightly_settings(write(tmp_path, "seed = 1\n", "nightly.toml")).sandbox == "auto"
    path = write(tmp_path, 'seed = 1\nsandbox = "off"\n', "nightly.toml")
    assert read_nightly_settings(path).sandbox == "off"
    path = write(tmp_path, 'seed = 1\nsandbox = "sometimes"\n', "nightly.toml")
    with pytest.raises(ConfigError) as caught:
        read_nightly_settings(path)
    assert (caught.value.line, caught.value.rule) == (2, "value")
    assert str(caught.value).startswith(f"{path}:2: sandbox: must be auto, on or off")
