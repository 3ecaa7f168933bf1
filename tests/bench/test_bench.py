"""The bench sections run end to end on tiny inputs and write well-formed Parquet rows.

No timing is asserted (timings depend on the machine and its load): only that every section
function runs, records rows of its section with the documented columns, and that the rows
land in `<out_dir>/<bench_id>.parquet`.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import polars as pl
import pytest

from benchmarks import growth, ingest, maxtests, nightly, throughput, workspace
from benchmarks.common import (
    ROW_COLUMNS,
    close_launcher,
    fit_exponent,
    make_context,
    median,
    row_schema,
    spawn_timed,
    write_rows,
)

PROBLEM = "bipartitebattle"  # pure Python stages and a tiny C++ program: quick to run


@pytest.mark.slow
def test_sections_write_rows_with_the_bench_columns(tmp_path: Path) -> None:
    ctx = make_context(tmp_path / "work", tmp_path / "data" / "bench", quick=True)
    binaries = workspace.binaries(ctx, [PROBLEM], tmp_path / "data")
    assert PROBLEM in binaries

    # max-tests, on a tiny recipe instead of the max ones
    case_path = ctx.work_dir / "tiny.in"
    case_path.parent.mkdir(parents=True)
    problem_text = "2\n1 2\n3 1\n"
    case_path.write_text(problem_text)
    test = workspace.MaxTest(PROBLEM, "tiny", 2, case_path, len(problem_text))
    summaries = maxtests.run_max_tests(ctx, [test], binaries, repeats=1)
    assert summaries[0]["agree"] is True

    growth.run_growth(ctx, [PROBLEM], {PROBLEM: [10, 100]}, repeats=1, cap_s=0.5)

    small = ingest.small_corpus(ctx, files=20)
    assert small.files == 20
    ingest.run_ingest(ctx, [(small, 1, True)])

    corpus = throughput.run_corpus(ctx, PROBLEM, cases=12, external_cases=4)
    throughput.run_throughput(ctx, corpus, binaries[PROBLEM], repeats=1)
    close_launcher()

    assert ctx.failures == []
    path = write_rows(ctx)
    assert path == tmp_path / "data" / "bench" / f"{ctx.bench_id}.parquet"
    frame = pl.read_parquet(path)
    assert tuple(frame.columns) == ROW_COLUMNS
    assert dict(frame.schema) == row_schema()
    assert set(frame["section"]) >= {"max-tests", "max-tests/limit", "max-tests/goal", "growth",
                                     "ingest", "throughput"}
    assert frame.height == len(ctx.rows)
    assert frame["bench_id"].unique().to_list() == [ctx.bench_id]
    assert frame["metric"].null_count() == 0 and frame["unit"].null_count() == 0
    assert frame["measured_at"].null_count() == 0
    wall = frame.filter((pl.col("section") == "max-tests") & (pl.col("metric") == "wall_s"))
    assert set(wall["solver"]) == {"fast", "cpp", "floor"}
    phases = frame.filter(pl.col("section") == "max-tests/phases")
    assert {f"{name}_s_median" for name in maxtests.PHASES} <= set(phases["metric"])
    counted = frame.filter(pl.col("metric") == "tests_meeting_goal")["value"].to_list()
    assert counted == [float(summaries[0]["goal_met"])]
    assert set(frame.filter(pl.col("section") == "throughput")["solver"]) >= {
        "fast", "cpp", "shell-loop"}


def test_spawn_timed_reports_the_child_alone(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    run = spawn_timed(["bash", "-c", "pwd; echo oops >&2; exit 3"], cwd=tmp_path, stdout=out)
    close_launcher()
    assert run.exit_code == 3
    assert out.read_text().strip() == str(tmp_path)
    assert run.stderr.strip() == "oops"
    assert 0 < run.peak_rss_kb < 100 * 1024  # bash, not the size of the test process


def test_spawn_timed_keeps_all_of_stderr_in_the_file_it_is_given(tmp_path: Path) -> None:
    """bt writes its verdict lines to stderr: all of them must be read, not a tail."""
    err = tmp_path / "err.txt"
    run = spawn_timed(["bash", "-c", "for i in $(seq 1000); do echo line$i >&2; done"],
                      stderr=err)
    close_launcher()
    lines = err.read_text().splitlines()
    assert lines[0] == "line1" and lines[-1] == "line1000" and len(lines) == 1000
    assert run.stderr.endswith("line1000\n") and len(run.stderr) <= 2000


def test_fit_and_median() -> None:
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0]) == 2.5
    assert fit_exponent([10, 100, 1000], [1.0, 100.0, 10000.0]) == pytest.approx(2.0)
    assert math.isnan(fit_exponent([10], [1.0]))


def test_claim_models() -> None:
    assert growth.claim_model("O(N log^2 N)")[0] == "n log^2 n"
    assert growth.claim_model("O(P log P), vectorised")[0] == "n log n"
    assert growth.claim_model("O(total length + sort)")[0] == "n log n"
    assert growth.claim_model("O(N) after parsing")[0] == "n"
    assert growth.claim_model("O(n + m + 2048 * queries)")[0] == "n"
    assert growth.claim_model("O(N^2)")[0] == "n^2"


@pytest.mark.slow
def test_nightly_section_times_two_nights_on_a_fresh_folder(tmp_path: Path) -> None:
    config = tmp_path / "nightly.toml"
    config.write_text(f'seed = 3\nproblems = ["{PROBLEM}"]\n[corpus.{PROBLEM}]\ntiny = 6\n')
    ctx = make_context(tmp_path / "work", tmp_path / "data" / "bench", quick=True)
    results = nightly.run_nightly(ctx, nights=2, config=config)
    close_launcher()
    assert ctx.failures == []
    assert [r["night"] for r in results] == [1, 2]
    assert all(r["exit_code"] == 0 and r["wall_s"] > 0 for r in results)
    assert (ctx.work_dir / "nightly-data" / "reports").is_dir()
    walls = [row for row in ctx.rows
             if row["section"] == "nightly" and row["metric"] == "wall_s"]
    assert [row["repeat"] for row in walls] == [1, 2]


def test_peers_reads_each_submissions_verdict_from_a_real_package_run(tmp_path: Path) -> None:
    """The peers section compares per-submission verdicts: the ones it reads from a real
    `pipeline run` of a fixture package are the package's own expectation table."""
    from benchmarks import peers

    package = peers.FIXTURES / "hypotenuse"
    ingest_run, timed = peers.run_pipeline(package, tmp_path)
    close_launcher()
    assert ingest_run.exit_code == 0 and timed.run.exit_code == 0
    submissions = sorted(str(p.relative_to(package / "submissions"))
                         for p in (package / "submissions").glob("*/*") if p.is_file())
    assert sorted(timed.verdicts) == submissions
    # the limit it judged at, as the summary says it: the one the package records
    recorded = json.loads((tmp_path / "pipeline-data" / "problems" / "hypotenuse" /
                           "package.json").read_text()).get("time_limit")
    given = re.search(r"time_limit:\s*([0-9.]+)", (package / "problem.yaml").read_text())
    assert timed.time_limit_s == (float(given.group(1)) if given else recorded["time_s"])
    expected = {"accepted": "AC", "wrong_answer": "WA", "time_limit_exceeded": "TLE",
                "run_time_error": "RE"}
    for name, verdict in timed.verdicts.items():
        folder = name.split("/")[0]
        if folder in expected:
            assert verdict == expected[folder], name


