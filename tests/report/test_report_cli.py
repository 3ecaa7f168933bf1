"""`pipeline slow | mismatches | compare | report` through Typer's CliRunner."""

from __future__ import annotations

from typer.testing import CliRunner

from pipeline.cli import app

runner = CliRunner()


def invoke(data, *args: str):
    return runner.invoke(app, ["--data-dir", str(data), *args], catch_exceptions=False)


def test_slow_command(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    result = invoke(bench.data, "slow", "--top", "3")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:4] == ["problem", "solver", "verdict", "size"]
    assert "editorial" in lines[2] and "arc087e/t/09.in" in lines[2]
    assert len(lines) == 6
    only = invoke(bench.data, "slow", "--solver", "brute", "--problem", "arc087e", "--run", "r1")
    assert only.exit_code == 0
    assert all(" brute " in line for line in only.output.splitlines()[2:-1])
    assert invoke(bench.data, "slow", "--run", "nope").exit_code == 2
    assert invoke(bench.data, "slow", "--problem", "nope").exit_code == 2


def test_mismatches_command(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0, wrong={"fast": 5, "editorial": 2})
    result = invoke(bench.data, "mismatches", "--problem", "arc087e")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.index("size 5 ") < out.index("size 100 ")
    assert "expected (file): Alice" in out and "<- fast" in out
    assert "2 mismatching cases" in out
    assert out.startswith("mismatches in run r1\n")  # the run it read
    none = invoke(bench.data, "mismatches", "--problem", "insq15g")
    assert none.exit_code == 0 and "no finished runs of insq15g" in none.output
    bench.standard_run("r2", 10)
    clean = invoke(bench.data, "mismatches")
    assert clean.exit_code == 0
    assert clean.output.startswith("no mismatches in run r2: every answered case agrees")
    again = invoke(bench.data, "mismatches", "--run", "r1", "--run", "r2")
    assert "2 mismatching cases" in again.output
    assert again.output.startswith("mismatches in runs r1, r2\n")
    assert invoke(bench.data, "mismatches", "--run", "nope").exit_code == 2


def test_compare_command_defaults_exit_codes_and_thresholds(bench):
    bench.standard_cases()
    assert invoke(bench.data, "compare").exit_code == 2            # nothing to compare yet
    bench.standard_run("r1", 0)
    assert invoke(bench.data, "compare", "--problem", "arc087e").exit_code == 2
    bench.standard_run("r2", 10, jitter=0.05)
    same = invoke(bench.data, "compare")
    assert same.exit_code == 0, same.output
    assert "BASE r1" in same.output and "NEW r2" in same.output and "OK:" in same.output
    bench.standard_run("r3", 20, slow={"fast": 3.0})
    slower = invoke(bench.data, "compare", "--problem", "arc087e")
    assert slower.exit_code == 1
    assert "BASE r2" in slower.output and "FAILED" in slower.output and "slower:" in slower.output
    assert invoke(bench.data, "compare", "r2", "r3", "--ratio", "4").exit_code == 0
    assert invoke(bench.data, "compare", "r2", "r3", "--min-diff-ms", "1000").exit_code == 0
    just_base = invoke(bench.data, "compare", "r1")                # NEW = newest finished run
    assert just_base.exit_code == 1 and "NEW r3" in just_base.output
    assert invoke(bench.data, "compare", "r3").exit_code == 2       # nothing newer than r3
    assert invoke(bench.data, "compare", "r1", "nope").exit_code == 2


def test_compare_command_fails_on_a_new_wrong_answer(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    bench.standard_run("r2", 10, wrong={"editorial": 0})
    result = invoke(bench.data, "compare", "r1", "r2")
    assert result.exit_code == 1
    assert "editorial: 1 new failing case (AC->WA 1)" in result.output


def test_report_command(bench, tmp_path):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    bench.standard_run("r2", 10)
    out = tmp_path / "report.html"
    result = invoke(bench.data, "report", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"report: {out}"
    assert "fast: n^1.00" in out.read_text()
    default = invoke(bench.data, "report", "--run", "r1", "--run", "r2")
    assert default.exit_code == 0
    written = list((bench.data / "reports").glob("report-*.html"))
    assert len(written) == 1 and written[0].read_text().count("<svg") == 2
    assert invoke(tmp_path / "empty", "report").exit_code == 2


def test_mismatches_of_a_real_run_fold_a_known_wrong_stage(tmp_path):
    """A real ingest and run of cf103119g, whose `editorial` is registered as known wrong: the
    listing says so in one line, with the smallest counterexample by the problem's size."""
    import polars as pl

    from pipeline.problems import get_problem

    data = tmp_path / "data"
    assert invoke(data, "generate", "cf103119g", "--recipe", "tiny", "--count", "60",
                  "--seed", "3").exit_code == 0
    assert invoke(data, "ingest", str(data / "raw"), str(get_problem("cf103119g").samples),
                  ).exit_code == 0
    ran = invoke(data, "run", "--problem", "cf103119g", "--solver", "brute", "--solver",
                 "editorial", "--solver", "fast", "--jobs", "2")
    assert ran.exit_code == 0, ran.output
    results = pl.read_parquet(str(data / "tables" / "results" / "*.parquet"))
    wrong = results.filter((pl.col("solver") == "editorial") & (pl.col("verdict") == "WA"))
    assert wrong.height >= 2                 # the official sample and some tiny cases
    assert results.filter((pl.col("solver") != "editorial")
                          & (pl.col("verdict") == "WA")).is_empty()
    listing = invoke(data, "mismatches")
    assert listing.exit_code == 0, listing.output
    head, out = listing.output.split("\n\n", 1)
    assert head == f"mismatches in run {results['run_id'][0]}"
    assert out.startswith(f"cf103119g (size: n + m (initial length plus number of operations)): "
                          f"0 findings, {wrong.height} cases where known-wrong stages fail")
    assert f"editorial (known wrong): wrong on {wrong.height} cases; smallest: size " \
           f"{wrong['size'].min()}, " in out
    assert "  input:" not in out and out.count("\n") < 10
    everything = invoke(data, "mismatches", "--all").output
    assert everything.count("  input:") == wrong.height
    assert invoke(data, "mismatches", "--all", "--top", "1").output.count("  input:") == 1
