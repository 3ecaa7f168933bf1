"""The docs' "Adding a problem" walk-through (docs/architecture.md), done for real: the folder
is built from the page's own text in a temporary problems folder, and ingest, run, report,
nightly and the contract tests all work on it without a line of code elsewhere."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from pipeline.cli import app

REPO = Path(__file__).resolve().parents[1]
PAGE = (REPO / "docs" / "architecture.md").read_text()  # where "Adding a problem" is
FILE_BLOCK = re.compile(r"\*\*`problems/(takeaway/[\w./]+)`\*\*\n\n```\w*\n(.*?)```", re.S)


def build_problem_folder(root: Path) -> Path:
    section = PAGE[PAGE.index("## Adding a problem"):]
    files = dict(FILE_BLOCK.findall(section))
    assert set(files) == {"takeaway/problem.toml", "takeaway/__init__.py"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    samples = root / "takeaway" / "samples"
    samples.mkdir()
    for name, (case, answer) in {"01": ("5 2", "First"), "02": ("6 2", "Second")}.items():
        assert f"`{case}` and `{answer}`" in section  # the page says these are the samples
        (samples / f"{name}.in").write_text(case + "\n")
        (samples / f"{name}.out").write_text(answer + "\n")
    return root


def test_a_new_problem_folder_works_everywhere(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR", "")  # restored after the test
    problems = build_problem_folder(tmp_path / "problems")
    data = tmp_path / "data"
    base = ["--data-dir", str(data), "--problems-dir", str(problems)]

    def cli(*args: str):
        result = CliRunner().invoke(app, [*base, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    assert "takeaway  Take-away" in cli("problems")
    cli("generate", "takeaway", "--recipe", "tiny", "--count", "40", "--seed", "1")
    assert "takeaway:" in cli("ingest")
    out = cli("run", "--problem", "takeaway", "--jobs", "2")
    assert "finished" in out and "WA" not in out
    assert "report:" in cli("report", "--out", str(tmp_path / "report.html"))
    assert "takeaway" in (tmp_path / "report.html").read_text()

    config = tmp_path / "nightly.toml"
    config.write_text('seed = 3\nproblems = ["takeaway"]\n')
    out = cli("nightly", "--config", str(config), "--jobs", "2")
    assert "nightly: ok" in out and "takeaway" in out


def test_the_contract_tests_cover_a_new_problem_without_a_test_of_its_own(tmp_path):
    problems = build_problem_folder(tmp_path / "problems")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider",
         "-k", "takeaway",
         str(REPO / "tests" / "problems" / "test_contract.py")],
        cwd=REPO, capture_output=True, text=True,
        env={"PATH": "/usr/bin:/bin", "PIPELINE_PROBLEMS_DIR": str(problems)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\b5 passed\b", done.stdout), done.stdout  # all but the growth check
