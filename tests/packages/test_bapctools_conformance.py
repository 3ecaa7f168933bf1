"""BAPCtools' own test packages (`test/problems/` of RagnarGrootKoerkamp/BAPCtools) load and
ingest unchanged: every one whose data is made by generators/generators.yaml has it made with
no reject, and where BAPCtools commits what `bt generate` wrote, our inputs, answers and
outputs are the same bytes (the test case .yaml files the same data); the ones that ship only
samples and an empty data/secret ingest with a note.

The packages are read from the BAPCtools git snapshot the search tool's fetch brings, in the
folder `GAMEBENCH_SNAPSHOTS` names (never committed; the `bapctools_problems` and
`bapctools_checkout` fixtures of tests/packages/conftest.py, made once per xdist worker so the
per-package tests spread over the workers); without it the tests skip, saying so. Where
BAPCtools' `bt` is installed (`pip install bapctools`), `bt generate` itself is run on each
and its data held to ours file for file.

And every package is ingested and run through the CLI (`pipeline ingest`, `pipeline run`):
each submission must get what its folder and submissions.yaml expect, and the validators
what the invalid test data expects (the `expectations` table); the one without test data
(testproblemconfig) registers and has nothing to run. Where bt is installed, `bt run` is run
on each package too, and every submission must get from us the verdict it gets from bt, but
for the differences listed (`BT_DIFFERS`), each with why bt is the one off."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packagekit import snapshot
from suitekit import share_builds

from pipeline.packages import build_package, load_package
from pipeline.packages.expectations import kattis_class
from pipeline.packages.invalid import check_validators

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = snapshot("RagnarGrootKoerkamp/BAPCtools")
GENERATED = ("alternativeencryption", "constants", "divsort", "generatorcount",
             "generatorincludes", "identity", "interactivemultipass", "multipass", "testseed")
SAMPLES_ONLY = ("hello", "fltcmp", "boolfind", "hellounix")
COMPARED = (".in", ".ans", ".out")  # .interaction is made by bt running the interactor

pytestmark = pytest.mark.skipif(not SNAPSHOT.is_dir(), reason=f"no BAPCtools snapshot at "
                                f"{SNAPSHOT} (fetch github:RagnarGrootKoerkamp/BAPCtools)")


# No fixture of module scope here: tests/conftest.py would keep the whole module on one xdist
# worker for it (minutes of judging in a row); these name the session fixtures of
# tests/packages/conftest.py.
@pytest.fixture
def problems(bapctools_problems) -> Path:
    return bapctools_problems


@pytest.fixture
def builds(build_dir) -> Path:
    return build_dir


@pytest.fixture
def checkout(bapctools_checkout) -> Path:
    return bapctools_checkout


def _generated_root(package) -> Path:
    path = package.cases[0].input_path
    while path.name != "data":
        path = path.parent
    return path


@pytest.mark.parametrize("name", GENERATED)
def test_generators_yaml_makes_the_data_bt_generate_makes(name, problems, builds):
    package = load_package(problems / name, builds)
    assert package.rejects == ()
    assert package.cases and all(c.input_path.is_file() and c.answer_path.is_file()
                                 for c in package.cases)
    ours = _generated_root(package)
    assert ours != problems / name / "data"  # made by us, not read from the commit
    committed = problems / name / "data"
    compared = 0
    for theirs in sorted(committed.rglob("*")) if committed.is_dir() else []:
        relative = theirs.relative_to(committed)
        if not theirs.is_file() or theirs.name.startswith("."):
            continue
        if theirs.name.endswith(COMPARED):
            assert (ours / relative).read_bytes() == theirs.read_bytes(), relative
            compared += 1
        elif theirs.suffix == ".yaml":
            assert yaml.safe_load((ours / relative).read_text()) == yaml.safe_load(
                theirs.read_text()), relative
    if name in ("generatorincludes", "testseed", "identity"):
        assert compared >= 10  # those commit their generated secret or samples


def test_identity_numbers_counts_and_seeds_as_bapctools_does(problems, builds):
    package = load_package(problems / "identity", builds)
    names = {case.name for case in package.cases}
    # one counter over the whole file (47 numbered cases: two digits), groups in name order
    assert {"secret/json/01", "secret/json/02-1", "secret/numbered_count_group/08-primes-907",
            "secret/numbered_group/26-dir", "secret/seeding/31",
            "secret/zero_prefix_group/47", "secret/count_group/seed-3"} <= names
    kinds = sorted({t.kind for t in package.validator_tests})
    assert kinds == ["invalid_answer", "invalid_input", "invalid_output", "valid_output"]


def test_divsorts_invalid_cases_test_its_validators_as_bapctools_does(problems, builds, tmp_path):
    # input_validator_args by validator name and shadowed per folder, included cases,
    # answer_validator_args, and the default output validator with float_tolerance
    package = load_package(problems / "divsort", builds)
    found = {a.expected: a for a in check_validators(
        package, build_package(package, builds, submissions=[]), builds, tmp_path)}
    assert {expected: (a.got, a.status) for expected, a in found.items()} == {
        "reject invalid_input": ("4 of 4 right", "agree"),
        "reject invalid_answer": ("3 of 3 right", "agree"),
        "reject invalid_output": ("1 of 1 right", "agree"),
        "accept valid_output": ("1 of 1 right", "agree")}


BT = shutil.which("bt") or os.environ.get("BAPCTOOLS_BT")
BT_COMPARED = ("identity", "testseed", "generatorcount", "generatorincludes", "divsort",
               "constants")


@pytest.mark.skipif(not BT, reason="BAPCtools' bt is not installed (pip install bapctools, "
                    "or BAPCTOOLS_BT=/path/to/bt)")
@pytest.mark.parametrize("name", BT_COMPARED)
def test_our_data_is_what_bt_generate_makes_file_for_file(name, problems, builds, tmp_path):
    """bt generate itself on a copy with its data/ removed: every file it writes (inputs,
    answers, outputs, test case and group yaml) is ours, and we make no other."""
    copy = tmp_path / name
    shutil.copytree(problems / name, copy, symlinks=True)
    shutil.rmtree(copy / "data", ignore_errors=True)
    subprocess.run([BT, "generate", "--no-visualizer", "--no-validators"], cwd=copy,
                   capture_output=True, timeout=1200)
    theirs = copy / "data"
    ours = _generated_root(load_package(problems / name, builds))

    def files(root: Path) -> set[Path]:
        return {f.relative_to(root) for f in root.rglob("*") if f.is_file()
                and not f.name.startswith(".") and not f.name.endswith(".interaction")}

    assert files(ours) == files(theirs)
    for relative in files(theirs):
        if relative.suffix == ".yaml":
            assert yaml.safe_load((ours / relative).read_text()) == yaml.safe_load(
                (theirs / relative).read_text()), relative
        else:
            assert (ours / relative).read_bytes() == (theirs / relative).read_bytes(), relative


# -- every package, ingested and run through the CLI -----------------------------------------

# Every folder of BAPCtools' test/problems but testproblemconfig (only a problem.yaml: no test
# data, no submissions; `test_a_package_without_test_data_has_nothing_to_run`). solve_stats is
# no package (bt's solve-stats fixtures: PDFs and a .tex, no problem.yaml). hellounix has only
# run_time_error/ submissions: they are judged at its limits.time_limit of 10 s.
PACKAGES = ("alternativeencryption", "boolfind", "constants", "different", "divsort", "fltcmp",
            "generatorcount", "generatorincludes", "guess", "guessnoeofcheck", "hello",
            "helloproblemtools", "hellounix", "hellowholeworld", "identity",
            "interactivemultipass", "multipass", "pseudointeraction", "testexpectations",
            "testseed")
NO_TEST_DATA = "testproblemconfig"
# Packages with a submission still known to disagree (strict: a fix shows up as XPASS).
KNOWN_DISAGREEING: dict[str, str] = {}
# Single submissions still known to disagree, judged in their package's run: each must get
# what it is pinned to and disagree (strict: a fix fails the test until it is taken out here).
KNOWN_DISAGREEING_SUBMISSIONS = {"alternativeencryption": {
    "time_limit_exceeded/ragnar-busy-sleep-encrypt.py": (
        "AC", "it busy-waits 1.5 s in its encrypt pass only, under the package's 2 s time limit "
        "(each pass and their sum): AC, and `bt run` finds AC too; the package expects TLE")}}
# Languages of the packages without a toolchain here are SKIP (README: a missing compiler).
SKIPPED_LANGUAGES = (".kt",)
# The submissions a run judges, where not all: identity's 20 run on 70 cases each and its TLE
# ones take 2-3 s a case, so the test keeps the quick ones (a `.bad.` one of each kind);
# alternativeencryption's sleepers take 1.5 s to 5 s on each of 19 cases (its run is 5 min),
# so of them only the one known to disagree runs (1.5 s a case).
SOLVERS = {"alternativeencryption": (
               "accepted/mzuenni.cpp", "accepted/paul.py", "accepted/ragnar.py",
               "accepted/thomas-atbash.c", "accepted/thomas-caesar.c", "accepted/thomas-rot13.cpp",
               "run_time_error/ragnar-panic-decrypt.py", "run_time_error/ragnar-panic-encrypt.py",
               "wrong_answer/mzuenni_also_change_case.cpp", "wrong_answer/no-change.py",
               "wrong_answer/no-change-in-decrypt.py", "wrong_answer/ragnar-extra-output.py",
               "wrong_answer/ragnar-numeric-output.py",
               *KNOWN_DISAGREEING_SUBMISSIONS["alternativeencryption"]),
           "identity": ("accepted/author.c", "accepted/author.py", "accepted/wa.bad.py",
                        "accepted/rte.bad.py", "run_time_error/rte.py",
                        "run_time_error/stackoverflow.py", "run_time_error/ac.bad.py",
                        "time_limit_exceeded/ac.bad.py", "wrong_answer/wa.py",
                        "wrong_answer/rte.bad.py")}

# A forced time limit where every submission is far from the package's either way (none yet:
# hello's 3 s cannot be 1 s, as its rejected/test-memstatic.c, 0.8 s of CPU idle and over 1 s
# under load, must be RE or WA).
TIMEOUT: dict[str, str] = {}
# Worker processes where not 2: guess's two hanging submissions wait out their time (4.5 s) on
# each of its 10 cases on no CPU, and alternativeencryption's busy-sleeper waits 1.5 s of wall
# clock on each of its 19 (a core's worth, or less when it shares one), so more of them run
# side by side. Verdicts are by CPU time, and the rest are far from the limits.
JOBS = {"alternativeencryption": "4", "guess": "4"}


# What a few submissions get, each the one a fix of ours was for.
GOT = {"hello": {"accepted/test-hello.bash": "AC",                # *.bash is Bash
                 "time_limit_exceeded/test-fill-stdout.cc": "TLE"},  # output cut, runs on
       "pseudointeraction": {"accepted/eof.py": "AC"},  # the interactor closes its output
       "guess": {"run_time_error/guess_exit_1.cpp": "RE",  # exits before the WA: RE
                 "run_time_error/guess_close_stdout_1.cpp": "RE",
                 "time_limit_exceeded/guess_tle_after_correct.cc": "TLE"},
       "constants": {"wrong_answer/constant_in_submission.py": "WA"},  # not filled in
       "testexpectations": {"wa/42.py": "WA"}}  # `{ 4 }{ 2 }` matches secret/42


def _meant_to_disagree(package: str, submission: str) -> bool:
    """identity's `*.bad.py` are its right and wrong submissions linked into folders that
    expect otherwise, there for `bt run` to flag (it does); the one outside any folder is no
    submission, for bt neither."""
    return package == "identity" and ".bad." in submission


# DOMjudge's tests of a Java main class the file does not name (`class Main` in
# test-sigfpe.java): they cannot start, which is the RE their folder expects (and what bt run
# finds): the run names them in a note and, as their folder permits it, exits 0.
COULD_NOT_START = {"hello": ("run_time_error/test-memsize.java",
                             "run_time_error/test-sigfpe.java")}


def _cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def _conformance_params() -> list:
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DISAGREEING[name]))
            if name in KNOWN_DISAGREEING else name for name in PACKAGES]


def _share_generated_data(data: Path, builds: Path) -> None:
    """`data`'s cache of the test data generators.yaml makes (`DATA/build/packages/
    bapctools-data`, keyed by the package's content) made a link to the session's `builds`
    one, before the data folder is first used: a package's data is generated once per session
    (held to what BAPCtools commits by `test_generators_yaml_makes_the_data_bt_generate_makes`),
    not again by each ingest of the same package."""
    (builds / "bapctools-data").mkdir(exist_ok=True)
    (data / "build" / "packages" / "bapctools-data").symlink_to(
        builds / "bapctools-data", target_is_directory=True)


def _ingested_and_run(name: str, checkout: Path, data: str, builds: Path) -> tuple[
        subprocess.CompletedProcess, subprocess.CompletedProcess, list[dict]]:
    """`pipeline ingest` and `pipeline run` of package `name` (its SOLVERS, JOBS and
    TIMEOUT) into data folder `data`, whose package builds and generated data are the
    session's `builds` (`share_builds`, `_share_generated_data`: the generators and data
    `load_package` made above): the two processes and the `expectations` rows."""
    share_builds(Path(data), builds)
    _share_generated_data(Path(data), builds)
    ingest = _cli("--data-dir", data, "ingest", str(checkout / name))
    assert ingest.returncode == 0, ingest.stdout[-3000:] + ingest.stderr[-2000:]
    solvers = [arg for solver in SOLVERS.get(name, ()) for arg in ("--solver", solver)]
    forced = ["--timeout", TIMEOUT[name]] if name in TIMEOUT else []
    run = _cli("--data-dir", data, "run", "--problem", name, "--jobs", JOBS.get(name, "2"),
               *forced, *solvers)
    query = _cli("--data-dir", data, "query", "SELECT submission, expected, got, status "
                 "FROM expectations", "--format", "json")
    rows = [json.loads(line) for line in query.stdout.splitlines() if line.strip()]
    assert rows, run.stdout[-3000:] + run.stderr[-2000:]
    return ingest, run, rows


@pytest.mark.slow
@pytest.mark.parametrize("name", _conformance_params())
def test_every_submission_gets_its_expected_verdict(name, checkout, builds, tmp_path):
    """`pipeline ingest` stores the package with no reject, and `pipeline run` judges every
    submission (and the validators on the invalid test data) as the package expects."""
    ingest, run, rows = _ingested_and_run(name, checkout, str(tmp_path / "d"), builds)
    assert " 0 rejected" in ingest.stdout, ingest.stdout[-3000:]
    assert f"{name}: registered 2025-09 package" in ingest.stdout, ingest.stdout[-3000:]
    if name in SAMPLES_ONLY:
        assert "only the samples are judged" in ingest.stdout, ingest.stdout[-3000:]
    wrong = [r for r in rows if r["status"] != "agree" and not (
        r["status"] == "skipped" and r["submission"].endswith(SKIPPED_LANGUAGES))]
    meant = [r for r in rows if _meant_to_disagree(name, r["submission"])]
    known = KNOWN_DISAGREEING_SUBMISSIONS.get(name, {})
    assert [r for r in wrong if r not in meant and r["submission"] not in known] == [], \
        "\n".join(map(str, wrong)) + "\n" + run.stdout[-3000:]
    assert [r for r in meant if r["status"] != "disagree"] == [], meant
    assert {r["submission"]: (r["got"], r["status"]) for r in rows if r["submission"] in known} \
        == {sub: (got, "disagree") for sub, (got, _) in known.items()}, \
        f"a submission known to disagree got otherwise (fixed? take it out of " \
        f"KNOWN_DISAGREEING_SUBMISSIONS): {known}"
    got = {r["submission"]: r["got"] for r in rows}
    assert {sub: got.get(sub) for sub in GOT.get(name, {})} == GOT.get(name, {})
    if name in SOLVERS:
        assert sorted(r["submission"] for r in rows if "validator" not in r["submission"]) == \
            sorted(SOLVERS[name])
    if meant or known:
        assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-2000:]
    elif name in COULD_NOT_START:
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
        assert f"note: {', '.join(COULD_NOT_START[name])} could not start, which its folder " \
            "permits: no failure (see above)" in run.stderr.splitlines(), run.stderr[-2000:]
    else:
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_a_package_without_test_data_has_nothing_to_run(checkout, tmp_path):
    """testproblemconfig (BAPCtools' problem.yaml tests: no data/, no submissions/, a time
    limit given) registers with a note saying it has no test cases, and a run of it says there
    is nothing to run and exits 0, making no run: `bt run` warns that it found no test cases
    and skips it (exiting 1, as it does on any warning)."""
    data = str(tmp_path / "d")
    ingest = _cli("--data-dir", data, "ingest", str(checkout / NO_TEST_DATA))
    assert ingest.returncode == 0, ingest.stdout[-3000:] + ingest.stderr[-2000:]
    assert f"{NO_TEST_DATA}: registered 2025-09 package" in ingest.stdout, ingest.stdout
    assert f"{NO_TEST_DATA}: note: the package has no test cases (no data/ folder)" \
        in ingest.stdout, ingest.stdout
    listed = _cli("--data-dir", data, "problems")
    assert f"{NO_TEST_DATA}  ABC XYZ  (time limit 3 s," in listed.stdout, listed.stdout[-3000:]
    run = _cli("--data-dir", data, "run", "--problem", NO_TEST_DATA)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert run.stdout.splitlines() == [f"{NO_TEST_DATA}: nothing to run: the package has no "
                                       "test cases (BAPCtools' bt run skips such a package too)"]
    runs = _cli("--data-dir", data, "query", "SELECT count(*) AS n FROM runs", "--format", "json")
    assert json.loads(runs.stdout.splitlines()[0]) == {"n": 0}, runs.stdout + runs.stderr


# -- bt's own verdicts -------------------------------------------------------------------------

# Where `bt run` (BAPCtools 2026.10) gives a submission another verdict than we do, by package
# and submission: (ours, bt's, whether bt's depends on the machine's speed, why bt is the one
# off the package's expectation). Every other submission both judge gets the same verdict from
# both; one listed must get ours (the package's expectation) and, from bt, the one listed (or,
# where bt's depends on the machine's speed, ours).
BT_DIFFERS: dict[str, dict[str, tuple[str, str, bool, str]]] = {
    "boolfind": {"time_limit_exceeded/boolfind-test-loop.cc": (
        "TLE", "JE", False,
        "it asks `READ 0` forever, past the 1 s time limit: TLE, as its folder requires; bt "
        "stops it at its timeout, then finds the interactor not ended in time (`Validator "
        "TIMEOUT`) and calls that a judge error")},
    "pseudointeraction": {submission: (
        "AC", "TLE", True,
        "the package gives no time limit, so the format derives it from the accepted "
        "submissions' times (x ac_to_time_limit 2): they are AC by definition; bt judges at "
        "its default of 1 s (time_resolution), and on secret/3_big (10^6 numbers) they took "
        "0.92 s and 0.79 s of bt's CPU time, close enough that a loaded machine makes them "
        "TLE for bt (with its own timeout, under a load average of 16, both ran into it)")
        for submission in ("accepted/eof.py", "accepted/read.py")},
}


