"""Ingest: every layout, rejects with lines, conflicts, idempotence, and crash safety."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import polars as pl
import pytest

from pipeline.corpus.ingest import ingest
from pipeline.problems import get_problem
from pipeline.problems.identity import case_id_of

GOOD = {  # a valid input and its answer for each problem
    "bipartitebattle": ("1\n1 1\n", "1\n"),
    "arc087e": ("2 2\n00\n01\n", "Alice\n"),
    "insq15g": ("2 2 1\n2 1\n", "No\n"),
    "cf103119g": ("1 1\n5\n2 1\n", "Alice\n"),
    "movcoin2": ("1\n2\n1 2\n1 0\n", None),
}

BROKEN = {  # an input breaking one rule, and the line that breaks it
    "movcoin2": ("1\n3\n1 2\n2 1\n0 0 1\n", 4),
    "insq15g": ("2 2 1\n3 1\n", 2),
    "arc087e": ("2 3\n0\n01\n", 3),
    "bipartitebattle": ("2\n1 1\n0 5\n", 3),
    "cf103119g": ("2 2\n1 2\n2 3\n1 5\n", 3),
}


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def cases(data: Path, problem: str) -> pl.DataFrame:
    return pl.read_parquet(data / "tables" / "cases" / f"{problem}.parquet")


def rejects(data: Path) -> pl.DataFrame:
    files = list((data / "tables" / "rejects").glob("*.parquet"))
    return pl.read_parquet(files) if files else pl.DataFrame()


def test_every_layout_is_found_with_its_group_and_expected(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    samples = [("2 2\n00\n01\n", "Alice\n"), ("2 2\n00\n11\n", "Bob\n"), ("3 3\n0\n10\n110\n",
               "Alice\n"), ("2 1\n0\n1\n", "Bob\n"), ("1 2\n11\n", "Alice\n"),
               ("2 3\n101\n11\n", "Bob\n"), ("1 5\n0\n", "Alice\n")]
    (i1, o1), (i2, o2), (i3, o3), (i4, o4), (i5, o5), (i6, o6), (i7, _) = samples
    write(raw, {
        "arc087e/plain/01.in": i1, "arc087e/plain/01.out": o1,
        "arc087e/kattis/data/sample/1.in": i2, "arc087e/kattis/data/sample/1.ans": o2,
        "arc087e/kattis/data/secret/big/2.in": i3, "arc087e/kattis/data/secret/big/2.ans": o3,
        "arc087e/polygon/tests/01": i4, "arc087e/polygon/tests/01.a": o4,
        "arc087e/atcoder/in/case.txt": i5, "arc087e/atcoder/out/case.txt": o5,
        "arc087e/tps/tests/2-01.in": i6, "arc087e/tps/tests/2-01.out": o6,
        "arc087e/lonely/x.in": i7,
        "arc087e/kattis/problem.yaml": "name: x\n", "arc087e/.DS_Store": b"\x00\x01",
        "arc087e/kattis/statement.pdf": b"%PDF",
    })
    zipped = raw / "arc087e" / "bundle.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("tests/07", "2 4\n00\n1\n")
        archive.writestr("tests/07.a", "Alice\n")
        archive.writestr("readme.txt", "hi")
    summary = ingest(data, [raw])
    result = summary.problems["arc087e"]
    assert (result.added, len(result.rejects)) == (8, 0)
    assert result.skipped == {"statement or document": 2, "hidden": 1, "configuration": 1}
    table = cases(data, "arc087e")
    by_source = {row["source"]: row for row in table.iter_rows(named=True)}
    assert by_source["arc087e/kattis/data/sample/1.in"]["group"] == "sample"
    assert by_source["arc087e/kattis/data/secret/big/2.in"]["group"] == "secret/big"
    assert by_source["arc087e/tps/tests/2-01.in"]["group"] == "2"
    assert by_source["arc087e/polygon/tests/01"]["expected"] == "Bob\n"
    assert by_source["arc087e/atcoder/in/case.txt"]["expected"] == "Alice\n"
    assert by_source["arc087e/lonely/x.in"]["expected"] is None
    assert by_source["arc087e/bundle.zip!tests/07"]["expected"] == "Alice\n"
    assert by_source["arc087e/plain/01.in"]["case_id"] == case_id_of(i1)
    assert by_source["arc087e/plain/01.in"]["expected_source"] == "file"


@pytest.mark.parametrize("problem", sorted(BROKEN))
def test_a_malformed_input_becomes_a_reject_naming_its_line(tmp_path, problem):
    text, line = BROKEN[problem]
    write(tmp_path / "raw", {f"{problem}/bad/01.in": text})
    summary = ingest(tmp_path / "data", [tmp_path / "raw"])
    [reject] = summary.problems[problem].rejects
    assert reject["line"] == line
    stored = rejects(tmp_path / "data")
    assert stored.select("problem", "source", "line").row(0) == (problem, f"{problem}/bad/01.in",
                                                                line)


@pytest.mark.parametrize("problem", sorted(GOOD))
def test_good_inputs_of_every_problem_are_stored_with_sizes(tmp_path, problem):
    text, answer = GOOD[problem]
    files = {f"{problem}/s/01.in": text}
    if answer:
        files[f"{problem}/s/01.out"] = answer
    write(tmp_path / "raw", files)
    summary = ingest(tmp_path / "data", [tmp_path / "raw"])
    assert summary.problems[problem].added == 1
    row = cases(tmp_path / "data", problem).row(0, named=True)
    assert row["size"] == get_problem(problem).size(get_problem(problem).parse(text))


def test_an_invalid_expected_output_is_a_reject(tmp_path):
    write(tmp_path / "raw", {"arc087e/a/01.in": "1 2\n11\n", "arc087e/a/01.out": "Carol\n"})
    summary = ingest(tmp_path / "data", [tmp_path / "raw"])
    [reject] = summary.problems["arc087e"].rejects
    assert reject["source"] == "arc087e/a/01.out" and reject["line"] == 1


def test_same_input_twice_is_one_case_with_both_sources_and_a_conflict_is_kept_apart(tmp_path):
    write(tmp_path / "raw", {
        "arc087e/a/01.in": "1 2\n11\n", "arc087e/a/01.out": "Alice\n",
        "arc087e/b/copy.in": "1 2\r\n11\r\n", "arc087e/b/copy.out": "Alice\n",
        "arc087e/c/other.in": "1 2\n11\n", "arc087e/c/other.out": "Bob\n",
    })
    summary = ingest(tmp_path / "data", [tmp_path / "raw"])
    result = summary.problems["arc087e"]
    assert (result.added, result.duplicates, result.conflicts) == (1, 1, 1)
    [row] = cases(tmp_path / "data", "arc087e").iter_rows(named=True)
    assert row["sources"] == ["arc087e/a/01.in", "arc087e/b/copy.in"]
    assert row["expected"] == "Alice\n"  # not overwritten by the conflicting answer
    conflict = rejects(tmp_path / "data").filter(pl.col("rule") == "conflict")
    assert conflict["source"].to_list() == ["arc087e/c/other.out"]


def test_reingesting_the_same_tree_adds_nothing(tmp_path):
    write(tmp_path / "raw", {"arc087e/a/01.in": "1 2\n11\n", "arc087e/a/01.out": "Alice\n",
                             "arc087e/a/02.in": "2 3\n0\n01\n"})
    ingest(tmp_path / "data", [tmp_path / "raw"])
    before = {p: p.read_bytes() for p in (tmp_path / "data" / "tables").rglob("*.parquet")}
    summary = ingest(tmp_path / "data", [tmp_path / "raw"])
    result = summary.problems["arc087e"]
    assert (result.added, result.duplicates, result.unchanged, len(result.rejects)) == (0, 0, 1, 1)
    after = {p: p.read_bytes() for p in (tmp_path / "data" / "tables").rglob("*.parquet")}
    assert after == before


def test_problem_override_and_a_zip_given_directly(tmp_path):
    archive_path = tmp_path / "upload.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr("in/a", "1\n3 4\n")
        archive.writestr("out/a", "0\n")
    summary = ingest(tmp_path / "data", [archive_path], problem_override="bipartitebattle")
    assert summary.problems["bipartitebattle"].added == 1
    row = cases(tmp_path / "data", "bipartitebattle").row(0, named=True)
    assert row["source"] == "upload.zip!in/a"


def test_tables_read_with_plain_polars_on_a_glob(tmp_path):
    write(tmp_path / "raw", {"arc087e/a/01.in": "1 2\n11\n", "bipartitebattle/a/01.in": "1\n1 1\n",
                             "insq15g/a/01.in": "2 2 1\n3 1\n"})
    ingest(tmp_path / "data", [tmp_path / "raw"])
    frame = pl.read_parquet(str(tmp_path / "data" / "tables" / "cases" / "*.parquet"))
    assert sorted(frame["problem"].to_list()) == ["arc087e", "bipartitebattle"]
    lazy = pl.scan_parquet(str(tmp_path / "data" / "tables" / "rejects" / "*.parquet"))
    assert lazy.select("problem").collect()["problem"].to_list() == ["insq15g"]


def _tables_state(data: Path) -> tuple[int, int]:
    files = list((data / "tables" / "cases").glob("*.parquet"))
    table = pl.read_parquet(files) if files else pl.DataFrame({"case_id": []})
    return table.height, table["case_id"].n_unique()


def test_a_kill_during_ingest_leaves_old_or_new_tables(tmp_path):
    """kill -9 at several moments: the tables always read back whole, old or new."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    write(raw, {f"bipartitebattle/old/{i:04d}.in": f"1\n{i + 1} 1\n" for i in range(50)})
    ingest(data, [raw])
    old = _tables_state(data)
    write(raw, {f"bipartitebattle/new/{i:04d}.in": f"2\n{i + 1} 2\n3 3\n" for i in range(3000)})
    seen = set()
    for delay in (0.3, 0.6, 0.9, 1.2, 1.6, 2.0):
        process = subprocess.Popen(
            [sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest", str(raw)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        state = _tables_state(data)
        assert state in (old, (3050, 3050)), state
        seen.add(state)
        leftovers = [p for p in (data / "tables").rglob("*") if p.name.endswith(".tmp")]
        for tmp in leftovers:  # a killed writer may leave its temporary file, never a table
            assert not tmp.name.endswith(".parquet")
        if state != old:
            break
    subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest",
                    str(raw)], check=True, stdout=subprocess.DEVNULL)
    assert _tables_state(data) == (3050, 3050)
    assert os.listdir(data / "tables" / "cases") == ["bipartitebattle.parquet"] or all(
        not name.endswith(".parquet") or name == "bipartitebattle.parquet"
        for name in os.listdir(data / "tables" / "cases"))


