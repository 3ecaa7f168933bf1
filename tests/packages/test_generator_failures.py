"""A generator that fails is never an agreement: real `pipeline ingest` and `pipeline run`
processes on a copy of tests/fixtures/packages/gensum, whose generators.yaml makes every case
(its `broken.py` exits 3 with a complaint on stderr, as a setter's broken generator does).

- A case whose generator fails and that the package does not commit is not judged: the run
  names it (generators.yaml's line, the case, the command, the generator's complaint), each
  submission that gets what it expects on the other cases reads `not judged on N case(s)`,
  its stored row says `partial` with the cases judged and held, and the run exits 1.
- A case whose generator fails but that the package commits (`data/secret/<name>.in` and
  `.ans`, as an earlier `bt generate` wrote them) is judged from the committed files, with a
  note naming the generator, the case and the error; the run then agrees as usual.
- A folder that includes a case that could not be made lacks it too: that is a case not
  judged as well, named where it was to be placed.
- A package none of whose cases can be made has nothing to judge: the run says why and exits 1.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
from packagekit import FIXTURES

from pipeline.packages import load_package

REPO = Path(__file__).resolve().parents[2]
BROKEN = "secret/7-broken"  # the fixture's failing entry (generators.yaml, `broken.py {seed}`)


def pipeline(data: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    # gensum's pair.py logs its runs into $HOME, outside its folder, which the sandbox
    # forbids: its programs run unsandboxed here, as in test_generators_yaml.py.
    env = dict(os.environ, HOME=str(home), PIPELINE_SANDBOX="off")
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300, env=env)


def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    package = tmp_path / "gensum"
    shutil.copytree(FIXTURES / "gensum", package)
    home = tmp_path / "home"
    home.mkdir()
    return package, tmp_path / "data", home


def yaml_line(package: Path, text: str) -> int:
    lines = (package / "generators" / "generators.yaml").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def agreement_column(stdout: str) -> dict[str, str]:
    """submission -> what the summary's `agree` column says of it."""
    found = {}
    for line in stdout.splitlines():
        words = line.split()
        if line.startswith("    ") and words and words[0] in (
                "accepted/sum.py", "wrong_answer/difference.py"):
            found[words[0]] = " ".join(words[3:])
    return found


def held(data: Path) -> dict[str, tuple[str, int, int]]:
    """submission -> (status, cases judged, cases held) of the stored expectation rows."""
    rows = pl.read_parquet(list((data / "tables" / "expectations").glob("*.parquet")))
    return {r["submission"]: (r["status"], r["cases_judged"], r["cases_held"])
            for r in rows.iter_rows(named=True)}


def test_a_failing_generator_without_a_committed_case_is_no_agreement(tmp_path):
    package, data, home = setup(tmp_path)
    ingest = pipeline(data, home, "ingest", str(package))
    assert ingest.returncode == 1 and "Traceback" not in ingest.stderr, ingest.stderr
    run = pipeline(data, home, "run", "--problem", "gensum", "--jobs", "1")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    line = yaml_line(package, "broken.py {seed}")
    [note] = [x for x in run.stdout.splitlines() if "not judged:" in x]
    # the entry's line, the case, the command, the generator's complaint (its first line)
    assert (f"not judged: 1 test case(s) the package holds: generators/generators.yaml:{line}: "
            f"rule generator-failed: {BROKEN}: `broken.py {{seed}}` failed: the generator "
            "exited with code 3: broken.py: cannot make a case for") in note, note
    # each submission gets what it expects on the 7 cases made, but is not said to agree
    assert agreement_column(run.stdout) == {
        "accepted/sum.py": "not judged on 1 case(s)",
        "wrong_answer/difference.py": "not judged on 1 case(s)"}, run.stdout
    assert "yes" not in agreement_column(run.stdout).values()
    assert "2 submission(s) got what they expect only on the test cases judged" in run.stderr
    rows = held(data)
    assert rows["accepted/sum.py"] == ("partial", 7, 8)
    assert rows["wrong_answer/difference.py"] == ("partial", 7, 8)
    # the report shows the stored rows as they are: never `yes`
    report = pipeline(data, home, "report", "--out", str(tmp_path / "report.html"))
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "report.html").read_text()
    assert page.count("<td>not judged on 1 of 8 case(s)</td>") == 2, page
    # and the nightly fails on it, naming each submission
    config = tmp_path / "nightly.toml"
    config.write_text('seed = 1\nproblems = ["gensum"]\n')
    night = pipeline(data, home, "nightly", "--config", str(config))
    assert night.returncode == 1, night.stdout + night.stderr
    assert ("! gensum/accepted/sum.py: expected accepted, got AC on the cases judged only: the "
            "package holds test cases that were not judged") in night.stdout, night.stdout


