"""`pipeline run` judges a package as it is on disk, as `bt run` does: a package edited since it
was registered is registered again first (one line says so), a run records which content it
judged, a package whose folder is gone is judged from its stored copy (one line says so); and
inside a package's folder `pipeline run` needs no `--problem`, a submission may be named by its
path as a shell completes it. Real `pipeline` processes in temporary folders, on the tiny Kattis
package and a copy of a fixture package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
from packagekit import FIXTURES, tiny_kattis, write_tree

WRONG = "print(0)\n"


def pipeline(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`python -m pipeline ARGS` in `cwd`, with no data folder named by the environment."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PIPELINE_DATA_DIR", "PIPELINE_PROBLEMS_DIR")}
    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a project folder with the tiny package under it, the package, the data folder the
    package is registered in: PROJECT/data)."""
    root = tmp_path / "project"
    package = tiny_kattis(root / "problems" / "tiny")
    done = pipeline("--data-dir", "data", "ingest", str(package), cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return root, package, root / "data"


def runs(data: Path) -> pl.DataFrame:
    return pl.read_parquet(data / "tables" / "runs" / "*.parquet").sort("started_at")


def solvers_of(data: Path, run_id: str) -> set[str]:
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    return set(results.filter(pl.col("run_id") == run_id)["solver"])


def notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("note:")]


def test_a_submission_added_on_disk_is_judged_by_the_next_run_with_one_line_saying_so(tmp_path):
    root, package, data = project(tmp_path)
    first = pipeline("--data-dir", "data", "run", "--problem", "tiny", cwd=root)
    assert first.returncode == 0, first.stdout + first.stderr
    assert notes(first.stderr) == []  # nothing changed since the ingest: nothing said
    write_tree(package, {"submissions/wrong_answer/mine.py": WRONG})

    second = pipeline("--data-dir", "data", "run", "--problem", "tiny", cwd=root)

    assert second.returncode == 0, second.stdout + second.stderr
    said = notes(second.stderr)
    assert len(said) == 1, second.stderr
    assert "tiny: the package at" in said[0] and "registered again" in said[0]
    assert "+submissions/wrong_answer/mine.py" in said[0]
    assert "wrong_answer/mine.py" in second.stdout  # judged, and held to its folder
    table = runs(data)
    assert "wrong_answer/mine.py" in solvers_of(data, table["run_id"][-1])
    assert "wrong_answer/mine.py" not in solvers_of(data, table["run_id"][0])
    digests = table["package_digest"].to_list()
    assert all(digests) and digests[0] != digests[1]  # the content each run judged

    third = pipeline("--data-dir", "data", "run", "--problem", "tiny", cwd=root)
    assert third.returncode == 0, third.stderr
    assert notes(third.stderr) == []  # registered already: nothing to say, nothing redone
    assert runs(data)["package_digest"][-1] == digests[1]


