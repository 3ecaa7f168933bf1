"""The nightly job on a small corpus: builds it once, runs everything, compares the second
night with the first, writes the report; and fails on a new wrong answer."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.nightly import corpus_is_current, format_outcome, nightly

CONFIG = """
seed = 5
problems = ["arc087e", "bipartitebattle"]
[corpus.arc087e]
tiny = 25
max-comb = 1
[corpus.bipartitebattle]
tiny = 15
medium = 5
"""


def write_config(tmp_path: Path, text: str = CONFIG) -> Path:
    path = tmp_path / "nightly.toml"
    path.write_text(text)
    return path


def test_two_nights_in_a_row_pass_and_the_second_compares_with_the_first(tmp_path):
    data, config = tmp_path / "data", write_config(tmp_path)
    lines: list[str] = []
    first = nightly(data, config, jobs=2, log=lines.append)
    assert not first.failed, format_outcome(first)
    assert any(line.startswith("generated arc087e/tiny") for line in lines)
    assert [n.baseline for n in first.problems] == [None, None]
    assert first.report is not None and first.report.read_text().startswith("<!DOCTYPE html>")
    assert corpus_is_current(data / "raw" / "arc087e" / "nightly" / "tiny", "arc087e", "tiny", 5,
                             25)

    lines.clear()
    second = nightly(data, config, jobs=2, log=lines.append)
    assert not second.failed, format_outcome(second)
    assert not any(line.startswith("generated") for line in lines)  # the corpus is reused
    for first_night, second_night in zip(first.problems, second.problems):
        assert second_night.baseline == first_night.run.run_id
        assert "compare" in second_night.comparison_text
    runs = pl.read_parquet(str(data / "tables" / "runs" / "*.parquet"))
    assert runs.height == 4 and set(runs["status"]) == {"finished"}


def test_a_wrong_expected_answer_fails_the_night(tmp_path):
    data, config = tmp_path / "data", write_config(
        tmp_path, 'seed = 2\nproblems = ["arc087e"]\n[corpus.arc087e]\ntiny = 5\n')
    nightly(data, config, jobs=1, log=lambda line: None)
    # Someone commits a wrong expected output: the next night must say so and fail.
    first_out = sorted((data / "raw" / "arc087e" / "nightly" / "tiny").glob("*.out"))[0]
    flipped = {"Alice\n": "Bob\n", "Bob\n": "Alice\n"}[first_out.read_text()]
    cases = data / "tables" / "cases" / "arc087e.parquet"
    table = pl.read_parquet(cases)
    source = first_out.relative_to(data / "raw").with_suffix(".in").as_posix()
    table = table.with_columns(pl.when(pl.col("source") == source).then(pl.lit(flipped))
                               .otherwise(pl.col("expected")).alias("expected"))
    table.write_parquet(cases)
    outcome = nightly(data, config, jobs=1, log=lambda line: None)
    assert outcome.failed
    text = format_outcome(outcome)
    assert "new failing case" in text and "WA" in text
    line = next(line for line in text.splitlines() if line.startswith("  arc087e"))
    assert "fast WA=1" in line and "brute WA=1" in line and "known wrong" not in line


def test_a_flagged_slowdown_fails_only_when_re_measuring_confirms_it(toy, tmp_path,
                                                                       monkeypatch):
    from pipeline.nightly import confirmed_reasons
    from pipeline.report.compare import compare_runs
    from pipeline.run.runner import RunRequest, run
    from pipeline.tables.results import read_runs

    data = tmp_path / "data"
    folder = data / "raw" / "toy" / "t"
    folder.mkdir(parents=True)
    for i in range(6):
        (folder / f"{i}.in").write_text(f"{i} {i + 1}\n")
    from pipeline.corpus.ingest import ingest

    ingest(data, [data / "raw"])
    request = RunRequest("toy", solvers=("busy",), jobs=1)
    base = run(data, request)
    monkeypatch.setenv("TOY_BUSY_MS", "40")  # the solver really got slower
    slow = run(data, request)
    comparison = compare_runs(data, base.run_id, slow.run_id)
    assert comparison.failed and comparison.solver("busy").slowdowns
    lines: list[str] = []
    reasons = confirmed_reasons(data, base.run_id, comparison, lines.append)
    assert reasons and all("confirmed by re-measuring" in r for r in reasons)
    assert "confirmed" in lines[0]
    remeasure = read_runs(data).filter(pl.col("status") == "remeasure")
    assert remeasure.height == 1 and remeasure["repeat"][0] == 5
    monkeypatch.setenv("TOY_BUSY_MS", "0")  # the slowdown was noise after all
    assert confirmed_reasons(data, base.run_id, comparison, lines.append) == []
    assert "not confirmed" in lines[-1]


def test_the_summary_names_failing_solvers_and_which_are_known_wrong(tmp_path):
    """cf103119g's `editorial` is registered as known wrong (it gets the official sample's
    third answer wrong): the night passes, and the summary says who has the WAs."""
    import io

    from pipeline.progress import progress_bar

    data, config = tmp_path / "data", write_config(
        tmp_path, 'seed = 4\nproblems = ["cf103119g"]\n[corpus.cf103119g]\ntiny = 20\n')
    log = io.StringIO()
    outcome = nightly(data, config, jobs=2, log=lambda line: None,
                      progress=progress_bar("nightly", log, every_s=0.0))
    assert not outcome.failed, format_outcome(outcome)
    [night] = outcome.problems
    wrong = night.run.verdicts["editorial"]["WA"]
    assert wrong >= 1
    text = format_outcome(outcome)
    line = next(line for line in text.splitlines() if line.startswith("  cf103119g"))
    assert line == (f"  cf103119g        {night.run.cases:>5} cases, {len(night.run.verdicts)} "
                    f"solvers: editorial (known wrong) WA={wrong}")
    # the progress lines name their phase (a log line per call here)
    lines = log.getvalue().splitlines()
    assert any(" ingest" in line for line in lines)
    assert any(" run cf103119g AC:" in line for line in lines)


def test_a_judge_error_fails_the_night_even_in_a_stage_known_to_be_wrong(toy, tmp_path):
    """toy's `dies` kills every worker it runs on: its cases are judge errors (JE), no verdict
    of the program, so the night cannot pass, though `dies` is known to be wrong."""
    data, config = tmp_path / "data", write_config(
        tmp_path, 'seed = 3\nproblems = ["toy"]\n[corpus.toy]\ntiny = 2\n')
    outcome = nightly(data, config, jobs=2, log=lambda line: None)
    assert outcome.failed
    [night] = outcome.problems
    assert night.run.verdicts["dies"]["JE"] == 2
    assert night.failures == [
        f"toy: 2 judge error(s) (JE) in run {night.run.run_id}: the judge failed, so they are "
        f"no verdict (`pipeline run --problem toy --resume {night.run.run_id}` judges them "
        "again)"]
    assert f"    ! {night.failures[0]}" in format_outcome(outcome)