def test_peers_bt_every_case_judges_as_bt_run_does(tmp_path: Path) -> None:
    """`--bt-all` runs `bt run -aa` (every case of every submission, the pipeline's work):
    each submission of a fixture package gets the verdict its folder names, read from bt's
    output as in the default mode. Skipped without BAPCtools' bt (`BAPCTOOLS_BT` or PATH)."""
    import shutil

    from benchmarks import peers

    bt = os.environ.get("BAPCTOOLS_BT") or shutil.which("bt")
    if not bt:
        pytest.skip("BAPCtools' bt is not installed (BAPCTOOLS_BT names it)")
    package = peers.FIXTURES / "hypotenuse"
    every = peers.run_bt(Path(bt), package, tmp_path, every_case=True)
    close_launcher()
    # (bt exits 1 here for a judge message submissions.yaml asks for: its verdicts stand)
    expected = {"accepted": "AC", "wrong_answer": "WA", "time_limit_exceeded": "TLE",
                "run_time_error": "RE"}
    submissions = sorted(str(p.relative_to(package / "submissions"))
                         for p in (package / "submissions").glob("*/*") if p.is_file())
    assert sorted(every.verdicts) == submissions
    for name, verdict in every.verdicts.items():
        folder = name.split("/")[0]
        if folder in expected:
            assert verdict == expected[folder], name


