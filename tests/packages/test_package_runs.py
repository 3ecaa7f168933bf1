"""`pipeline run --problem P` on a registered problem package: every submission runs over the
stored cases, is judged by the package's own rules, lands in `results` like any solver, and is
held against what its folder or tag expects (printed, kept in `expectations`, exit 1 when one
disagrees). Real `pipeline` processes on copies of the fixture packages, real compilers.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
import pytest
from packagekit import ALL, FIXTURES, REPO, pipeline, table, tiny_kattis, write_tree
from processkit import descendants_of
from suitekit import share_builds

from pipeline.programs.external import scratch_prefix


def registered(tmp_path: Path, name: str, builds: Path | None = None) -> tuple[Path, Path]:
    """A private copy of fixture `name`, ingested into a fresh data folder; its package builds
    are the session's `builds` (`build_dir`) when given (`share_builds`), else its own."""
    package, data = tmp_path / name, tmp_path / "data"
    if builds is not None:
        share_builds(data, builds)
    shutil.copytree(FIXTURES / name, package)
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stdout + done.stderr
    return package, data


def submission_names(data: Path, problem: str) -> set[str]:
    listed = pipeline(data, "problems")
    assert listed.returncode == 0, listed.stderr
    block = listed.stdout.split(f"\n{problem}  ", 1)[1].split("\n")[1:]
    return {line.split()[0] for line in block
            if line.startswith("  ") and line.split()[1:2] == ["submission"]}


@pytest.mark.parametrize("name", ALL)
def test_every_submission_of_each_fixture_package_gets_what_its_folder_expects(
        package_run, name):
    """Each fixture package whole: ingested with no reject, every submission it holds run on
    every case and agreeing with its folder or tag (a folder's submission gets its verdict)."""
    run = package_run(name)
    data, done = run.data, run.done
    rejects = data / "tables" / "rejects" / f"{name}.parquet"
    assert not rejects.exists() or pl.read_parquet(rejects).height == 0
    assert done.returncode == 0, done.stdout + done.stderr
    assert "submission" in done.stdout and "expected" in done.stdout and " NO" not in done.stdout
    held = table(data, "expectations")
    assert held["status"].to_list() == ["agree"] * held.height, held
    assert set(held["submission"]) == submission_names(data, name)
    folders = {"accepted": "AC", "wrong_answer": "WA", "time_limit_exceeded": "TLE",
               "run_time_error": "RE"}
    for expected, got in zip(held["expected"], held["got"]):
        verdict = got.split(",")[0].split()[0]  # a scoring result reads "WA, score 60"
        assert verdict == folders.get(expected, verdict), (expected, got)
    results = table(data, "results")
    cases = pl.read_parquet(data / "tables" / "cases" / f"{name}.parquet").height
    assert results.group_by("solver").len()["len"].to_list() == [cases] * held.height
    assert set(results["solver"]) == set(held["submission"])
    # every expected verdict class is among the fixture's submissions, and each was run
    assert held.filter(pl.col("expected").is_in(["accepted", "main"])).height >= 2
    assert held.filter(~pl.col("expected").is_in(["accepted", "main"])).height >= 3


def test_results_carry_the_packages_verdicts_scores_and_judge_messages(package_run):
    run = package_run("bigsum")
    data = run.data
    assert run.done.returncode == 0, run.done.stdout + run.done.stderr
    results = table(data, "results")
    accepted = results.filter(pl.col("solver") == "accepted/sum.py")
    assert accepted["verdict"].unique().to_list() == ["AC"]
    # group2 sums its cases' scores (60 points, 3 cases); group1 scores as a whole (min)
    assert sorted(accepted["score"].drop_nulls().to_list()) == [20.0, 20.0, 20.0]
    wrong = results.filter((pl.col("solver") == "wrong_answer/int32.c")
                           & (pl.col("verdict") == "WA"))
    assert wrong.height >= 1 and wrong["score"].to_list() == [0.0] * wrong.height
    assert all(m for m in wrong["message"].to_list())  # the default validator says why
    got = table(data, "expectations").filter(pl.col("submission") == "accepted/sum.py")
    assert got["got"].to_list() == ["AC, score 100"]


