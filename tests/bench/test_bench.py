"""The bench sections run end to end on tiny inputs and write well-formed Parquet rows.

No timing is asserted (timings depend on the machine and its load): only that every section
function runs, records rows of its section with the documented columns, and that the rows
land in `<out_dir>/<bench_id>.parquet`.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from benchmarks import growth, ingest, maxtests, nightly, throughput, workspace
from benchmarks.common import (ROW_COLUMNS, close_launcher, fit_exponent, make_context,
                                   median, row_schema, spawn_timed, write_rows)

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
    expected = {"accepted": "AC", "wrong_answer": "WA", "time_limit_exceeded": "TLE",
                "run_time_error": "RE"}
    for name, verdict in timed.verdicts.items():
        folder = name.split("/")[0]
        if folder in expected:
            assert verdict == expected[folder], name


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