def test_a_changed_test_case_is_stored_before_the_run_and_a_touched_file_changes_nothing(
        tmp_path):
    root, package, data = project(tmp_path)
    write_tree(package, {"data/secret/03.in": "4 5\n", "data/secret/03.ans": "9\n"})
    done = pipeline("--data-dir", "data", "run", "--problem", "tiny", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test data: +data/secret/03.ans, +data/secret/03.in" in done.stderr
    assert runs(data)["cases"][-1] == 4
    before = runs(data)["package_digest"][-1]

    os.utime(package / "data" / "secret" / "03.in")  # touched, same content
    again = pipeline("--data-dir", "data", "run", "--problem", "tiny", cwd=root)
    assert again.returncode == 0, again.stderr
    assert notes(again.stderr) == []
    assert runs(data)["package_digest"][-1] == before


def test_a_package_whose_folder_is_gone_is_judged_from_its_stored_copy_saying_so(tmp_path):
    root, package, data = project(tmp_path)
    shutil.rmtree(package)
    done = pipeline("--data-dir", "data", "run", "--problem", "tiny", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    said = notes(done.stderr)
    assert len(said) == 1 and f"its source {package} is gone" in said[0], done.stderr
    assert "judging the copy registered at" in said[0]
    assert "accepted/sum.py AC=3" in done.stdout


def test_a_package_that_no_longer_loads_is_not_judged_from_its_old_copy(tmp_path):
    root, package, data = project(tmp_path)
    (package / "problem.yaml").write_text("name: [unclosed\n")
    done = pipeline("--data-dir", "data", "run", "--problem", "tiny", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the package at" in done.stderr and "no longer loads" in done.stderr
    assert "problem.yaml" in done.stderr
    assert not list((data / "tables" / "runs").glob("*.parquet"))  # no run of the old copy


def test_inside_a_package_run_needs_no_problem_and_finds_the_data_folder_above(tmp_path):
    root, package, data = project(tmp_path)
    write_tree(package, {"submissions/wrong_answer/mine.py": WRONG})
    for where in (package, package / "submissions" / "accepted"):
        done = pipeline("run", cwd=where)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"note: data folder {data}" in done.stderr
        assert "wrong_answer/mine.py" in done.stdout
    assert set(runs(data)["problem"]) == {"tiny"}
    assert not (package / "data" / "tables").exists()  # the package's data/ holds its tests


def test_outside_any_package_or_data_folder_run_says_what_to_name_and_makes_nothing(tmp_path):
    lone = tiny_kattis(tmp_path / "lone")
    done = pipeline("run", cwd=lone)
    assert done.returncode == 2
    assert f"no data folder for the package at {lone}" in done.stderr
    assert "--data-dir" in done.stderr
    assert sorted(p.name for p in lone.iterdir()) == ["data", "problem.yaml", "submissions"]
    assert not (lone / "data" / "tables").exists()
    elsewhere = tmp_path / "empty"
    elsewhere.mkdir()
    done = pipeline("--data-dir", str(tmp_path / "d"), "run", cwd=elsewhere)
    assert done.returncode == 2
    assert "no --problem given, and this folder is in no problem package" in done.stderr
    assert not (tmp_path / "d").exists()


def test_a_package_not_registered_yet_is_registered_by_a_run_inside_it(tmp_path):
    root = tmp_path / "project"
    (root / "data" / "tables").mkdir(parents=True)
    package = tiny_kattis(root / "fresh")
    done = pipeline("run", cwd=package)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"note: registered the package at {package} as fresh in {root / 'data'}" \
        in done.stderr
    marker = json.loads((root / "data" / "problems" / "fresh" / "package.json").read_text())
    assert marker["source"] == str(package)
    assert "accepted/sum.py AC=3" in done.stdout


def test_a_submission_is_named_by_its_path_as_a_shell_completes_it(tmp_path):
    root, package, data = project(tmp_path)
    write_tree(package, {"submissions/wrong_answer/mine.py": WRONG})
    asked = [
        (root, ["--data-dir", "data", "run", "--problem", "tiny", "--solver",
                "problems/tiny/submissions/wrong_answer/mine.py"]),
        (package, ["run", "--solver", "submissions/wrong_answer/mine.py"]),
        (package / "submissions", ["run", "wrong_answer/mine.py"]),
        (root, ["--data-dir", "data", "run",
                str(package / "submissions" / "wrong_answer" / "mine.py")]),
        (package / "submissions" / "accepted", ["run", "../wrong_answer/mine.py"]),
    ]
    for cwd, args in asked:
        done = pipeline(*args, cwd=cwd)
        assert done.returncode == 0, (args, done.stdout + done.stderr)
        assert solvers_of(data, runs(data)["run_id"][-1]) == {"wrong_answer/mine.py"}, args
    wrong = pipeline("run", "submissions/wrong_answer/nosuch.py", cwd=package)
    assert wrong.returncode == 2
    assert "has no solver 'submissions/wrong_answer/nosuch.py'" in wrong.stderr
    assert "accepted/sum.py" in wrong.stderr


def test_a_fixture_packages_compiled_submission_is_rebuilt_only_when_it_changed(tmp_path):
    root = tmp_path / "project"
    package = root / "bigsum"
    shutil.copytree(FIXTURES / "bigsum", package)
    done = pipeline("--data-dir", "data", "ingest", str(package), cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    first = pipeline("--data-dir", "data", "run", "bigsum/submissions/accepted/sum.cpp",
                     cwd=root)
    assert first.returncode == 0, first.stdout + first.stderr
    builds = root / "data" / "build" / "packages"
    made = {p.name for p in builds.rglob("*") if p.is_file()}
    source = package / "submissions" / "accepted" / "sum.cpp"
    source.write_text(source.read_text() + "\n// edited\n")
    second = pipeline("--data-dir", "data", "run", "bigsum/submissions/accepted/sum.cpp",
                     cwd=root)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "~submissions/accepted/sum.cpp" in second.stderr
    assert "accepted/sum.cpp AC=6" in second.stdout
    now = {p.name for p in builds.rglob("*") if p.is_file()}
    assert made < now  # the edited source built anew beside the builds kept


def test_inside_a_package_problem_may_still_be_named_and_a_namesake_is_not_taken_for_it(
        tmp_path):
    root, package, data = project(tmp_path)
    named = pipeline("run", "--problem", "tiny", "--solver", "submissions/accepted/sum.py",
                     cwd=package)
    assert named.returncode == 0, named.stdout + named.stderr
    assert f"note: data folder {data}" in named.stderr
    assert solvers_of(data, runs(data)["run_id"][-1]) == {"accepted/sum.py"}
    namesake = tiny_kattis(root / "other" / "tiny")  # another package of the same name
    done = pipeline("run", cwd=namesake)
    assert done.returncode == 2
    assert f"the package at {namesake} is not registered in {data}" in done.stderr
    assert "--problem NAME" in done.stderr
    assert json.loads((data / "problems" / "tiny" / "package.json").read_text())["source"] \
        == str(package)  # the registered one is left as it was


def test_a_package_registered_again_by_a_run_validates_without_seeing_the_data_folder(tmp_path):
    """The input validator rejects every input once it can read the stored cases: a test case
    added on disk is still stored by the run's registration (the data folder is hidden from
    the package's programs, as `pipeline ingest` hides it). The data folder lies outside
    /tmp, which a sandboxed program never sees anyway."""
    outside = Path(tempfile.mkdtemp(prefix="gamebench-live-data-", dir="/var/tmp"))
    try:
        data = outside / "data"
        package = tiny_kattis(tmp_path / "tiny")
        cases = data / "tables" / "cases" / "tiny.parquet"
        write_tree(package, {"input_validators/peek.py": (
            "import sys\nsys.stdin.read()\n"
            f"try:\n    open({str(cases)!r}, 'rb').read(1)\nexcept OSError:\n"
            "    sys.exit(42)\nprint('saw the stored cases')\nsys.exit(43)\n")})
        done = pipeline("--data-dir", str(data), "ingest", str(package), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert cases.is_file()
        write_tree(package, {"data/secret/03.in": "4 5\n", "data/secret/03.ans": "9\n"})
        done = pipeline("--data-dir", str(data), "run", cwd=package)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "registered again" in done.stderr and "rejected" not in done.stderr
        assert runs(data)["cases"][-1] == 4
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_the_nightly_judges_a_registered_package_as_it_is_on_disk(tmp_path):
    root, package, data = project(tmp_path)
    config = tmp_path / "nightly.toml"
    config.write_text('seed = 1\nproblems = ["tiny"]\n')
    good = pipeline("--data-dir", "data", "nightly", "--config", str(config), cwd=root)
    assert good.returncode == 0, good.stdout + good.stderr
    write_tree(package, {"submissions/accepted/wrong.py": WRONG})  # no ingest in between
    bad = pipeline("--data-dir", "data", "nightly", "--config", str(config), cwd=root)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "+submissions/accepted/wrong.py): registered again" in bad.stdout
    assert "tiny/accepted/wrong.py: expected accepted, got WA" in bad.stdout
    (package / "problem.yaml").write_text("name: [unclosed\n")
    broken = pipeline("--data-dir", "data", "nightly", "--config", str(config), cwd=root)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "no longer loads" in broken.stdout and "problem.yaml" in broken.stdout
    assert "its copy registered before was judged" in broken.stdout


def test_a_worker_judges_a_package_registered_again_as_it_is_now(tmp_path):
    """A worker finds each job's problem without looking through every problem folder, yet
    a package registered again meanwhile (a test case added) is the one it judges with."""
    from packagekit import problems_of

    from pipeline.packages.registry import register
    from pipeline.problems import current_problem

    data = tmp_path / "data"
    package = tiny_kattis(tmp_path / "tiny")
    register(package, data)
    with problems_of(data):
        assert len(current_problem("tiny").load().cases) == 3
        write_tree(package, {"data/secret/03.in": "4 5\n", "data/secret/03.ans": "9\n"})
        register(package, data)
        assert len(current_problem("tiny").load().cases) == 4
