"""The registry finds problems by looking: built-in folders, and folders named by
`PIPELINE_PROBLEMS_DIR`; an id is one folder."""

from __future__ import annotations

import shutil

import pytest

from pipeline.config import ConfigError
from pipeline.errors import UnknownName
from pipeline.problems import BUILTIN_DIR, get_problem, problem_ids

TOY = BUILTIN_DIR.parents[1] / "tests" / "fixtures" / "problems" / "toy"


def test_the_built_in_problems_are_the_folders_with_a_problem_toml():
    folders = sorted(p.name for p in BUILTIN_DIR.iterdir() if (p / "problem.toml").is_file())
    assert sorted(problem_ids()) == folders and len(folders) >= 5
    for problem_id in folders:
        assert get_problem(problem_id).folder == BUILTIN_DIR / problem_id


def test_a_problems_dir_adds_its_folders(tmp_path, monkeypatch):
    shutil.copytree(TOY, tmp_path / "mytoy")
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR", str(tmp_path))
    assert "mytoy" in problem_ids()
    problem = get_problem("mytoy")
    assert problem.id == "mytoy" and problem.stage("fast").role == "fast"
    with pytest.raises(UnknownName, match="unknown problem 'nope'; known problems: .*mytoy"):
        get_problem("nope")


def test_a_problems_dir_may_not_shadow_a_built_in_problem(tmp_path, monkeypatch):
    shutil.copytree(TOY, tmp_path / "arc087e")
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="'arc087e' is a built-in problem"):
        problem_ids()


def test_a_stage_without_a_role_is_an_error_naming_problem_toml(tmp_path, monkeypatch):
    shutil.copytree(TOY, tmp_path / "broken")
    toml = tmp_path / "broken" / "problem.toml"
    toml.write_text(toml.read_text().replace('nap = { role = "method" }\n', ""))
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match=r"problem.toml: stages without an entry: nap"):
        get_problem("broken")