# Submissions bt does not judge here, by package, and why.
BT_UNJUDGED = {"testexpectations": {"ac_or_wa/metadata": (
    "its submissions.yaml entry says `language: python3`, which in bt's languages is Python 3 "
    "run by PyPy (CPython is its `cpython3`), and there is no pypy3 on this machine: bt finds "
    "no language (`No language detected`) and runs nothing; we run it with CPython: AC, as "
    "its folder permits")}}


def _bt_timeout(problem_yaml: Path) -> int:
    """bt's wall-clock timeout for the test's `bt run`: 3 x the time limit + 5 s, where bt's
    own is 1.5 x + 1 s. bt kills a run at its timeout and then counts the wall time, not the
    CPU time, against the limit, so on a loaded machine (2 cores, other workers) a 0.1 s
    Python submission that waited 2 s for a core was TLE; with more wall time the verdict
    is bt's CPU time against the time limit, as it is on a quiet machine. The time limit is
    what bt takes: limits.time_limit, else time_resolution (1 s by default)."""
    limits = (yaml.safe_load(problem_yaml.read_text()) or {}).get("limits") or {}
    time_limit = float(limits.get("time_limit", limits.get("time_resolution", 1.0)))
    return int(3 * time_limit + 5)


@pytest.mark.slow
@pytest.mark.skipif(not BT, reason="BAPCtools' bt is not installed (pip install bapctools, "
                    "or BAPCTOOLS_BT=/path/to/bt)")