def test_a_submission_in_the_wrong_folder_disagrees_with_the_cases_that_show_it(tmp_path,
                                                                                build_dir):
    package, data = registered(tmp_path, "circlearea", build_dir)
    wrong = package / "submissions" / "wrong_answer" / "pi_is_three.py"
    wrong.rename(package / "submissions" / "accepted" / "pi_is_three.py")
    assert pipeline(data, "ingest", str(package)).returncode == 0
    done = pipeline(data, "run", "--problem", "circlearea")
    assert done.returncode == 1, done.stdout + done.stderr
    table_rows = [line.split() for line in done.stdout.split("  submission ", 1)[1].splitlines()]
    assert ["accepted/pi_is_three.py", "accepted", "WA", "NO"] in table_rows
    assert "accepted/pi_is_three.py: overall verdict AC: got WA (cases: sample/1, " \
        "secret/01-small" in done.stdout
    assert "1 submission(s) got what their folder does not expect" in done.stderr
    [row] = table(data, "expectations").filter(pl.col("status") == "disagree").iter_rows(
        named=True)
    assert row["submission"] == "accepted/pi_is_three.py" and "secret/03-large" in row["cases"]


def test_a_time_limit_the_package_does_not_give_is_derived_once_and_recorded(tmp_path,
                                                                              package_run):
    """circlearea (legacy, no limit given): the accepted submissions' slowest CPU time x
    time_multiplier 5, rounded to whole seconds, as problemtools does. The second run is
    in a copy of the first one's data folder."""
    run = package_run("circlearea")
    first, data = run.done, tmp_path / "data"
    shutil.copytree(run.data, data, symlinks=True)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "note: time limit derived: slowest accepted run" in first.stdout
    assert "x time_multiplier 5, rounded: 1 s" in first.stdout
    marker = json.loads((data / "problems" / "circlearea" / "package.json").read_text())
    assert marker["time_limit"]["time_s"] == 1.0
    assert "time_multiplier 5" in marker["time_limit"]["how"]
    second = pipeline(data, "run", "--problem", "circlearea")
    assert second.returncode == 0 and "time limit derived" not in second.stdout
    assert "time limit 1 s: slowest accepted run" in second.stdout
    runs = table(data, "expectations").group_by("run_id").agg(pl.col("time_limit_s").first())
    assert runs["time_limit_s"].to_list() == [1.0, 1.0]


def test_the_runs_that_derive_the_time_limit_are_the_results_and_run_once(tmp_path, build_dir):
    """The accepted submissions are run once: the runs that derive the limit (at the probe
    limit) are judged again at the derived limit and kept as the run's results. An accepted
    submission that notes each run of it in a file (no sandbox, so it can) runs once per
    case, and its rows say AC at the derived limit."""
    package, data = registered(tmp_path, "circlearea", build_dir)
    trace = tmp_path / "runs.log"
    (package / "submissions" / "accepted" / "traced.py").write_text(
        "import math\n"
        f"with open({str(trace)!r}, 'a') as log:\n    log.write('run\\n')\n"
        "r = int(input())\nprint(f'{math.pi * r * r:.9e}')\n")
    assert pipeline(data, "ingest", str(package)).returncode == 0
    done = pipeline(data, "run", "--problem", "circlearea", "--sandbox", "off")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: time limit derived: slowest accepted run" in done.stdout
    cases = pl.read_parquet(data / "tables" / "cases" / "circlearea.parquet").height
    assert trace.read_text().splitlines() == ["run"] * cases
    results = table(data, "results")
    traced = results.filter(pl.col("solver") == "accepted/traced.py")
    assert traced.height == cases and traced["verdict"].to_list() == ["AC"] * cases
    assert results.group_by("solver").len()["len"].to_list() == \
        [cases] * results["solver"].n_unique()


