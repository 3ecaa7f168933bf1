"""`pipeline ingest PATH` on a judge's problem package: it becomes a problem of its own, its
inputs are checked by its own validators, its cases keep their groups, and ingesting a changed
package says what changed. Real `pipeline` processes on copies of the fixture packages."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import polars as pl
import pytest
from packagekit import FIXTURES

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300)


def cases(data: Path, problem: str) -> pl.DataFrame:
    return pl.read_parquet(data / "tables" / "cases" / f"{problem}.parquet")


def copy(name: str, target: Path) -> Path:
    shutil.copytree(FIXTURES / name, target / name)
    return target / name


def test_a_package_folder_is_registered_and_listed_with_the_built_in_problems(tmp_path):
    package, data = copy("circlearea", tmp_path), tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stderr
    assert "circlearea: registered legacy package" in done.stdout
    assert (data / "problems" / "circlearea" / "package" / "problem.yaml").is_file()
    listed = pipeline(data, "problems")
    assert "circlearea  Circle Area" in listed.stdout and "arc087e" in listed.stdout
    table = cases(data, "circlearea")
    assert sorted(zip(table["source"], table["group"])) == [
        ("circlearea/data/sample/1.in", "sample"), ("circlearea/data/secret/01-small.in",
                                                    "secret"),
        ("circlearea/data/secret/02-mid.in", "secret"),
        ("circlearea/data/secret/03-large.in", "secret")]
    assert table["expected"].null_count() == 0  # the .ans files
    again = pipeline(data, "ingest", str(package))
    assert again.returncode == 0 and "package unchanged" in again.stdout
    assert "0 added, 4 already stored" in again.stdout


def test_the_packages_validator_rejects_a_bad_input_with_its_message(tmp_path):
    package, data = copy("circlearea", tmp_path), tmp_path / "data"
    (package / "data" / "secret" / "04-zero.in").write_text("0\n")
    (package / "data" / "secret" / "04-zero.ans").write_text("0\n")
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 1
    rejects = pl.read_parquet(data / "tables" / "rejects" / "circlearea.parquet")
    [row] = rejects.iter_rows(named=True)
    assert row["source"] == "circlearea/data/secret/04-zero.in" and row["rule"] == "validator"
    assert "expected one positive integer" in row["message"]
    assert cases(data, "circlearea").height == 4  # the good ones are stored


def test_ingesting_a_changed_package_says_what_changed(tmp_path):
    package, data = copy("circlearea", tmp_path), tmp_path / "data"
    assert pipeline(data, "ingest", str(package)).returncode == 0
    (package / "data" / "secret" / "05-new.in").write_text("7\n")
    (package / "data" / "secret" / "05-new.ans").write_text("153.93804002589985\n")
    (package / "submissions" / "wrong_answer" / "pi_is_three.py").unlink()
    yaml = package / "problem.yaml"
    yaml.write_text(yaml.read_text().replace("memory: 512", "memory: 256"))
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stderr
    line = next(row for row in done.stdout.splitlines() if "updated package" in row)
    assert "memory limit: 512 MB -> 256 MB" in line
    assert "test cases: 4 -> 5" in line and "+data/secret/05-new.in" in line
    assert "-submissions/wrong_answer/pi_is_three.py" in line
    assert cases(data, "circlearea").height == 5


def test_a_zipped_package_and_a_name_given_with_problem(tmp_path):
    data = tmp_path / "data"
    archive = tmp_path / "hyp.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted((FIXTURES / "hypotenuse").rglob("*")):
            if path.is_file():
                zipped.write(path, f"hypotenuse/{path.relative_to(FIXTURES / 'hypotenuse')}")
    done = pipeline(data, "ingest", str(archive), "--problem", "legs")
    assert done.returncode == 0, done.stderr
    assert "legs: registered 2025-09 package" in done.stdout
    assert cases(data, "legs").height == 5


def test_a_package_inside_a_python_problems_folder_is_that_problems_data(tmp_path):
    data, raw = tmp_path / "data", tmp_path / "raw"
    package = raw / "arc087e" / "kattis"
    (package / "data" / "sample").mkdir(parents=True)
    (package / "problem.yaml").write_text("name: prefix-free game\n")
    (package / "data" / "sample" / "1.in").write_text("2 2\n00\n01\n")
    (package / "data" / "sample" / "1.ans").write_text("Alice\n")
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 0, done.stderr
    assert not (data / "problems" / "kattis").exists()
    assert cases(data, "arc087e")["group"].to_list() == ["sample"]


def test_a_broken_package_is_a_reject_naming_its_file_and_rule(tmp_path):
    package, data = copy("circlearea", tmp_path), tmp_path / "data"
    (package / "problem.yaml").write_text("name: [unclosed\n")
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 1
    assert "problem.yaml" in done.stdout and "Traceback" not in done.stderr
    assert not (data / "problems" / "circlearea").exists()


@pytest.mark.parametrize("name", ["guess", "bigsum", "polysum"])
def test_every_fixture_package_ingests_whole(tmp_path, name, shared_builds):
    data = shared_builds(tmp_path / "data")
    done = pipeline(data, "ingest", str(FIXTURES / name))
    assert done.returncode == 0, done.stdout + done.stderr
    assert cases(data, name).height >= 4


def test_ingest_leaves_every_program_of_the_package_built(tmp_path):
    """The inputs are validated as soon as the input validators are built, while the package's
    other programs still compile; ingest ends with all of them built, so a run compiles
    nothing of the package's own."""
    package = copy("remember", tmp_path)
    (package / "output_validator" / "validate.py").unlink()
    (package / "output_validator" / "validate.c").write_text(
        "#include <stdio.h>\nint main(void) { return 42; }\n")  # accepts every output
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stdout + done.stderr
    results = [json.loads(path.read_text()) for path in
               (data / "build" / "packages" / "builds").glob("*/result.json")]
    assert any(r["status"] == "ok" and r["run"][0].endswith("program.bin") for r in results), \
        results  # the output validator, compiled
    assert cases(data, "remember").height > 0