def test_a_failing_generator_whose_case_is_committed_judges_the_committed_case(tmp_path):
    package, data, home = setup(tmp_path)
    secret = package / "data" / "secret"
    secret.mkdir(parents=True)
    (secret / "7-broken.in").write_text("40 2\n")
    (secret / "7-broken.ans").write_text("42\n")
    ingest = pipeline(data, home, "ingest", str(package))
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    line = yaml_line(package, "broken.py {seed}")
    assert (f"note: generators/generators.yaml:{line}: {BROKEN}: `broken.py {{seed}}` failed: "
            "the generator exited with code 3: broken.py: cannot make a case for") \
        in ingest.stdout, ingest.stdout
    assert f"the committed data/{BROKEN}.in is judged instead" in ingest.stdout
    cases = pl.read_parquet(data / "tables" / "cases" / "gensum.parquet")
    [case] = cases.filter(pl.col("source").str.ends_with(f"{BROKEN}.in")).iter_rows(named=True)
    assert (case["input"], case["expected"]) == ("40 2\n", "42\n")
    run = pipeline(data, home, "run", "--problem", "gensum", "--jobs", "1")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "not judged" not in run.stdout
    assert agreement_column(run.stdout) == {"accepted/sum.py": "yes",
                                            "wrong_answer/difference.py": "yes"}, run.stdout
    assert held(data)["accepted/sum.py"] == ("agree", 8, 8)


def test_a_crashing_generator_that_writes_nothing_costs_its_cases_and_the_agreement(tmp_path):
    """Two real failures beside broken.py's exit code: pair.py killed by a signal (its three
    `count` cases and the small one), and both.py ending well but writing no input."""
    package, data, home = setup(tmp_path)
    (package / "generators" / "pair.py").write_text(
        "import os, signal, sys\n"
        "print('pair.py: giving up on', sys.argv[1:], file=sys.stderr, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n")
    (package / "generators" / "both.py").write_text("import sys\nsys.exit(0)\n")
    pipeline(data, home, "ingest", str(package))
    run = pipeline(data, home, "run", "--problem", "gensum", "--jobs", "1")
    assert run.returncode == 1, run.stdout + run.stderr
    [note] = [x for x in run.stdout.splitlines() if "not judged:" in x]
    assert "not judged: 6 test case(s) the package holds" in note, note
    for case in ("secret/2-random-1", "secret/3-random-2", "secret/4-random-3",
                 "secret/5-small"):
        assert f"{case}: `pair.py {{seed" in note, note
    assert "the generator was killed by signal 9: pair.py: giving up on" in note, note
    assert "secret/6-both: `both.py 20 22` wrote no testcase.in and nothing on its standard " \
           "output" in note, note
    assert agreement_column(run.stdout)["accepted/sum.py"] == "not judged on 6 case(s)"
    assert held(data)["accepted/sum.py"] == ("partial", 2, 8)  # sample/1 and secret/1-max


def test_an_include_of_a_case_that_was_not_made_is_a_case_not_judged(tmp_path, monkeypatch,
                                                                    sandbox_off):
    # (sandbox off: pair.py logs outside its folder)
    package_dir, _, home = setup(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    yaml_file = package_dir / "generators" / "generators.yaml"
    yaml_file.write_text(yaml_file.read_text().replace(
        "      - broken: broken.py {seed}\n",
        "      - broken: broken.py {seed}\n      - again:\n          include:\n"
        "            - broken\n"))
    package = load_package(package_dir, tmp_path / "build")
    unjudged = {e.case: e for e in package.unjudged_cases}
    assert sorted(unjudged) == ["secret/1-again/7-broken", BROKEN]
    message = unjudged["secret/1-again/7-broken"].message
    assert message.startswith(f"secret/1-again/7-broken: included from {BROKEN}: "
                              "`broken.py {seed}` failed: the generator exited with code 3")
    # the case a reject costs survives the trip to a worker process
    copied = pickle.loads(pickle.dumps(unjudged[BROKEN]))
    assert (copied.case, copied.line, str(copied)) == (BROKEN, unjudged[BROKEN].line,
                                                        str(unjudged[BROKEN]))


def test_a_package_none_of_whose_cases_can_be_made_is_not_judged(tmp_path):
    package, data, home = setup(tmp_path)
    yaml_file = package / "generators" / "generators.yaml"
    yaml_file.write_text("solution: /submissions/accepted/sum.py\n"
                         "data:\n  sample:\n    data: {}\n"
                         "  secret:\n    data:\n      - broken: broken.py {seed}\n")
    pipeline(data, home, "ingest", str(package))
    run = pipeline(data, home, "run", "--problem", "gensum", "--jobs", "1")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert ("package gensum holds test cases but none can be judged: not judged: 1 test "
            "case(s) the package holds: generators/generators.yaml:7: rule generator-failed: "
            "secret/1-broken: `broken.py {seed}` failed") in run.stderr, run.stderr
    assert "nothing to run" not in run.stdout
    # the nightly says so too, fails, and goes on with its other problems
    config = tmp_path / "nightly.toml"
    config.write_text('seed = 1\nproblems = ["gensum"]\n')
    night = pipeline(data, home, "nightly", "--config", str(config))
    assert night.returncode == 1, night.stdout + night.stderr
    assert "Traceback" not in night.stderr, night.stderr
    assert "! not judged: gensum: package gensum holds test cases but none can be judged" \
        in night.stdout, night.stdout
