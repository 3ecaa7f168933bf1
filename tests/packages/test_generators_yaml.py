"""A package whose data is made by BAPCtools' `generators/generators.yaml` ingests unchanged:
its generators run (seeds as BAPCtools computes them, count, copy, inline files, a generator
writing testcase.in and .ans itself, answers from the solution), a failing entry is a reject
naming generators.yaml and the entry's line while the good cases are stored, `retries` runs a
failing generator again with the next seed, ingesting again runs nothing, and its
invalid_input cases test the input validator.

Real `pipeline` processes on a copy of tests/fixtures/packages/gensum (Python generators that
log each run to $HOME/generator-runs.log)."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
from packagekit import FIXTURES

from pipeline.packages import build_package, load_package
from pipeline.packages.invalid import check_validators

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    # The fixture's generator logs its runs into $HOME, outside its folder, which the sandbox
    # rightly forbids: these tests count runs, so they run the package's programs unsandboxed
    # (generators are held to the sandbox in test_hostile_package_programs.py).
    env = dict(os.environ, HOME=str(home), PIPELINE_SANDBOX="off")
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300, env=env)


def bapctools_seed(salt: str, command: str, count: int = 1) -> int:
    """doc/generators.yaml: int(sha512(random_salt + command)) % 2**31, `:<count - 1>` after
    the salt for the cases of a count after the first."""
    text = salt + (f":{count - 1}" if count != 1 else "") + command.strip()
    return int(hashlib.sha512(text.encode()).hexdigest(), 16) % 2**31


def pair(seed: int, top: int) -> str:
    rng = random.Random(seed)
    return f"{rng.randint(1, top)} {rng.randint(1, top)}\n"


def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    package = tmp_path / "gensum"
    shutil.copytree(FIXTURES / "gensum", package)
    home = tmp_path / "home"
    home.mkdir()
    return package, tmp_path / "data", home


def stored(data: Path) -> dict[str, tuple[str, str]]:
    table = pl.read_parquet(data / "tables" / "cases" / "gensum.parquet")
    return {source.removeprefix("gensum/generated/"): (text, expected)
            for source, text, expected in zip(table["source"], table["input"], table["expected"])}


def test_generated_cases_are_stored_with_bapctools_seeds_and_the_failing_entry_is_a_reject(
        tmp_path):
    package, data, home = setup(tmp_path)
    done = pipeline(data, home, "ingest", str(package))
    assert done.returncode == 1, done.stderr  # one entry was rejected
    cases = stored(data)
    # the list is numbered over the whole file: 7 cases, so one digit
    assert sorted(cases) == ["sample/1.in", "secret/1-max.in", "secret/2-random-1.in",
                             "secret/3-random-2.in", "secret/4-random-3.in",
                             "secret/5-small.in", "secret/6-both.in"]
    assert cases["sample/1.in"] == ("1 2\n", "3\n")            # inline in / ans
    assert cases["secret/1-max.in"] == ("1000 1000\n", "2000\n")  # copy: manual/max
    for count in (1, 2, 3):
        seed = bapctools_seed("gensum", "pair.py {seed} 1000", count)
        text, answer = cases[f"secret/{count + 1}-random-{count}.in"]
        assert text == pair(seed, 1000)
        assert answer == f"{sum(map(int, text.split()))}\n"  # made by the solution
    assert cases["secret/5-small.in"][0] == pair(bapctools_seed("gensum", "pair.py {seed:1} 9"), 9)
    assert cases["secret/6-both.in"] == ("20 22\n", "42\n")  # testcase.in/.ans by the generator
    rejects = pl.read_parquet(data / "tables" / "rejects" / "gensum.parquet")
    [row] = rejects.iter_rows(named=True)
    yaml_lines = (package / "generators" / "generators.yaml").read_text().splitlines()
    assert row["source"] == "gensum/generators/generators.yaml"
    assert yaml_lines[row["line"] - 1].strip() == "- broken: broken.py {seed}"
    assert row["rule"] == "generator-failed"
    assert "secret/7-broken" in row["message"] and "exited with code 3" in row["message"]
    assert "broken.py: cannot make a case for" in row["message"]
    assert "second line" not in row["message"]  # the first line of its complaint only
    assert "reject gensum/generators/generators.yaml:" in done.stdout


def test_ingesting_again_uses_the_cache_and_runs_no_generator(tmp_path):
    package, data, home = setup(tmp_path)
    pipeline(data, home, "ingest", str(package))
    log = home / "generator-runs.log"
    first = log.read_text().splitlines()
    assert len(first) == 4  # three random cases and the small one
    again = pipeline(data, home, "ingest", str(package))
    assert "package unchanged" in again.stdout and "0 added, 7 already stored" in again.stdout
    assert log.read_text().splitlines() == first
    # a new data folder over the same build cache: the cases are taken from the cache
    shutil.copytree(data / "build", tmp_path / "other" / "build")
    pipeline(tmp_path / "other", home, "ingest", str(package))
    assert log.read_text().splitlines() == first
    assert len(stored(tmp_path / "other")) == 7
    # a changed command runs its generator again, and only that one
    yaml_file = package / "generators" / "generators.yaml"
    yaml_file.write_text(yaml_file.read_text().replace("pair.py {seed:1} 9", "pair.py {seed:2} 9"))
    pipeline(data, home, "ingest", str(package))
    assert log.read_text().splitlines()[len(first):] == [
        f"{bapctools_seed('gensum', 'pair.py {seed:2} 9')} 9"]


def test_invalid_input_cases_test_the_input_validator(tmp_path, build_dir, monkeypatch,
                                                      sandbox_off):  # (pair.py logs outside)
    package_dir, _, home = setup(tmp_path)
    monkeypatch.setenv("HOME", str(home))  # where pair.py logs its runs
    package = load_package(package_dir, tmp_path / "build")
    assert sorted(t.case.name for t in package.validator_tests) == [
        "invalid_input/three", "invalid_input/zero"]
    assert not any(c.group.startswith("invalid") for c in package.cases)  # never judged
    builds = build_package(package, build_dir, submissions=[])
    [agreement] = check_validators(package, builds, build_dir, tmp_path / "work")
    assert (agreement.submission, agreement.expected, agreement.status) == (
        "input validators", "reject invalid_input", "agree")
    # an invalid case the validator lets through is a disagreement naming it
    yaml_file = package_dir / "generators" / "generators.yaml"
    yaml_file.write_text(yaml_file.read_text() + "      leading_zero:\n        in: \"01 5\"\n")
    package = load_package(package_dir, tmp_path / "build")
    [agreement] = check_validators(package, builds, build_dir, tmp_path / "work")
    assert agreement.status == "disagree" and agreement.got == "2 of 3 right"
    [disagreement] = agreement.disagreements
    assert disagreement.cases == ("invalid_input/leading_zero",)
    assert "every input validator accepted it" in disagreement.message


def test_plain_invalid_folders_test_the_validators_too(tmp_path, build_dir):
    package_dir = tmp_path / "circlearea"
    shutil.copytree(FIXTURES / "circlearea", package_dir)
    invalid = package_dir / "data" / "invalid_input"
    invalid.mkdir()
    (invalid / "negative.in").write_text("-3\n")
    (invalid / "seven.in").write_text("7\n")  # valid: the validator must be caught accepting it
    output = package_dir / "data" / "invalid_output"
    output.mkdir()
    (output / "off.in").write_text("1\n")
    (output / "off.ans").write_text("3.141592653589793\n")
    (output / "off.out").write_text("3.2\n")
    package = load_package(package_dir, tmp_path / "build")
    builds = build_package(package, build_dir, submissions=[])
    found = {a.expected: a for a in check_validators(package, builds, build_dir, tmp_path / "w")}
    assert found["reject invalid_input"].status == "disagree"
    assert found["reject invalid_input"].disagreements[0].cases == ("invalid_input/seven",)
    assert found["reject invalid_output"].status == "agree"


def test_a_run_holds_the_submissions_and_the_validators_to_what_they_expect(tmp_path):
    package, data, home = setup(tmp_path)
    # the broken entry's case, as an earlier `bt generate` committed it: judged in its stead
    (package / "data" / "secret").mkdir(parents=True)
    (package / "data" / "secret" / "7-broken.in").write_text("5 6\n")
    (package / "data" / "secret" / "7-broken.ans").write_text("11\n")
    pipeline(data, home, "ingest", str(package))
    done = pipeline(data, home, "run", "--problem", "gensum")
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()
            if line.startswith("    ") and len(line.split()) >= 3}
    assert rows["accepted/sum.py"][-1] == "yes" and rows["wrong_answer/difference.py"][-1] == "yes"
    assert "input validators            reject invalid_input  2 of 2 right  yes" in done.stdout


def test_each_malformed_entry_is_a_reject_at_its_line_and_the_rest_is_made(
        tmp_path, monkeypatch, sandbox_off):  # (pair.py logs outside its folder)
    package_dir, _, home = setup(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    yaml_file = package_dir / "generators" / "generators.yaml"
    yaml_file.write_text(yaml_file.read_text().replace("      - broken: broken.py {seed}\n", (
        "      - many:\n"
        "          generate: pair.py {seed} 9\n"
        "          count: 0\n"
        "      - twice: pair.py {seed} {seed:2}\n"
        "      - unknown: nosuch.py 1\n")))
    package = load_package(package_dir, tmp_path / "build")
    lines = yaml_file.read_text().splitlines()
    found = {error.message.split(":")[0]: (error.file, lines[error.line - 1].strip(), error.message)
             for error in package.rejects}
    assert found["secret/many"][:2] == ("generators/generators.yaml", "count: 0")
    assert "must be between 1 and 100" in found["secret/many"][2]
    assert found["secret/7-twice"][1] == "- twice: pair.py {seed} {seed:2}"
    assert "{seed} may appear at most once" in found["secret/7-twice"][2]
    assert found["secret/8-unknown"][1] == "- unknown: nosuch.py 1"
    assert "neither a name under generators: nor a file" in found["secret/8-unknown"][2]
    assert len(package.rejects) == 3
    assert len([c for c in package.cases if c.group == "secret"]) == 6  # the good ones


# A generator that fails on an even seed, leaving a stale answer behind it, and otherwise
# writes the pair (1 + seed % 1000, its second argument).
ODD_SEEDS_ONLY = """\
import sys
from pathlib import Path