def test_the_packages_own_programs_never_see_the_data_folders_tables(tmp_path):
    """The workers start before the run does (they load the package meanwhile): the output
    validator they run sees the data folder hidden all the same. This one rejects every
    output once it can read the stored cases; every submission still gets what it expects.
    (The data folder lies outside /tmp, which a sandboxed program never sees anyway.)"""
    outside = Path(tempfile.mkdtemp(prefix="gamebench-hidden-data-", dir="/var/tmp"))
    try:
        _every_output_judged_without_the_stored_cases(tmp_path, outside / "data")
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def _every_output_judged_without_the_stored_cases(tmp_path: Path, data: Path) -> None:
    package = tmp_path / "circlearea"
    shutil.copytree(FIXTURES / "circlearea", package)
    assert pipeline(data, "ingest", str(package)).returncode == 0
    validator = package / "output_validators" / "relerror" / "validate.py"
    cases = data / "tables" / "cases" / "circlearea.parquet"
    assert cases.is_file()
    validator.write_text(validator.read_text().replace(
        'tokens = sys.stdin.read().split()\n',
        'tokens = sys.stdin.read().split()\n'
        f'try:\n    open({str(cases)!r}, "rb").read(1)\n    seen = True\n'
        'except OSError:\n    seen = False\n'))
    validator.write_text(validator.read_text().replace(
        'judge("correct", 42)', 'judge("saw the stored cases", 43) if seen else '
        'judge("correct", 42)'))
    assert pipeline(data, "ingest", str(package)).returncode == 0
    done = pipeline(data, "run", "--problem", "circlearea", "--timeout", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "saw the stored cases" not in " ".join(table(data, "results")["message"]
                                                   .drop_nulls().to_list())


def test_a_run_over_part_of_the_package_does_not_hold_expectations(tmp_path, build_dir):
    _, data = registered(tmp_path, "circlearea", build_dir)
    done = pipeline(data, "run", "--problem", "circlearea", "--group", "secret",
                    "--timeout", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "expectations not held: the run covers 3 of the package's 4 test cases" \
        in done.stdout
    assert not (data / "tables" / "expectations").exists() or \
        table(data, "expectations").is_empty()


def test_one_submission_can_be_run_alone_and_an_unknown_one_is_named(tmp_path, build_dir):
    _, data = registered(tmp_path, "hypotenuse", build_dir)
    done = pipeline(data, "run", "--problem", "hypotenuse", "--solver", "accepted/hypot.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(table(data, "results")["solver"]) == {"accepted/hypot.py"}
    unknown = pipeline(data, "run", "--problem", "hypotenuse", "--solver", "accepted/nope.py")
    assert unknown.returncode == 2
    assert "has no solver 'accepted/nope.py'" in unknown.stderr
    assert "wrong_answer/few_digits.py" in unknown.stderr


def test_an_accepted_answer_written_differently_is_no_mismatch_and_the_report_lists_all(
        tmp_path, package_run):
    """circlearea's accepted/area.py prints 3.141592654e+00 where the answer file says
    3.141592653589793: its custom validator accepts it, so it is no finding."""
    run = package_run("circlearea")
    data = run.data
    assert run.done.returncode == 0, run.done.stdout + run.done.stderr
    mismatches = pipeline(data, "mismatches")
    assert mismatches.returncode == 0, mismatches.stderr
    assert "circlearea (size: input bytes): 0 findings" in mismatches.stdout
    assert "wrong_answer/pi_is_three.py (known wrong)" in mismatches.stdout
    report = pipeline(data, "report", "--out", str(tmp_path / "r.html"))
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "r.html").read_text()
    section = html[html.index('id="submissions"'):]
    section = section[:section.index("</table>")]
    for submission in submission_names(data, "circlearea"):
        assert f"<td>{submission}</td>" in section
    assert "<td>wrong_answer</td><td>WA</td>" in section


def test_the_nightly_fails_when_a_registered_package_disagrees(tmp_path, build_dir):
    package, data = registered(tmp_path, "circlearea", build_dir)
    config = tmp_path / "nightly.toml"
    config.write_text('seed = 1\nproblems = ["circlearea"]\n')
    good = pipeline(data, "nightly", "--config", str(config))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "5 of 5 submissions got what they expect" in good.stdout
    (package / "submissions" / "wrong_answer" / "pi_is_three.py").rename(
        package / "submissions" / "accepted" / "pi_is_three.py")
    assert pipeline(data, "ingest", str(package)).returncode == 0
    bad = pipeline(data, "nightly", "--config", str(config))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "! circlearea/accepted/pi_is_three.py: expected accepted, got WA" in bad.stdout


def test_a_package_without_an_accepted_submission_is_judged_at_the_time_limit_it_gives(
        tmp_path):
    """As BAPCtools' hellounix (run_time_error/ submissions only, limits.time_limit 10): with a
    time limit given, a package needs no accepted submission and the others are judged at it;
    with neither (nothing to derive the limit from) it is refused, naming problem.yaml, the
    rule and what to add."""
    yaml_text = "problem_format_version: 2025-09\nname: No Accepted\n"
    package = tiny_kattis(tmp_path / "noaccepted", {
        "problem.yaml": yaml_text,
        "submissions/wrong_answer/off.py": "print(sum(map(int, input().split())) + 1)\n",
        "submissions/run_time_error/crash.py": "raise SystemExit(3)\n"})
    shutil.rmtree(package / "submissions" / "accepted")
    data = tmp_path / "data"
    refused = pipeline(data, "ingest", str(package))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "noaccepted: problem.yaml: rule missing-accepted: the package gives no time limit " \
        "and submissions/accepted/ holds no submission to derive one from: add an accepted " \
        "submission or give the time limit (limits.time_limit)" in refused.stdout, refused.stdout
    (package / "problem.yaml").write_text(yaml_text + "limits:\n  time_limit: 2\n")
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "noaccepted: registered 2025-09 package" in done.stdout
    run = pipeline(data, "run", "--problem", "noaccepted")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "time limit 2 s: the package's time limit of 2 s" in run.stdout, run.stdout
    held = table(data, "expectations")
    assert sorted(zip(held["submission"], held["got"], held["status"])) == [
        ("run_time_error/crash.py", "RE", "agree"), ("wrong_answer/off.py", "WA", "agree")]


@pytest.mark.parametrize("data_files",
                         [{}, {"data/sample/.gitkeep": "", "data/secret/.gitkeep": ""}],
                         ids=["no-data-folder", "empty-data-folders"])
def test_a_package_without_test_data_registers_and_has_nothing_to_run(tmp_path, data_files):
    """As BAPCtools' testproblemconfig: a package with no test case registers with a note
    saying so, and `pipeline run` (and the nightly) says there is nothing to run, makes no run
    and exits 0 (`bt run` skips such a package with a warning); its submissions are never held
    to their folders on no cases."""
    package = write_tree(tmp_path / "nodata", {
        "problem.yaml": "problem_format_version: 2025-09\nname: No Data\n",
        "submissions/accepted/sum.py": "print(sum(map(int, input().split())))\n",
        "submissions/time_limit_exceeded/spin.py": "while True:\n    pass\n", **data_files})
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stdout + done.stderr
    why = "no data/ folder" if not data_files else \
        "no .in file with its .ans in data/sample or data/secret"
    assert f"nodata: note: the package has no test cases ({why}): there is nothing to run" \
        in done.stdout, done.stdout
    said = "nodata: nothing to run: the package has no test cases (BAPCtools' bt run skips " \
        "such a package too)"
    run = pipeline(data, "run", "--problem", "nodata")
    assert (run.returncode, run.stdout.strip()) == (0, said), run.stdout + run.stderr
    config = tmp_path / "nightly.toml"
    config.write_text('seed = 1\nproblems = ["nodata"]\n')
    night = pipeline(data, "nightly", "--config", str(config))
    assert night.returncode == 0, night.stdout + night.stderr
    assert said in night.stdout.splitlines(), night.stdout
    assert not (data / "tables" / "runs").exists() or table(data, "runs").height == 0


def test_a_package_runs_the_same_on_a_dask_cluster(tmp_path, build_dir):
    """`--executor dask` with no scheduler starts a real local cluster (scheduler and workers
    on loopback); the workers judge by the package's rules as the local pool does. Dask's
    default HTTP port (8787) taken by another program costs no warning: the cluster's HTTP
    server takes a free loopback port."""
    import contextlib
    import socket

    _, data = registered(tmp_path, "hypotenuse", build_dir)
    with socket.socket() as taken:
        with contextlib.suppress(OSError):  # (already taken by another program: as well)
            taken.bind(("127.0.0.1", 8787))
            taken.listen()
        done = pipeline(data, "run", "--problem", "hypotenuse", "--executor", "dask",
                        "--jobs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already in use" not in done.stderr and "Warning" not in done.stderr, done.stderr
    held = table(data, "expectations")
    assert held.height == 6 and held["status"].to_list() == ["agree"] * 6


def test_fail_fast_on_a_dask_cluster_stops_each_submission_where_the_local_pool_does(
        tmp_path, build_dir):
    """`--fail-fast` on a local two-worker Dask cluster: a submission run one case at a time
    goes to a worker several cases at once, the worker stopping it at its first failure
    (judged there, by the package's rules) and handing the rest back; every case gets the
    verdict the local pool gives it, one at a time: run to that failure, then `SKIP`."""
    seen = {}
    for executor in ("local", "dask"):
        _, data = registered(tmp_path / executor, "hypotenuse", build_dir)
        done = pipeline(data, "run", "--problem", "hypotenuse", "--fail-fast", "--executor",
                        executor, "--jobs", "2")
        assert done.returncode in (0, 1), done.stdout + done.stderr
        frame = table(data, "results")
        seen[executor] = {(row["solver"], row["case_id"]): (
            row["verdict"], row["error"] if row["verdict"] == "SKIP" else None,
            row["wall_ms"] is None) for row in frame.iter_rows(named=True)}
    assert seen["dask"] == seen["local"]
    verdicts = {solver: sorted(verdict for (name, _), (verdict, _, _) in seen["dask"].items()
                               if name == solver) for solver, _ in seen["dask"]}
    # few_digits passes the smaller cases it runs first, fails once and is stopped there
    assert verdicts["wrong_answer/few_digits.py"] == ["AC", "AC", "AC", "SKIP", "WA"]
    for solver in ("rejected/overflow.c", "run_time_error/abort_odd.cpp",
                   "time_limit_exceeded/spin_big.c"):
        assert len(set(verdicts[solver]) - {"SKIP"}) == 1 and "SKIP" in verdicts[solver]
    assert all(never_started for verdict, _, never_started in seen["dask"].values()
               if verdict == "SKIP")


def test_an_interrupted_package_run_resumes_and_holds_expectations_over_all_of_it(tmp_path):
    """hypotenuse's cases take milliseconds but for a few: spin_big.c spins on its largest
    case, and spin_all.c (added here) on every case, until they are stopped at the limit (on
    the largest case at the 1.5 s high end; the runs to the high end go first). Ctrl-C once
    results are stored and a program spins keeps the results so far; the resumed run judges
    the rest and holds the expectations over both parts."""
    import signal
    import time

    package, data = tmp_path / "hypotenuse", tmp_path / "data"
    shutil.copytree(FIXTURES / "hypotenuse", package)
    (package / "submissions" / "time_limit_exceeded" / "spin_all.c").write_text(
        "int main(void) { volatile unsigned long long x = 0; for (;;) x++; }\n")
    assert pipeline(data, "ingest", str(package)).returncode == 0
    started = subprocess.Popen([sys.executable, "-m", "pipeline", "--data-dir", str(data), "run",
                                "--problem", "hypotenuse", "--jobs", "1"], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    runs, stored = data / "tables" / "runs", data / "tables" / "results"
    deadline = time.monotonic() + 120
    while not (runs.is_dir() and any(runs.glob("*.parquet"))):
        assert started.poll() is None and time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)
    # Ctrl-C once results are stored and a program of the run has spun for half a second
    # (spin_all.c on one of its cases: every program but the two spinners is done in
    # milliseconds), however loaded the machine
    while not (stored.is_dir() and any(stored.rglob("*.parquet")) and any(
            cpu_seconds_of(pid) > 0.5 for pid in descendants_of(started.pid)
            if comm_of(pid) != comm_of(started.pid))):
        assert started.poll() is None and time.monotonic() < deadline, "nothing spun"
        time.sleep(0.05)
    workers = descendants_of(started.pid)
    started.send_signal(signal.SIGINT)
    assert started.wait(timeout=60) == 130
    # the workers' scratch folders (the judged cases' files among them) went with them
    left = [path for pid in workers for base in (Path("/dev/shm"), Path(tempfile.gettempdir()))
            for path in base.glob(f"{scratch_prefix(pid)}*")]
    assert left == []
    [run_id] = pl.read_parquet(runs / "*.parquet")["run_id"].to_list()
    kept = table(data, "results").height
    assert 0 < kept < 35
    resumed = pipeline(data, "run", "--problem", "hypotenuse", "--resume", run_id)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    results = table(data, "results")
    assert results.height == 35 and results.unique(["case_id", "solver"]).height == 35
    held = table(data, "expectations")
    assert held["status"].to_list() == ["agree"] * 7, held


def comm_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def cpu_seconds_of(pid: int) -> float:
    """The CPU time (user and system) process `pid` has used so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def program(folder: Path, name: str, code: str) -> str:
    """An executable Python script `folder/name`; returns `name=PATH` for `--external`."""
    path = folder / name
    path.write_text(f"#!{sys.executable}\n{code}")
    path.chmod(0o755)
    return f"{path.stem}={path}"


def test_an_external_program_is_judged_by_the_packages_own_validator(tmp_path, build_dir):
    """`--external` against a package: judged as its submissions are (here circlearea's
    relative-error validator, so an answer printed another way is still right, and the
    guess package's interactor, which talks to the program)."""
    _, data = registered(tmp_path, "circlearea", build_dir)
    fixed = program(tmp_path, "fixed.py",  # e-notation, not the .ans files' text
                    "import math\nr = int(input())\nprint(f'{math.pi * r * r:.12e}')\n")
    three = program(tmp_path, "three.py", "r = int(input())\nprint(3 * r * r)\n")
    done = pipeline(data, "run", "--problem", "circlearea", "--solver", "fixed",
                    "--solver", "three", "--external", fixed, "--external", three,
                    "--sandbox", "off")  # (the interpreter lives outside the system folders)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    results = table(data, "results")
    cases = pl.read_parquet(data / "tables" / "cases" / "circlearea.parquet")
    printed = {f"{math.pi * int(text) ** 2:.12e}" for text in cases["input"]}
    assert not printed & {a.strip() for a in cases["expected"] if a}  # never token-equal
    got = results.filter(pl.col("solver") == "fixed")
    assert got["verdict"].to_list() == ["AC"] * cases.height, got.select("verdict", "error")
    wrong = results.filter(pl.col("solver") == "three")
    assert "WA" in wrong["verdict"].to_list()
    assert wrong.filter(pl.col("verdict") == "WA")["message"].is_not_null().all()

    _, data = registered(tmp_path / "guess", "guess", build_dir)
    halving = program(tmp_path, "halving.py",
                      "n = int(input())\nlo, hi = 1, n\nwhile True:\n    mid = (lo + hi) // 2\n"
                      "    print(mid, flush=True)\n    reply = input()\n"
                      "    if reply == 'correct':\n        break\n"
                      "    lo, hi = (mid + 1, hi) if reply == 'higher' else (lo, mid - 1)\n")
    done = pipeline(data, "run", "--problem", "guess", "--solver", "halving",
                    "--external", halving, "--sandbox", "off")
    assert done.returncode == 0, done.stdout + done.stderr
    got = table(data, "results").filter(pl.col("solver") == "halving")
    assert got.height >= 1 and got["verdict"].to_list() == ["AC"] * got.height


def _traced(trace: Path, seconds: float, code: str) -> str:
    """A Python submission that notes each run of it in `trace`, spends `seconds` of CPU
    time, then runs `code`."""
    return (f"import time\nwith open({str(trace)!r}, 'a') as log:\n    log.write('run\\n')\n"
            f"while time.process_time() < {seconds}:\n    pass\n{code}")


def test_every_submission_is_judged_in_the_pass_that_derives_the_limit(tmp_path):
    """No core waits for the accepted runs that derive the limit: the other submissions are
    judged beside them, at the least limit deriving can give (the 0.1 s resolution here).
    A run that ended of itself there holds at the derived limit and is not run again (the
    wrong answer: once per case); one stopped there is run again at the derived limit, and
    its verdict is the derived limit's (AC in 0.4 s under 0.6 s, though it was stopped at
    0.2 s first). But its run on the largest case, which runs to the high end (it may time
    out), started under the highest limit deriving can give and was given the derived
    limit's caps once known: it holds there and runs once (`test_early_runs`).

    How many times a run is repeated is not asserted exactly: a run that waited long for a
    core on a loaded machine is run again rather than held (its wall time is over the
    derived limit's cap), which costs time but never a verdict; the runs that must happen
    (each submission on each case; the stopped ones again) are."""
    traces = {name: tmp_path / f"{name}.log" for name in ("accepted", "wrong", "slow")}
    answer = "print(sum(map(int, input().split())))\n"
    package = tiny_kattis(tmp_path / "derive", {
        "problem.yaml": "problem_format_version: 2025-09\ntype: pass-fail\nname: Derive\n"
                        "uuid: 8ee7605a-0000-4000-8000-000000000001\n"
                        "limits:\n  time_resolution: 0.1\n",
        "submissions/accepted/sum.py": _traced(traces["accepted"], 0.25, answer),
        "submissions/wrong_answer/off.py": _traced(traces["wrong"], 0.0, "print(-1)\n"),
        "submissions/slow/slow.py": _traced(traces["slow"], 0.4, answer),
        "submissions/submissions.yaml": "slow:\n  permitted: [AC, TLE]\n",
    })
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(package)).returncode == 0
    done = pipeline(data, "run", "--problem", "derive", "--sandbox", "off")
    assert done.returncode == 0, done.stdout + done.stderr
    limit = json.loads((data / "problems" / "derive" / "package.json").read_text())
    assert 0.4 < limit["time_limit"]["time_s"] <= 1.0, limit
    cases = pl.read_parquet(data / "tables" / "cases" / "derive.parquet").height
    runs = {name: trace.read_text().splitlines() for name, trace in traces.items()}
    assert runs["accepted"] == ["run"] * cases  # the derivation's runs are never repeated
    assert set(runs["wrong"]) == {"run"} and cases <= len(runs["wrong"]) <= 2 * cases
    assert set(runs["slow"]) == {"run"} and 2 * cases - 1 <= len(runs["slow"]) <= 2 * cases
    results = table(data, "results")
    verdicts = dict(results.group_by("solver").agg(pl.col("verdict").unique()).iter_rows())
    assert verdicts == {"accepted/sum.py": ["AC"], "wrong_answer/off.py": ["WA"],
                        "slow/slow.py": ["AC"]}
    assert results.group_by("solver").len()["len"].to_list() == [cases] * 3


_BUILD_PROBE = """
import json, sys, threading
from pathlib import Path
from pipeline.problems import add_problem_dirs, get_problem
from pipeline.packages.judge import build_one

data, start = Path(sys.argv[1]), sys.argv[2] != "none"
add_problem_dirs([data / "problems"])
problem = get_problem("circlearea")
package = problem.load()
names = tuple(program.name for program in package.submissions)
if start:
    problem.package_judge.start_building(names)
    if sys.argv[2] == "twice":  # at once (a contest's start, then its problem's run), those
        # still compiling (a build that ends at once, e.g. one that cannot start, may be done)
        problem.package_judge.start_building(tuple(n for n in names if n.endswith((".c", ".cpp"))))
        print(sum(t.name.startswith("builds of") for t in threading.enumerate()))
    for thread in threading.enumerate():
        if thread.name.startswith("builds of"):
            thread.join(timeout=300)
found = {name: build_one(package, package.submission(name), problem.build_cache)
         for name in names}
print(json.dumps({name: [build.ok, build.cached] for name, build in found.items()}))
"""


def test_a_run_builds_the_submissions_it_will_run_beside_its_start_into_the_cache_its_workers_read(
        tmp_path):
    """What `pipeline run` starts as it starts (the local pool's workers share this machine's
    build cache): every submission, C and C++ compiled, is in the cache a worker's build then
    finds; without it the first build is the worker's own. Started again while its builds are
    under way (a contest starts them before its problems' runs), nothing more starts."""
    found, threads = {}, {}
    for start in ("start", "none", "twice"):
        _, data = registered(tmp_path / start, "circlearea")
        done = subprocess.run([sys.executable, "-c", _BUILD_PROBE, str(data), start],
                              capture_output=True, text=True, timeout=600, cwd=REPO)
        assert done.returncode == 0, done.stderr
        *threads[start], last = done.stdout.splitlines()
        found[start] = json.loads(last)
    assert {"accepted/area.c", "time_limit_exceeded/slow_large.cpp"} <= set(found["start"])
    assert all(built and cached for built, cached in found["start"].values()), found
    assert not any(cached for _, cached in found["none"].values()), found
    # started twice at once, each is built once: the second start leaves the first's builds
    assert threads["twice"] == ["1"] and found["twice"] == found["start"], (threads, found)


def test_a_submission_times_the_limit_only_on_the_groups_its_rules_name(tmp_path):
    """`tle: {sample: {use_for_time_limit: lower}, secret: {use_for_time_limit: upper}}` (a
    folder's key, as BAPCtools' testexpectations writes it): its sample runs derive the limit
    with the accepted one's (0.3 s x 2 -> 1 s at a 0.5 s resolution), its secret ones, which
    never end, are not run at the probe limit (they would make it 20 s) but at the derived
    limit, where they are the TLE its secret rule requires."""
    trace = tmp_path / "tle.log"
    spin = (f"import sys, time\nwith open({str(trace)!r}, 'a') as log:\n"
            "    log.write(sys.argv[0] + '\\n')\n"
            "a, b = map(int, input().split())\nlast = 0.3 if a == 1 else 1e9\n"
            "while time.process_time() < last:\n    pass\nprint(a + b)\n")
    package = tiny_kattis(tmp_path / "bygroup", {
        "problem.yaml": "problem_format_version: 2025-09\ntype: pass-fail\nname: By Group\n"
                        "uuid: 8ee7605a-0000-4000-8000-000000000003\n"
                        "limits:\n  time_resolution: 0.5\n",
        "submissions/tle/spin.py": spin,
        "submissions/submissions.yaml": "tle:\n  sample:\n    use_for_time_limit: lower\n"
                                        "  secret:\n    use_for_time_limit: upper\n",
    })
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(package)).returncode == 0
    done = pipeline(data, "run", "--problem", "bygroup", "--sandbox", "off")
    assert done.returncode == 0, done.stdout + done.stderr
    limit = json.loads((data / "problems" / "bygroup" / "package.json").read_text())
    assert limit["time_limit"]["time_s"] == 1.0, limit
    assert "tle/spin.py on sample/1" in limit["time_limit"]["how"], limit
    verdicts = dict(table(data, "results").filter(pl.col("solver") == "tle/spin.py")
                    .group_by("verdict").len().iter_rows())
    assert verdicts == {"AC": 1, "TLE": 2}, verdicts
    assert len(trace.read_text().splitlines()) == 3  # each case once: none at the probe
    assert " NO" not in done.stdout, done.stdout


def test_a_submission_that_cannot_start_as_its_folder_permits_is_a_note_not_a_failure(tmp_path):
    """A submission whose every case ends before its first line (an interpreter that cannot
    import what it names) but whose folder permits that verdict agrees: the run says so in a
    note and exits 0; one whose folder does not is a failure, exit 1."""
    answer = "print(sum(map(int, input().split())))\n"
    package = tiny_kattis(tmp_path / "nostart", {
        "submissions/accepted/sum.py": answer,
        "submissions/run_time_error/missing.py": "import gamebench_no_such_module\n",
    })
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(package)).returncode == 0
    done = pipeline(data, "run", "--problem", "nostart", "--sandbox", "off")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "run_time_error/missing.py could not start" in done.stdout
    assert ("note: run_time_error/missing.py could not start, which its folder permits"
            in done.stderr)
    (package / "submissions" / "accepted" / "missing.py").write_text(
        "import gamebench_no_such_module\n")
    assert pipeline(data, "ingest", str(package)).returncode == 0
    failed = pipeline(data, "run", "--problem", "nostart", "--sandbox", "off")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "accepted/missing.py could not start: its results are no verdict" in failed.stderr