def test_peers_pipeline_side_reads_the_verdicts_the_limit_and_the_cpu_of_its_children(
        tmp_path: Path) -> None:
    """The pipeline's side of a peers pair: a real ingest and run of a fixture package, each
    submission's verdict and the time limit read from the run's output, and its CPU time that
    of the command and every process it waited for (its workers and the programs they ran)."""
    from benchmarks import peers

    package = peers.FIXTURES / "hypotenuse"
    ingest_run, timed = peers.run_pipeline(package, tmp_path)
    close_launcher()
    assert ingest_run.exit_code == 0 and timed.run.exit_code == 0
    assert timed.verdicts["accepted/hypot.py"] == "AC" and timed.time_limit_s is not None
    assert timed.run.cpu_s > 0.3, timed.run


def test_peers_holds_a_fail_fast_run_of_a_real_package_to_the_floor_it_recorded(
        tmp_path: Path) -> None:
    """With --fail-fast, the pipeline's side of a peers pair reads the package's floor from
    what its real run recorded (every stored run's CPU time and the submissions' builds), and
    `against_floor` records the run against it and the cores' busy share (bounded by the
    CPU time over cores x chain where the floor is the chain), with both goals.
    Without --fail-fast (every case of every submission: not the chains the floor counts)
    there is no floor."""
    from benchmarks import peers

    package = peers.FIXTURES / "hypotenuse"  # C and C++ submissions: builds in the floor
    _, timed = peers.run_pipeline(package, tmp_path, fail_fast=True)
    close_launcher()
    assert timed.run.exit_code == 0 and timed.floor is not None
    data = tmp_path / "pipeline-data"
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    built = [json.loads(p.read_text()) for p in (data / "build").glob("**/builds/*/result.json")]
    compiled = [b for b in built if "cpu_s" in b and "/submissions/" in b["sources"][0]]
    assert compiled, built
    floor = timed.floor
    assert floor.runs == results.height
    assert math.isclose(floor.cpu_s, results["cpu_ms"].fill_null(0).sum() / 1000 +
                        sum(b["cpu_s"] for b in compiled), rel_tol=1e-6)
    assert floor.chain_s >= results["wall_ms"].max() / 1000
    ctx = make_context(tmp_path / "work", tmp_path / "bench", quick=True)
    peers.against_floor(ctx, "hypotenuse", "bt run", [timed.run.wall_s], [floor])
    recorded = {row["metric"]: row["value"] for row in ctx.rows if row["section"] == "peers"}
    cores = os.cpu_count() or 1
    assert math.isclose(recorded["ratio_floor"], timed.run.wall_s / floor.floor_s(cores))
    assert math.isclose(recorded["busy_share"], floor.cpu_s / (timed.run.wall_s * cores))
    assert math.isclose(recorded["busy_bound"], min(1.0, floor.cpu_s / (cores * floor.chain_s)))
    goals = {row["section"] for row in ctx.rows if row["metric"] == "goal_met"}
    assert goals == {"peers/floor", "peers/busy"}
    _, every_case = peers.run_pipeline(package, tmp_path)
    close_launcher()
    assert every_case.floor is None


def test_peers_runs_bt_at_the_pipelines_limit_when_asked(tmp_path: Path) -> None:
    """A package the two tools judge at other limits is run by `bt run -t LIMIT` too: bt then
    says it judges at that limit. Skipped without BAPCtools' bt."""
    import shutil

    from benchmarks import peers

    bt = os.environ.get("BAPCTOOLS_BT") or shutil.which("bt")
    if not bt:
        pytest.skip("BAPCtools' bt is not installed (BAPCTOOLS_BT names it)")
    at_three = peers.run_bt(Path(bt), peers.FIXTURES / "hardsum", tmp_path, time_limit_s=3)
    close_launcher()
    assert at_three.time_limit_s == 3.0 and at_three.verdicts