def test_an_ingest_that_adds_to_a_table_keeps_each_stored_row_whole_and_in_place(tmp_path):
    write(tmp_path / "raw", {"arc087e/a/01.in": "1 2\n11\n", "arc087e/a/02.in": "2 2\n00\n01\n",
                             "arc087e/a/03.in": "1 3\n101\n"})
    ingest(tmp_path / "data", [tmp_path / "raw"])
    before = cases(tmp_path / "data", "arc087e")
    write(tmp_path / "later", {
        "arc087e/b/02.in": "2 2\n00\n01\n", "arc087e/b/02.out": "Alice\n",  # answer + group
        "arc087e/b/04.in": "1 1\n1\n",                                       # a new case
    })
    summary = ingest(tmp_path / "data", [tmp_path / "later"])
    assert (summary.problems["arc087e"].added, summary.problems["arc087e"].expected_added) == (1, 1)
    after = cases(tmp_path / "data", "arc087e")
    assert after["case_id"].to_list()[:3] == before["case_id"].to_list()  # in place, new last
    assert after["source"].to_list()[3] == "arc087e/b/04.in"
    untouched = [c for c in before.columns if c not in ("sources", "groups", "expected",
                                                        "expected_source")]
    assert after.head(3).select(untouched).equals(before.select(untouched))
    changed = after.row(1, named=True)
    assert changed["expected"] == "Alice\n" and changed["groups"] == ["a", "b"]
    assert changed["sources"] == ["arc087e/a/02.in", "arc087e/b/02.in"]
    assert after.row(0, named=True) == before.row(0, named=True)
