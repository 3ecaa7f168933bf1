"""Names the package tests share: where the fixture packages are, and which there are; and the
files of other public repositories that the search tool's fetch brought onto this machine.

(A module of its own: `conftest` names collide across test folders.)
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from benchmarks.contests import extract_present
from pipeline.corpus.ingest import ingest
from pipeline.packages.expectations import Agreement, TimeLimit
from pipeline.packages.model import CaseResult, Package
from pipeline.packages.submissions import (
    Expectations,
    Judged,
    hold_expectations,
    judged_from_rows,
)
from pipeline.problems import PROBLEMS_DIR_VARIABLE, get_problem
from pipeline.run.runner import RunRequest, load_cases, run
from pipeline.tables.results import read_run_results

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "packages"
REPO = Path(__file__).resolve().parents[2]
KATTIS = ("circlearea", "hypotenuse", "guess", "bigsum", "roomarea", "remember")
ALL = (*KATTIS, "polysum")


def snapshot(repo: str) -> Path:
    """The git folder of the fetched snapshot of `repo` ("owner/name"), under the folder
    `GAMEBENCH_SNAPSHOTS` names (`make test` gives the folder this workplace's `fetch` fills);
    a path that does not exist when the variable is unset."""
    base = os.environ.get("GAMEBENCH_SNAPSHOTS")
    return Path(base or "/nonexistent") / repo.replace("/", "+") / "repo"


def fetched(repo: str, folder: str, target: Path) -> Path:
    """`folder` of the fetched repository `repo` ("owner/name"), as files under `target`; the
    test is skipped, with a line saying so, when that repository was never fetched here."""
    git_dir = snapshot(repo)
    if not git_dir.is_dir():
        pytest.skip(f"{repo} is not fetched here ({git_dir} is absent; GAMEBENCH_SNAPSHOTS "
                    "names the folder of fetched snapshots)")
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD", folder],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        pytest.skip(f"{repo} has no {folder}: {archive.stderr.decode(errors='replace')[:200]}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        _extract(tar, target)
    return target / folder


def _extract(tar: tarfile.TarFile, target: Path) -> None:
    """Extract `tar` into `target` under tarfile's `data` filter: no member, and no link's
    target, outside `target`; no device or pipe. Pythons older than 3.11.4 (Debian's 3.11.2) lack
    the filter: the same rules are checked first, then the members extracted."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(target, filter="data")
        return
    root = os.path.realpath(target)

    def inside(path: str) -> bool:
        return os.path.commonpath([root, os.path.normpath(path)]) == root

    for member in tar.getmembers():
        placed = os.path.join(root, member.name)
        if os.path.isabs(member.name) or not inside(placed):
            raise tarfile.TarError(f"{member.name}: outside {target}")
        if member.issym() and (os.path.isabs(member.linkname) or not inside(
                os.path.join(os.path.dirname(placed), member.linkname))):
            raise tarfile.TarError(f"{member.name}: links outside {target}")
        if member.islnk() and not inside(os.path.join(root, member.linkname)):
            raise tarfile.TarError(f"{member.name}: links outside {target}")
        if member.isdev() or member.isfifo():
            raise tarfile.TarError(f"{member.name}: a device or pipe")
    tar.extractall(target)


def write_tree(folder: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` (path inside -> text or bytes) under `folder`; returns `folder`."""
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


# A small legacy Kattis package of one's own: a + b, two secret cases, one accepted submission.
TINY_KATTIS = {
    "problem.yaml": "name: Tiny Sum\n",
    "data/sample/1.in": "1 2\n", "data/sample/1.ans": "3\n",
    "data/secret/01.in": "2 3\n", "data/secret/01.ans": "5\n",
    "data/secret/02.in": "10 20\n", "data/secret/02.ans": "30\n",
    "submissions/accepted/sum.py": "print(sum(map(int, input().split())))\n",
}


def tiny_kattis(folder: Path, files: dict[str, str | bytes] | None = None) -> Path:
    """The tiny Kattis package in `folder`, with `files` added or replacing its own."""
    return write_tree(folder, {**TINY_KATTIS, **(files or {})})


TINY_POLYGON_XML = """<?xml version="1.0" encoding="utf-8" standalone="no"?>
<problem revision="1" short-name="{name}">
    <names>
        <name language="english" value="Tiny Polygon"/>
    </names>
    <judging>
        <testset name="tests">
            <time-limit>1000</time-limit>
            <memory-limit>268435456</memory-limit>
            <test-count>2</test-count>
            <input-path-pattern>{input_pattern}</input-path-pattern>
            <answer-path-pattern>tests/%02d.a</answer-path-pattern>
            <tests>
                <test method="manual" sample="true"/>
                <test method="manual"/>
            </tests>
        </testset>
    </judging>
    <assets>
        <solutions>
            <solution tag="main">
                <source path="{main}" type="python.3"/>
            </solution>
        </solutions>
    </assets>
</problem>
"""


def tiny_polygon(folder: Path, *, input_pattern: str = "tests/%02d",
                 main: str = "solutions/main.py") -> Path:
    """A tiny Polygon package (a + b, two manual tests) in `folder`, its problem.xml naming
    the given input path pattern and main solution's path."""
    return write_tree(folder, {
        "problem.xml": TINY_POLYGON_XML.format(name=folder.name, input_pattern=input_pattern,
                                               main=main),
        "tests/01": "1 2\n", "tests/01.a": "3\n", "tests/02": "4 5\n", "tests/02.a": "9\n",
        "solutions/main.py": "print(sum(map(int, input().split())))\n"})


def pipeline(data: Path, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """`python -m pipeline --data-dir DATA ARGS...`, a real process, run to its end."""
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def table(data: Path, name: str) -> pl.DataFrame:
    """The stored table `name` of the data folder `data`."""
    return pl.read_parquet(data / "tables" / name / "*.parquet")


@dataclass(frozen=True)
class RunJudged:
    """What `pipeline run` made of a package's submissions: the expectations it held (its
    summary's table), each submission's results as the `results` table keeps them (by case
    name), and the package's inputs its validators rejected when it was ingested."""

    package: Package
    run_id: str
    expectations: Expectations
    results: Judged
    rejections: tuple[dict, ...]

    @property
    def time_limit(self) -> TimeLimit:
        return self.expectations.limit

    @property
    def agreements(self) -> tuple[Agreement, ...]:
        return self.expectations.agreements

    @property
    def all_agree(self) -> bool:
        return all(a.status in ("agree", "skipped") for a in self.agreements)

    def agreement(self, submission: str) -> Agreement:
        return next(a for a in self.agreements if a.submission == submission)

    def table(self) -> str:
        return self.expectations.table()


@contextmanager
def problems_of(data: Path) -> Iterator[None]:
    """The registry sees the problems registered in `data` (and no other data folder's, so
    the same package may be registered in several), as `pipeline --data-dir DATA` sees them;
    the worker processes a run starts meanwhile take it with the environment."""
    before = os.environ.get(PROBLEMS_DIR_VARIABLE)
    os.environ[PROBLEMS_DIR_VARIABLE] = str(Path(data).resolve() / "problems")
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(PROBLEMS_DIR_VARIABLE, None)
        else:
            os.environ[PROBLEMS_DIR_VARIABLE] = before


def judged_by_run(root: Path, data: Path, solvers: tuple[str, ...] = (),
                  jobs: int = 2) -> RunJudged:
    """The package at `root` ingested into the data folder `data` and its submissions (all,
    or `solvers`) judged by `pipeline run` in this process: the path the command takes."""
    with problems_of(data):
        ingested = ingest(data, [root])
        [problem_id] = {note.problem for note in ingested.packages}
        problem = get_problem(problem_id)
        summary = run(data, RunRequest(problem_id, solvers=solvers, jobs=jobs))
        assert summary.status == "finished", summary
        held = summary.expectations
        assert isinstance(held, Expectations), summary
        assert held.not_held is None, held.table()
        cases = load_cases(data, problem_id, None)
        rows = read_run_results(data, summary.run_id, ["case_id", "solver", "repeat",
                                                       "verdict", "score", "message",
                                                       "cpu_ms", "wall_ms"])
        results: dict[str, dict[str, CaseResult]] = judged_from_rows(
            problem, rows, dict(zip(cases["case_id"], cases["input"])))
        part = ingested.problems.get(problem_id)
        return RunJudged(problem.load(), summary.run_id, held, results,
                         tuple(part.rejects) if part is not None else ())


def judged_in(data: Path, problem_id: str) -> RunJudged:
    """What the one `pipeline run --problem PROBLEM_ID` stored in the data folder `data` made of
    every submission: its results rebuilt from the `results` table, held against their
    expectations again (`hold_expectations`, as a resumed run holds its stored part) at the
    limit the package was judged at, and the rejects its ingest stored."""
    with problems_of(data):
        problem = get_problem(problem_id)
        [run_id] = table(data, "runs")["run_id"].to_list()
        cases = load_cases(data, problem_id, None)
        rows = read_run_results(data, run_id, ["case_id", "solver", "repeat", "verdict",
                                               "score", "message", "cpu_ms", "wall_ms"])
        results = judged_from_rows(problem, rows, dict(zip(cases["case_id"], cases["input"])))
        limit = problem.time_limit()
        assert limit is not None, f"{problem_id}: no time limit given nor kept"
        names = tuple(program.name for program in problem.submissions)  # as the run had them
        held = hold_expectations(problem, results, names, limit)
        assert held.not_held is None, held.table()
        rejects = data / "tables" / "rejects" / f"{problem_id}.parquet"
        rejected = tuple(pl.read_parquet(rejects).to_dicts()) if rejects.is_file() else ()
        return RunJudged(problem.load(), run_id, held, results, rejected)


def fetched_present(repo: str, folders: list[str], target: Path) -> Path:
    """The files of `folders` of the fetched repository `repo` ("owner/name") that its snapshot
    holds, written under `target` (returned): a snapshot may lack some large blobs, as a
    checkout may lack some files, and those are left out (links are written as links). The
    test is skipped, with a line saying so, when that repository was never fetched here."""
    git_dir = snapshot(repo)
    if not git_dir.is_dir():
        pytest.skip(f"{repo} is not fetched here ({git_dir} is absent; GAMEBENCH_SNAPSHOTS "
                    "names the folder of fetched snapshots)")
    extract_present(git_dir, folders, target)
    if not target.exists():  # nothing written
        pytest.skip(f"{repo} has none of {', '.join(folders)}")
    return target
