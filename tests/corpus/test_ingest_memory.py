"""An ingest's memory does not grow with the corpus (issue 41, faults 9 and 10): a folder of
1 MB inputs, and a zip of members just under 1 MB each, ingested by a real `pipeline ingest`
process at two sizes, whose peak resident memory (its `ru_maxrss`, and that of every process
it started) is the same within a margin far below what the extra data would add; and a zip
whose members would together inflate like a bomb is refused before any is read."""

from __future__ import annotations

import random
import subprocess
import sys
import zipfile
from pathlib import Path

import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "packages"))  # packagekit

REPO = Path(__file__).resolve().parents[2]
PEOPLE = 120_000  # an insq15g input of about 0.9 MB: "N M P" then P lines "x y"


def _body() -> str:
    """One input's people, random (so a zip compresses them as test data compresses)."""
    rng = random.Random(41)
    return "".join(f"{rng.randint(1, 999)} {rng.randint(1, 999)}\n" for _ in range(PEOPLE))


def _inputs(megabytes: int) -> list[tuple[str, str]]:
    """(name, text) of `megabytes` distinct valid insq15g inputs of just under 1 MB each."""
    body = _body()
    return [(f"{k:04}.in", f"{1000 + k} 1000 {PEOPLE}\n{body}") for k in range(megabytes)]


def _peak_mb(script: str) -> float:
    """Peak resident memory of `pipeline ingest` run by a fresh Python process that does
    only that (so RUSAGE_CHILDREN is the ingest's and its workers')."""
    measure = (
        "import resource, subprocess, sys\n"
        f"done = subprocess.run({script}, capture_output=True, text=True)\n"
        "assert done.returncode == 0, done.stdout + done.stderr\n"
        "print(done.stdout, file=sys.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", measure], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1]) / 1024