def test_peers_times_bt_generate_for_a_package_with_generators(tmp_path: Path) -> None:
    """The goal with ingest holds the pipeline's ingest + run to bt's generate + run: bt's
    `generate` (which its `run` would do first) is timed for a package with generators.yaml,
    and not run for one without. Skipped without BAPCtools' bt."""
    import shutil

    from benchmarks import peers

    bt = os.environ.get("BAPCTOOLS_BT") or shutil.which("bt")
    if not bt:
        pytest.skip("BAPCtools' bt is not installed (BAPCTOOLS_BT names it)")
    generated = peers.run_bt(Path(bt), peers.FIXTURES / "gensum", tmp_path / "gensum")
    plain = peers.run_bt(Path(bt), peers.FIXTURES / "hardsum", tmp_path / "hardsum")
    close_launcher()
    # (bt generate exits 1 on gensum: one of its generated cases fails, on purpose)
    assert generated.made is not None and "cases generated" in generated.made.stderr
    assert 0 < generated.made.wall_s and generated.verdicts
    assert plain.made is None and plain.verdicts


def test_peers_reads_the_time_limit_each_tool_judged_at() -> None:
    """bt says the limit it runs at before its verdicts (its default where a package gives
    none), the pipeline in its summary: a comparison at other limits is said to be one."""
    from benchmarks import peers

    bt_text = "PROBLEM btte\nBuild submissions: \n\nRun: using timelimit: 1.0s\n\nac.py: AC\n"
    ours = ("run 20261204T152739-743c63: finished, 7 cases, 105 results\n"
            "  tle/sleep.py AC=2 SKIP=4 TLE=1; slowest 10603.5 ms CPU\n"
            "  time limit 7 s: slowest lower-bound run 3.002 s (tle/sleep.py on sample/3)\n")
    assert peers.judged_limit(peers._BT_LIMIT, bt_text) == 1.0
    assert peers.judged_limit(peers._PIPELINE_LIMIT, ours) == 7.0
    assert peers.judged_limit(peers._PIPELINE_LIMIT, "run x: finished, 0 cases\n") is None


def test_peers_reads_bapctools_verdict_lines() -> None:
    from benchmarks import peers

    # bt's own lines: a case's line before its submission's summary, a warning, and a
    # duration of 10 s or more touching the verdict (`{verdict:>3}{duration:6.3f}s`)
    text = ("accepted/hello.py:                 AC 0.021s @ secret/01\n"
            "run_time_error/test-sigfpe.java:          RTE 0.101s @ sample/1\n"
            "time_limit_exceeded/test-sleep.c:         TLE 5.009s @ sample/1\n"
            "time_limit_exceeded/test-slow.c:         TLE14.026s @ sample/1\n"
            "accepted/thore.py: TLE 2.197s @ secret/30      permitted: [AC]\n"
            "accepted/thore.py:     required: [AC], got: [TLE]\n"
            "accepted/thore.py: AC 0.197s @ secret/30\n")
    assert peers.bt_verdicts(text) == {
        "accepted/hello.py": "AC", "run_time_error/test-sigfpe.java": "RE",
        "time_limit_exceeded/test-sleep.c": "TLE", "time_limit_exceeded/test-slow.c": "TLE",
        "accepted/thore.py": "AC"}


@pytest.mark.slow
def test_nightly_section_passes_a_first_night_beside_two_cpu_bound_processes(
        tmp_path: Path) -> None:
    from processkit import alive

    config = tmp_path / "nightly.toml"
    config.write_text(f'seed = 3\nproblems = ["{PROBLEM}"]\n[corpus.{PROBLEM}]\ntiny = 6\n')
    ctx = make_context(tmp_path / "work", tmp_path / "data" / "bench", quick=True)
    result = nightly.run_loaded_nightly(ctx, spinners=2, config=config)
    close_launcher()
    assert ctx.failures == [] and result["exit_code"] == 0
    assert len(result["spinners"]) == 2 and not any(alive(pid) for pid in result["spinners"])
    assert (ctx.work_dir / "nightly-loaded-data" / "reports").is_dir()


def test_peers_reads_rows_of_the_expectations_table_whatever_the_expected_column_holds() -> None:
    """DOMjudge expectations are words with spaces, and a disagreeing row says NO: both are
    read, so a package's every submission is compared."""
    from benchmarks import peers

    # the table as `pipeline run` prints it, one row a line
    text = ("    submission                     expected                                 got  agree\n"  # noqa: E501
            "    accepted/a.c                   accepted                                 AC   yes\n"
            "    mixed/b.c                      @EXPECTED_RESULTS@: CORRECT, NO-OUTPUT   WA   yes\n"
            "    wrong_answer/c.py              wrong_answer                             AC   NO\n"
            "    time_limit_exceeded/d.c        time_limit_exceeded                      TLE  yes "
            "(sensitive to time limit)\n")
    found = {name: got for name, got, _ in peers._PIPELINE_LINE.findall(text)}
    assert found == {"accepted/a.c": "AC", "mixed/b.c": "WA", "wrong_answer/c.py": "AC",
                     "time_limit_exceeded/d.c": "TLE"}