seed = int(sys.argv[1])
if seed % 2 == 0:
    Path("testcase.ans").write_text("stale\\n")
    sys.exit(4)
print(1 + seed % 1000, sys.argv[2])
"""


def test_retries_run_a_failing_generator_again_with_the_next_seed_in_a_clean_folder(tmp_path):
    """`retries: 2` (BAPCtools' generate.py: the seed plus 1 on each try) makes the case a
    generator failed on its first seed from the next one, with nothing of the failed try kept
    (its stale testcase.ans); without it, the same entry is a generator-failed reject."""
    package, data, home = setup(tmp_path)
    generators = package / "generators"
    (generators / "odd.py").write_text(ODD_SEEDS_ONLY)
    # an entry whose first seed is even (so its first try fails) and one whose seed is odd
    even = next(f"odd.py {{seed}} {k}" for k in range(1, 1000)
                if bapctools_seed("gensum", f"odd.py {{seed}} {k}") % 2 == 0)
    odd = next(f"odd.py {{seed}} {k}" for k in range(1, 1000)
               if bapctools_seed("gensum", f"odd.py {{seed}} {k}") % 2 == 1)
    yaml_file = generators / "generators.yaml"
    text = yaml_file.read_text()
    assert "      - broken: broken.py {seed}\n" in text
    text = text.replace("      - broken: broken.py {seed}\n",
                        f"      - flaky: {even}\n      - steady: {odd}\n")
    yaml_file.write_text(text)

    once = pipeline(data, home, "ingest", str(package))
    assert once.returncode == 1, once.stdout + once.stderr  # the flaky entry is a reject
    [row] = pl.read_parquet(data / "tables" / "rejects" / "gensum.parquet").iter_rows(named=True)
    assert row["rule"] == "generator-failed" and "flaky" in row["message"], row
    assert "exited with code 4" in row["message"], row
    steady = next(v for k, v in stored(data).items() if k.endswith("-steady.in"))
    assert steady[0] == f"{1 + bapctools_seed('gensum', odd) % 1000} {odd.split()[-1]}\n"

    yaml_file.write_text("retries: 2\n" + text)
    again = tmp_path / "again"
    retried = pipeline(again, home, "ingest", str(package))
    assert retried.returncode == 0, retried.stdout + retried.stderr
    cases = stored(again)
    flaky = next(v for k, v in cases.items() if k.endswith("-flaky.in"))
    seed = (bapctools_seed("gensum", even) + 1) % 2**31
    assert flaky[0] == f"{1 + seed % 1000} {even.split()[-1]}\n"  # made from the next seed
    assert flaky[1] == f"{1 + seed % 1000 + int(even.split()[-1])}\n"  # the solution's answer
    assert next(v for k, v in cases.items() if k.endswith("-steady.in")) == steady


# A generator that logs its run to $HOME, writes a whole case, then never ends.
WRITES_THEN_HANGS = """\
import os
import time
from pathlib import Path

with open(Path(os.environ["HOME"]) / "hangs.log", "a") as log:
    log.write("run\\n")
Path("testcase.in").write_text("1 2\\n")
time.sleep(600)
"""


def test_a_generator_that_times_out_makes_no_case_even_after_writing_one(
        tmp_path, monkeypatch, sandbox_off):  # (pair.py logs outside its folder)
    """A generator stopped at its time limit is a failure (BAPCtools' generate.py: its case
    is not made), never retried, whatever it wrote before: the entry is a generator-failed
    reject naming the timeout, and the other entries are made."""
    import pipeline.packages.generators_yaml as generators_yaml

    package_dir, _, home = setup(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(generators_yaml, "GENERATOR_TIME_S", 1.0)
    (package_dir / "generators" / "hangs.py").write_text(WRITES_THEN_HANGS)
    yaml_file = package_dir / "generators" / "generators.yaml"
    text = yaml_file.read_text()
    assert "      - broken: broken.py {seed}\n" in text
    yaml_file.write_text("retries: 3\n" + text.replace("      - broken: broken.py {seed}\n",
                                                      "      - hangs: hangs.py\n"))
    package = load_package(package_dir, tmp_path / "build")
    [reject] = package.rejects
    assert reject.rule == "generator-failed" and reject.message.startswith("secret/7-hangs:")
    assert "timed out" in reject.message, reject.message
    names = [case.name for case in package.cases if case.group == "secret"]
    assert len(names) == 6 and not any("hangs" in name for name in names), names
    assert (home / "hangs.log").read_text() == "run\n"  # not tried again (`retries: 3`)