def _ingest_peak(tmp_path: Path, name: str, megabytes: int, layout: str) -> float:
    raw, data = tmp_path / name / "raw", tmp_path / name / "data"
    problem = raw / "insq15g"
    problem.mkdir(parents=True)
    if layout == "folder":
        for file_name, text in _inputs(megabytes):
            (problem / file_name).write_text(text)
    else:
        with zipfile.ZipFile(problem / "tests.zip", "w", zipfile.ZIP_DEFLATED,
                             compresslevel=1) as archive:
            for file_name, text in _inputs(megabytes):
                archive.writestr(file_name, text)
    argv = [sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest", str(raw)]
    peak = _peak_mb(repr(argv))
    stored = pl.read_parquet(data / "tables" / "cases" / "insq15g.parquet",
                             columns=["source", "input_bytes"])
    assert stored.height == megabytes  # every input stored, whole
    assert stored["input_bytes"].min() > 900_000
    return peak


@pytest.fixture(scope="module")
def ingest_peak(tmp_path_factory):
    """ingest_peak(megabytes, layout) -> `_ingest_peak` of that corpus, measured once in the
    module: the two tests that compare 150 MB in a folder with a smaller ingest share that
    one (the same files, the same command, so the same measure)."""
    measured: dict[tuple[int, str], float] = {}

    def peak(megabytes: int, layout: str) -> float:
        if (megabytes, layout) not in measured:
            folder = tmp_path_factory.mktemp(f"ingest-{megabytes}-{layout}")
            measured[megabytes, layout] = _ingest_peak(folder, "corpus", megabytes, layout)
        return measured[megabytes, layout]
    return peak


@pytest.mark.parametrize("layout", ["folder", "zip"])
def test_ingest_memory_does_not_grow_with_the_corpus(ingest_peak, layout):
    """50 MB and 150 MB of inputs: before, the peak grew by twice the extra data (166 ->
    549 MB for 400 MB more; a 21.6 MB zip took 19.6 GB); now the extra 100 MB may add at
    most a third of itself (what is held is a chunk of inputs and a row group of the table,
    whatever the corpus)."""
    small = ingest_peak(50, layout)
    large = ingest_peak(150, layout)
    assert large - small < 100 / 3, (small, large)


def test_storing_holds_a_batch_of_the_table_whatever_the_corpus(ingest_peak):
    """The cases table is written in batches of about 4 MB, each a row group of pages of about
    1 MB (`tables.files.write_batches_atomic`): an ingest of 150 MB of inputs peaks within
    40 MB of one of 4 MB, all of whose inputs fit in one batch (the writer's libraries and
    one batch are held by both; a row group encoded whole, or the table's rows gathered,
    would add over 100 MB)."""
    tiny = ingest_peak(4, "folder")
    large = ingest_peak(150, "folder")
    assert large - tiny < 40, (tiny, large)


def _package_reingest_peak(tmp_path: Path, name: str, megabytes: int) -> float:
    """Peak of the second ingest of a Kattis package of `megabytes` 1 MB tests, after its
    setter corrected every answer but a fifth of the tests, which they removed."""
    from packagekit import tiny_kattis

    body = _body()
    package = tiny_kattis(tmp_path / name / "tiny", {
        **{f"data/secret/{k:04}.in": f"{k} {k}\n{body}" for k in range(megabytes)},
        **{f"data/secret/{k:04}.ans": f"{2 * k}\n" for k in range(megabytes)}})
    data = tmp_path / name / "data"
    argv = [sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest", str(package)]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    for k in range(megabytes):
        if k % 5 == 0:
            (package / "data" / "secret" / f"{k:04}.in").unlink()
            (package / "data" / "secret" / f"{k:04}.ans").unlink()
        else:
            (package / "data" / "secret" / f"{k:04}.ans").write_text(f"{2 * k + 1}\n")
    peak = _peak_mb(repr(argv))
    stored = pl.read_parquet(data / "tables" / "cases" / "tiny.parquet",
                             columns=["expected", "input_bytes", "package_sources"])
    kept = [k for k in range(megabytes) if k % 5]
    assert sorted(stored["expected"]) == sorted(["3\n", "5\n", "30\n"] + [
        f"{2 * k + 1}\n" for k in kept])  # (the tiny package's own three, and these)
    assert stored["input_bytes"].min() > 0 and stored["input_bytes"].sum() > len(body) * len(kept)
    assert all(len(sources) == 1 for sources in stored["package_sources"])
    return peak


def test_a_package_reingest_that_replaces_its_cases_does_not_grow_with_the_table(tmp_path):
    """The package's cases replaced (issue 41, faults 20-22) in a table of 40 and 120 MB of
    inputs: the stored rows it drops and the answers it corrects are one rewrite of the table
    a row group at a time, its inputs never in memory together; before, the table was read
    whole and every input held, so the peak grew with both."""
    small = _package_reingest_peak(tmp_path, "small", 50)
    large = _package_reingest_peak(tmp_path, "large", 150)
    assert large - small < 100 / 3, (small, large)


def test_a_zip_whose_members_together_inflate_like_a_bomb_is_refused_unread(tmp_path):
    """Members just under 1 MB each escape the check of one member's ratio: 300 of them,
    300 MB of one repeated line in a zip of a few hundred KB, are refused as a whole (a reject
    naming the archive), before any is inflated; the good file beside it is stored."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    problem = raw / "insq15g"
    problem.mkdir(parents=True)
    (problem / "good.in").write_text("2 2 1\n2 1\n")
    member = "1000 1000 120000\n" + "1 1\n" * 262_000  # 1,048,017 bytes: just under 1 MiB
    assert len(member) < 1 << 20
    with zipfile.ZipFile(problem / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for k in range(300):
            archive.writestr(f"{k:03}.in", member)
    assert (problem / "bomb.zip").stat().st_size < 2 << 20
    argv = [sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest", str(raw),
            "--allow-rejects"]
    peak = _peak_mb(repr(argv))
    assert peak < 300, peak  # (the 300 MB it would inflate to never were in memory)
    stored = pl.read_parquet(data / "tables" / "cases" / "insq15g.parquet")
    assert stored["source"].to_list() == ["insq15g/good.in"]
    rejects = pl.read_parquet(data / "tables" / "rejects" / "insq15g.parquet")
    [row] = rejects.filter(pl.col("source") == "insq15g/bomb.zip").to_dicts()
    assert row["rule"] == "too-large"
    assert "300 members would inflate" in row["message"] and "zip bomb" in row["message"]


def test_what_one_chunk_finds_holds_for_the_next_as_for_the_same(tmp_path, monkeypatch):
    """With every file a chunk of its own, an ingest stores what it stores in one: the same
    input under another name in a later chunk is one case with both sources, its answer found
    later is added, a different answer later is a conflict, a broken input is rejected under
    every name, and a second ingest, of answers to stored cases, rewrites the stored rows in
    place with their inputs kept and adds the new rows last."""
    from pipeline.corpus import ingest as ingesting

    monkeypatch.setattr(ingesting, "CHUNK_BYTES", 1)
    raw, data = tmp_path / "raw", tmp_path / "data"
    folder = raw / "arc087e"
    folder.mkdir(parents=True)
    (folder / "a1.in").write_text("2 2\n00\n01\n")                 # no answer here ...
    (folder / "a2.in").write_text("2 2\n00\n01\n")                 # ... the same input
    (folder / "a2.out").write_text("Alice\n")                      # ... its answer, later
    (folder / "a3.in").write_text("2 2\n00\n01\n")
    (folder / "a3.out").write_text("Bob\n")                         # a conflicting answer
    (folder / "b1.in").write_text("2 3\n0\n01\n")                   # broken (line 3) ...
    (folder / "b2.in").write_text("2 3\n0\n01\n")                   # ... under two names
    (folder / "c1.in").write_text("2 2\n00\n11\n")
    summary = ingesting.ingest(data, [raw]).problems["arc087e"]
    assert (summary.added, summary.duplicates, summary.expected_added, summary.conflicts) == (
        2, 1, 1, 1)  # (a conflicting copy is no duplicate)
    table = pl.read_parquet(data / "tables" / "cases" / "arc087e.parquet")
    assert table["sources"].to_list() == [["arc087e/a1.in", "arc087e/a2.in"],
                                          ["arc087e/c1.in"]]
    assert table["expected"].to_list() == ["Alice\n", None]
    assert table["input"].to_list() == ["2 2\n00\n01\n", "2 2\n00\n11\n"]
    found = {r["source"]: (r["rule"], r["line"]) for r in summary.rejects}
    assert found == {"arc087e/a3.out": ("conflict", 1), "arc087e/b1.in": (found[
        "arc087e/b1.in"][0], 3), "arc087e/b2.in": (found["arc087e/b1.in"][0], 3)}

    more = tmp_path / "more" / "arc087e"
    more.mkdir(parents=True)
    (more / "c1.in").write_text("2 2\n00\n11\n")
    (more / "c1.out").write_text("Bob\n")
    (more / "d1.in").write_text("2 1\n0\n1\n")
    summary = ingesting.ingest(data, [tmp_path / "more"]).problems["arc087e"]
    assert (summary.added, summary.expected_added) == (1, 1)
    table = pl.read_parquet(data / "tables" / "cases" / "arc087e.parquet")
    assert table["input"].to_list() == ["2 2\n00\n01\n", "2 2\n00\n11\n", "2 1\n0\n1\n"]
    assert table["expected"].to_list() == ["Alice\n", "Bob\n", None]
    assert table["sources"].to_list()[1] == ["arc087e/c1.in"]  # (the same name: unchanged)
    before = (data / "tables" / "cases" / "arc087e.parquet").read_bytes()
    summary = ingesting.ingest(data, [tmp_path / "more"]).problems["arc087e"]
    assert (summary.added, summary.unchanged) == (0, 2)
    assert (data / "tables" / "cases" / "arc087e.parquet").read_bytes() == before


def test_one_pool_of_workers_validates_every_chunk(tmp_path):
    """110 MB of 1 MB inputs are validated 32 MB at a time by the same two workers, not by a
    pool started for each chunk (which, once the ingest had loaded Polars, were spawned fresh
    interpreters each importing the pipeline again)."""
    from pipeline.corpus.ingest import CHUNK_BYTES
    from pipeline.programs.processes import children_of

    raw, data = tmp_path / "raw", tmp_path / "data"
    problem = raw / "insq15g"
    problem.mkdir(parents=True)
    for file_name, text in _inputs(120):
        (problem / file_name).write_text(text)
    assert 120 * len(_inputs(1)[0][1]) > 3 * CHUNK_BYTES  # (four chunks)
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest", str(raw),
         "--jobs", "2"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers: set[int] = set()
    others: dict[int, bytes] = {}  # children that are not forks of the ingest (another program)
    while process.poll() is None:
        for child in children_of(process.pid):
            if child in workers or child in others:
                continue
            try:
                with open(f"/proc/{child}/cmdline", "rb") as handle:
                    command = handle.read()
            except OSError:
                continue
            if command.split(b"\0")[1:3] == [b"-m", b"pipeline"]:  # a fork: a worker
                workers.add(child)
            else:
                others[child] = command
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, out + err
    assert 1 <= len(workers) <= 2, (workers, others)
    stored = pl.read_parquet(data / "tables" / "cases" / "insq15g.parquet", columns=["source"])
    assert stored.height == 120