def test_peers_takes_bt_from_bapctools_bt_then_path(tmp_path: Path, monkeypatch) -> None:
    """An installed bt is used as it is: the one BAPCTOOLS_BT names, else the one on PATH; the
    section's own virtualenv is made only when there is neither."""
    from benchmarks import peers

    ctx = make_context(tmp_path / "work", tmp_path / "bench", quick=True)
    named, on_path = tmp_path / "named" / "bt", tmp_path / "bin" / "bt"
    for script in (named, on_path):
        script.parent.mkdir()
        script.write_text("#!/bin/sh\necho 'BAPCtools version 0'\n")
        script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{on_path.parent}:{os.environ['PATH']}")
    monkeypatch.setenv("BAPCTOOLS_BT", str(named))
    assert peers.bapctools(ctx) == named
    monkeypatch.delenv("BAPCTOOLS_BT")
    assert peers.bapctools(ctx) == on_path


def test_peers_picks_packages_by_name_and_by_where_they_come_from(tmp_path: Path) -> None:
    from benchmarks import peers

    snapshot = tmp_path / "test" / "problems"
    for name in ("guess", "hello"):
        (snapshot / name).mkdir(parents=True)
    everything = peers.fixture_packages() + sorted(snapshot.iterdir())
    assert peers.chosen_packages(everything, []) == everything
    both = peers.chosen_packages(everything, ["guess"])
    assert both == [peers.FIXTURES / "guess", snapshot / "guess"]
    assert peers.chosen_packages(everything, ["bapctools/guess", "fixtures/hypotenuse",
                                              "nosuch"]) == [snapshot / "guess",
                                                             peers.FIXTURES / "hypotenuse"]


def test_overhead_section_times_the_contained_path_beside_a_bare_spawn(tmp_path: Path) -> None:
    """The overhead section measures every mechanism on a real tiny program (no timing is
    asserted) and records each one's figures and the goal against bare fork/exec/wait4."""
    import shutil as shell_tools

    from benchmarks import overhead
    from pipeline.programs.launcher import launcher_path

    if launcher_path() is None or shell_tools.which("g++") is None:
        pytest.skip("needs the launcher and g++")
    ctx = make_context(tmp_path / "work", tmp_path / "bench", quick=True)
    medians = overhead.run_overhead(ctx, cases=3, rounds=2)
    assert set(medians) == set(overhead.SHOWN) and all(v > 0 for v in medians.values())
    rows = [r for r in ctx.rows if r["section"] == "overhead"]
    assert {r["solver"] for r in rows if r["metric"] == "over_bare_ms"} == set(overhead.SHOWN)
    goals = [r for r in rows if r["metric"] == "goal_met"]
    assert len(goals) == 1 and goals[0]["solver"] == overhead.CONTAINED