@pytest.mark.parametrize("name", (*PACKAGES, NO_TEST_DATA))
def test_each_submission_gets_the_verdict_bt_run_gives_it(name, checkout, builds, tmp_path):
    """`bt run --no-bar` on a copy of the package (the submissions our run judges; a longer
    wall-clock timeout, `_bt_timeout`), its verdict of each submission read as the `peers`
    bench reads it, held to ours (a Kattis verdict: MLE and OLE are bt's RTE) but for the
    differences of `BT_DIFFERS`."""
    from benchmarks.peers import bt_verdicts

    copy = shutil.copytree(checkout / name, tmp_path / "bt" / name, symlinks=True)
    chosen = [f"submissions/{submission}" for submission in SOLVERS.get(name, ())]
    # bt builds and runs in TMPDIR/bapctools_<hash>: the test's own folder, not /tmp
    env = {**os.environ, "PATH": f"{Path(BT).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "TMPDIR": str(tmp_path)}
    bt = subprocess.run([BT, "run", "--no-bar", "--timeout",
                         str(_bt_timeout(copy / "problem.yaml")), *chosen],
                        cwd=copy, capture_output=True, text=True, timeout=1800, env=env)
    theirs = bt_verdicts(bt.stdout + bt.stderr)
    if name == NO_TEST_DATA:  # bt skips it, as our run has nothing to do
        assert theirs == {} and "Didn't find any test cases" in bt.stderr, bt.stderr[-2000:]
        return
    _, run, rows = _ingested_and_run(name, checkout, str(tmp_path / "d"), builds)
    ours = {r["submission"]: kattis_class(r["got"].split(",")[0].split()[0]) for r in rows
            if "validator" not in r["submission"]}
    shown = f"bt:\n{bt.stdout[-3000:]}{bt.stderr[-3000:]}\nours:\n{run.stdout[-3000:]}"
    # every submission is judged by both, but those of a language without a toolchain here
    assert set(theirs) == {s for s, got in ours.items() if got != "SKIP"} - set(
        BT_UNJUDGED.get(name, {})), shown
    known = BT_DIFFERS.get(name, {})
    differ = {s: (ours[s], theirs[s]) for s in theirs if ours[s] != theirs[s]}
    assert {s: pair for s, pair in differ.items() if s not in known} == {}, shown
    for submission, (our, bts, load_dependent, _) in known.items():
        assert ours[submission] == our, shown
        assert theirs[submission] in ((bts, our) if load_dependent else (bts,)), shown
