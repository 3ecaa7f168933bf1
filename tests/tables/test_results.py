"""The `results` and `runs` tables: chunks written atomically, read back whole."""

from __future__ import annotations

import polars as pl

from pipeline.tables.results import (
    read_run_results,
    read_runs,
    results_of,
    stored_chunks,
    write_results_chunk,
    write_run,
)
from pipeline.tables.schemas import RESULTS


def _row(case: str, solver: str = "fast", repeat: int = 0) -> dict:
    return {"run_id": "r1", "problem": "toy", "case_id": case, "solver": solver,
            "repeat": repeat, "verdict": "AC", "answer": "2\n", "wall_ms": 0.1, "cpu_ms": 0.1}


def test_chunks_of_a_run_read_back_as_one_table_with_the_declared_schema(tmp_path):
    write_results_chunk(tmp_path, "r1", 0, [_row("a"), _row("b")])
    write_results_chunk(tmp_path, "r1", 1, [_row("c")])
    write_results_chunk(tmp_path, "r2", 0, [{**_row("z"), "run_id": "r2"}])
    frame = read_run_results(tmp_path, "r1")
    assert frame.schema == pl.Schema(RESULTS)
    assert frame["case_id"].to_list() == ["a", "b", "c"]
    assert frame["peak_rss_kb"].to_list() == [None] * 3
    everything = pl.read_parquet(str(tmp_path / "tables" / "results" / "*.parquet"))
    assert everything.height == 4 and everything.schema == pl.Schema(RESULTS)


def test_the_rows_a_run_wrote_are_the_rows_it_reads_back(tmp_path):
    rows = [_row("a"), {**_row("b"), "verdict": "WA", "score": None, "message": "bad\udcff"},
            {**_row("c", "slow"), "cpu_ms": 7, "wall_ms": None}]
    write_results_chunk(tmp_path, "r1", 0, rows[:2])
    write_results_chunk(tmp_path, "r1", 1, rows[2:])
    columns = ["case_id", "solver", "verdict", "message", "cpu_ms", "wall_ms"]
    assert results_of(rows, columns).equals(read_run_results(tmp_path, "r1", columns))
    assert results_of([], columns).equals(read_run_results(tmp_path, "none", columns))


def test_a_temporary_file_left_by_a_killed_writer_is_not_a_chunk(tmp_path):
    write_results_chunk(tmp_path, "r1", 0, [_row("a")])
    folder = tmp_path / "tables" / "results"
    (folder / ".r1-000001.parquet.x1y2.tmp").write_bytes(b"PAR1 half a file")
    assert [p.name for p in stored_chunks(tmp_path, "r1")] == ["r1-000000.parquet"]
    assert read_run_results(tmp_path, "r1").height == 1


def test_a_run_without_results_reads_as_an_empty_table(tmp_path):
    frame = read_run_results(tmp_path, "nothing")
    assert frame.is_empty() and frame.schema == pl.Schema(RESULTS)


def test_a_runs_row_is_rewritten_when_its_status_changes(tmp_path):
    row = {"run_id": "r1", "problem": "toy", "status": "running", "solvers": ["fast"]}
    write_run(tmp_path, row)
    write_run(tmp_path, {**row, "status": "finished"})
    runs = read_runs(tmp_path)
    assert runs.select("run_id", "status").rows() == [("r1", "finished")]
    assert runs["solvers"].to_list() == [["fast"]]