def test_contests_section_reads_a_real_contest_runs_verdicts_and_its_floor(
        tmp_path: Path) -> None:
    """The contests section's pipeline side on a real two-package contest (fixtures with a C
    submission, so a build is part of the floor): the verdicts it reads are the contest
    summary's, the floor's CPU is every stored run's plus the submissions' builds, and each
    package's chain is at least its longest run."""
    import shutil

    from benchmarks import contests, peers

    source = tmp_path / "source"
    for name in ("hypotenuse", "hardsum"):
        shutil.copytree(peers.FIXTURES / name, source / name, symlinks=True)
    (source / "contest.yaml").write_text("id: pair\nname: Pair\n")
    run, verdicts, floor = contests.run_pipeline_contest(source, "pair", tmp_path / "work")
    close_launcher()
    assert run.exit_code in (0, 1), run.stderr  # (1: hardsum's int32.c gets AC on its data)
    submissions = {(name, str(p.relative_to(source / name / "submissions")))
                   for name in ("hypotenuse", "hardsum")
                   for p in (source / name / "submissions").glob("*/*") if p.is_file()}
    assert set(verdicts) == submissions
    results = pl.read_parquet(tmp_path / "work" / "pipeline-data" / "tables" / "results" /
                              "*.parquet")
    assert floor.runs == results.height
    built = [json.loads(p.read_text()) for p in (tmp_path / "work" / "pipeline-data" /
                                                 "build").glob("**/builds/*/result.json")]
    compiled = [b for b in built if "cpu_s" in b and "/submissions/" in b["sources"][0]]
    assert compiled, built  # hypotenuse's C and C++ submissions
    assert math.isclose(floor.cpu_s, results["cpu_ms"].fill_null(0).sum() / 1000 +
                        sum(b["cpu_s"] for b in compiled), rel_tol=1e-6)
    for name, own in floor.per_problem.items():
        longest = results.filter(pl.col("problem") == name)["wall_ms"].max() / 1000
        assert own.chain_s >= longest and own.span_s > 0
    assert floor.floor_s(2) == max(floor.chain_s, floor.cpu_s / 2)
    # the simulation's jobs: every stored run but SKIP, and the builds it could place
    judged = results.filter(pl.col("verdict") != "SKIP")
    heads = [job for job in floor.jobs if not job.after]
    assert len(floor.jobs) >= judged.height and len(heads) >= 1
    assert math.isclose(contests.list_schedule(floor.jobs, 1),
                        sum(job.seconds for job in floor.jobs), rel_tol=1e-9)


def test_list_scheduling_of_jobs_and_chains_by_hand() -> None:
    """A chain A (3 s) then B (2 s), and C, D, E of 1 s each: 8 s of work, a chain of 5 s.
    One worker runs it all, 8 s; two run A beside C, D, E, then B: 5 s, the chain; more
    cannot do better. Three independent jobs of 2 s on two workers: the floor says 3 s
    (6 s / 2), but a job cannot be split: 4 s."""
    from benchmarks.floor import SimJob, chain_tails, list_schedule, schedule_floor

    jobs = [SimJob(3.0), SimJob(2.0, (0,)), SimJob(1.0), SimJob(1.0), SimJob(1.0)]
    assert chain_tails(jobs) == [5.0, 2.0, 1.0, 1.0, 1.0]
    assert [list_schedule(jobs, n) for n in (1, 2, 4, 8)] == [8.0, 5.0, 5.0, 5.0]
    assert [schedule_floor(jobs, n) for n in (1, 2, 4)] == [8.0, 5.0, 5.0]
    # the chain first: taken in the order listed (C, D, E, A), A would start at 1 s: 6 s
    late = [SimJob(1.0), SimJob(1.0), SimJob(1.0), SimJob(3.0), SimJob(2.0, (3,))]
    assert list_schedule(late, 2) == 5.0
    even = [SimJob(2.0), SimJob(2.0), SimJob(2.0)]
    assert schedule_floor(even, 2) == 3.0 and list_schedule(even, 2) == 4.0
    with pytest.raises(ValueError, match="job 0 follows job 1"):
        chain_tails([SimJob(1.0, (1,)), SimJob(1.0)])


def test_contests_reads_bt_verdicts_problem_by_problem() -> None:
    from benchmarks import contests

    text = ("PROBLEM one\nRun: using timelimit: 1.0s\n\naccepted/a.py:   AC 0.017s @ "
            "secret/1\nwrong_answer/b.py:  WA 0.01s @ sample/1\n\nPROBLEM two\n"
            "accepted/a.py:   TLE 2.1s @ secret/5\n")
    assert contests.bt_contest_verdicts(text) == {
        ("one", "accepted/a.py"): "AC", ("one", "wrong_answer/b.py"): "WA",
        ("two", "accepted/a.py"): "TLE"}


def test_startup_section_times_each_commands_start_beside_pythons(tmp_path: Path) -> None:
    """The startup section starts each command as a real process (no timing is asserted) and
    records its figures and the goal; the probe of `pipeline run` reaches the run's body."""
    from benchmarks import startup

    ctx = make_context(tmp_path / "work", tmp_path / "bench", quick=True)
    medians = startup.run_startup(ctx, rounds=1)
    assert set(medians) == set(startup.commands()) and all(v > 0 for v in medians.values())
    rows = [r for r in ctx.rows if r["section"] == "startup"]
    assert {r["solver"] for r in rows if r["metric"] == "cpu_over_python_s"} == set(medians)
    goals = [r for r in rows if r["metric"] == "goal_met"]
    assert len(goals) == 1 and goals[0]["solver"] in medians
