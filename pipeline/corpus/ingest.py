"""`pipeline ingest`: find every case under some roots, validate it, merge it into
`tables/cases/<problem>.parquet` by `case_id`, every unusable file a `rejects` row (the rules:
docs/commands.md, `pipeline ingest`). Reading and validating run without a lock, a chunk at a
time, put aside in a `_Spill`; the merge runs under the data folder's lock, a row group at a time.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import pickle
import posixpath
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from pipeline.corpus.generate import MANIFEST_NAME
from pipeline.corpus.packagecases import mark_package_sources, replace_package_cases
from pipeline.corpus.refused import record_refused
from pipeline.corpus.validate import Checked, Flaw, Item, Pools, short, validate_all
from pipeline.corpus.walk import (
    Fault,
    FoundCase,
    FoundPackage,
    Namespace,
    Source,
    SourceReader,
    find_cases,
    scan,
)
from pipeline.errors import InputError, PackageError, UnknownName
from pipeline.problems import (
    Problem,
    add_problem_dirs,
    get_problem,
    module_problem_ids,
    problem_folder,
    problem_ids,
)
from pipeline.problems.identity import decode_judge_file, judge_file
from pipeline.tables.layout import now, problem_file, registered_dir
from pipeline.tables.lock import data_lock

if TYPE_CHECKING:  # Polars is imported where tables are read or written: the reading and
    import polars as pl  # validating before that need none of it (see `validate_all`)

DEFAULT_MAX_FILE_MB = 256
# Inputs are read, validated and put aside about this many bytes at a time, and tables are read
# and written a row group at a time, so an ingest's memory does not grow with the corpus.
CHUNK_BYTES = 32 << 20
SPILL_GROUP_BYTES = 2 << 20   # a row group of the records put aside (`_Spill`)


@dataclass
class ProblemSummary:
    problem: str
    files_read: int = 0          # inputs and expected outputs read
    found: int = 0               # inputs found
    added: int = 0               # new cases stored
    unchanged: int = 0           # inputs already stored under the same name
    duplicates: int = 0          # inputs already stored (or seen) under another name
    expected_added: int = 0      # stored cases that got an expected output
    conflicts: int = 0
    removed: int = 0             # stored cases its package no longer has
    answers_replaced: int = 0    # stored answers its package now gives otherwise
    rejects: list[dict] = field(default_factory=list)   # `rejects` rows, stamped when stored
    skipped: Counter = field(default_factory=Counter)   # files of no case, by kind

    def reject(self, source: str | None,
               error: Fault | Flaw | InputError | PackageError) -> None:
        assert source is not None  # (a file that was read has its label)
        self.rejects.append({"problem": self.problem, "source": source,
                             "line": getattr(error, "line", None),
                             "column": getattr(error, "column", None), "rule": error.rule,
                             "message": short(error.message)})


@dataclass(frozen=True)
class PackageNote:
    """What ingest did with a judge's problem package."""

    problem: str
    label: str
    text: str           # "registered ...", "updated ...: what changed", "unchanged"


@dataclass
class IngestSummary:
    problems: dict[str, ProblemSummary] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)   # files under a folder naming no problem
    unplaced: list[Fault] = field(default_factory=list)  # faults outside any problem's folder
    packages: list[PackageNote] = field(default_factory=list)
    caseless: list[str] = field(default_factory=list)   # packages loaded that hold no case

    def part(self, problem: str) -> ProblemSummary:
        return self.problems.setdefault(problem, ProblemSummary(problem))

    @property
    def rejected(self) -> int:
        return sum(len(p.rejects) for p in self.problems.values()) + len(self.unplaced)

    @property
    def found(self) -> int:
        return sum(p.found for p in self.problems.values())


def default_roots(data_dir: Path) -> list[Path]:
    """What `pipeline ingest` reads given no path: `DATA/raw` and every problem's folder."""
    add_problem_dirs([registered_dir(data_dir)])
    raw = Path(data_dir) / "raw"
    return ([raw] if raw.exists() else []) + [problem_folder(pid) for pid in problem_ids()]


_SKIPPED_KINDS = (  # by suffix
    ("statement or document", ".md .pdf .tex .html .htm .txt .rst .png .jpg .svg"),
    ("program", ".py .c .cc .cpp .cxx .h .hpp .java .kt .rs .go .sh .pl .rb .js .cs .pas .exe"),
    ("configuration", ".yaml .yml .xml .toml .json .ini .cfg"))


def skipped_kind(path: str) -> str:
    """What a file that belongs to no case probably is (for the summary)."""
    name = PurePosixPath(path).name.lower()
    if name == MANIFEST_NAME:
        return "generator manifest"
    if name.startswith("."):
        return "hidden"
    suffix = PurePosixPath(name).suffix
    return next((kind for kind, suffixes in _SKIPPED_KINDS if suffix in suffixes.split()),
                "other")


# -- reading ------------------------------------------------------------------------------------

def _provenance(namespace: Namespace, expected_path: str, cache: dict[Source, str],
                reader: SourceReader) -> str:
    """`file`, or the stage named by a `pipeline generate` manifest beside the file."""
    manifest = namespace.files.get(posixpath.join(posixpath.dirname(expected_path), MANIFEST_NAME))
    if manifest is not None and manifest not in cache:
        try:
            cache[manifest] = str(json.loads(reader.read(manifest, 1 << 20)).get(
                "expected_from") or "file")
        except (ValueError, AttributeError):  # (an InputError too: a file that cannot be read)
            cache[manifest] = "file"
    return "file" if manifest is None else cache[manifest]


@dataclass
class Record:
    """One input as read, before it is merged: where it was found and what it holds."""

    source: str
    group: str
    case_id: str
    text: str                    # normalised input
    input_bytes: int             # length of its UTF-8
    expected: str | None
    expected_label: str | None
    produced_by: str | None
    size: int | None = None
    size_values: dict[str, int] | None = None


_CaseFiles = list[tuple[Namespace, FoundCase]]  # cases found, each with where its files are


def _read_problem(problem: Problem, items: _CaseFiles, summary: ProblemSummary,
                  reader: SourceReader, limit_bytes: int, progress: Callable[..., None] | None,
                  done: list[int], total: int) -> list[Record]:
    """Read every input (and expected output) of `items`; what cannot be is a reject."""
    own = None if problem.input_mb is None else int(problem.input_mb * (1 << 20))
    limit = limit_bytes if own is None else min(limit_bytes, own)
    records: list[Record] = []
    provenance: dict[Source, str] = {}  # by manifest
    for namespace, found in items:
        source = namespace.files[found.input].label
        expected_label = namespace.files[found.expected].label if found.expected else None
        summary.found += 1
        done[0] += 1
        if progress:
            progress(done[0], total)
        try:
            summary.files_read += 1
            text, case_id, input_bytes = judge_file(
                reader.read(namespace.files[found.input], limit))
        except InputError as error:
            if error.rule == "too-large" and limit < limit_bytes:
                error.message += f" ({problem.id}'s inputs are at most {problem.input_mb:g} " \
                                 "MB: input_mb in its problem.toml)"
            summary.reject(source, error)
            continue
        expected = None
        if found.expected:
            try:
                summary.files_read += 1
                expected = decode_judge_file(reader.read(namespace.files[found.expected],
                                                         limit_bytes))
            except InputError as error:
                summary.reject(expected_label, error)
                continue
        produced_by = _provenance(namespace, found.expected, provenance, reader) \
            if expected is not None and found.expected else None
        records.append(Record(source, found.group, case_id, text, input_bytes, expected,
                              expected_label, produced_by))
    return records


def _chunks(items: _CaseFiles) -> Iterator[_CaseFiles]:
    """`items` in runs whose files hold about `CHUNK_BYTES` (a larger file is a run of its own)."""
    chunk: _CaseFiles = []
    size = 0
    for namespace, found in items:
        bytes_ = sum(namespace.files[name].size for name in (found.input, found.expected) if name)
        if chunk and size + bytes_ > CHUNK_BYTES:
            yield chunk
            chunk, size = [], 0
        chunk.append((namespace, found))
        size += bytes_
    if chunk:
        yield chunk


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def _pending(records: list[Record], stored: dict[str, bytes | None],
             seen: set[str]) -> list[Item]:
    """What to validate: each input neither stored nor `seen` in an earlier chunk, once, and
    every expected output new for its case (`stored`: answer digests by case id)."""
    pending: list[Item] = []
    for index, record in enumerate(records):
        is_new = record.case_id not in stored and record.case_id not in seen
        new_expected = record.expected is not None and _digest(record.expected) != stored.get(
            record.case_id)
        if is_new or new_expected:
            pending.append(Item(index, record.text, record.expected if new_expected else None,
                                record.group))
        if is_new:
            seen.add(record.case_id)
    return pending


def _apply_checks(records: list[Record], checked: dict[int, Checked], summary: ProblemSummary,
                  bad: dict[str, Flaw]) -> list[Record]:
    """The records that passed; each failure is a reject, and so is the same input under its
    other names (`bad`: broken inputs by case id, kept for later chunks)."""
    for index, record in enumerate(records):
        result = checked.get(index)
        if result is None:
            continue
        if result.error is not None:
            where = record.source if result.error.part == "input" else record.expected_label
            assert where is not None  # an expected output that was read has its label
            summary.reject(where, result.error)
            if result.error.part == "input":
                bad[record.case_id] = result.error
            record.case_id = ""
            continue
        record.size, record.size_values = result.size, result.size_values
    for record in records:  # the same input under other names is just as bad
        flaw = bad.get(record.case_id) if record.case_id else None
        if flaw is not None:
            summary.reject(record.source, flaw)
            record.case_id = ""
    return [r for r in records if r.case_id]


# -- putting aside ------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Aside:
    """A record put aside, as the merge sees it: its expected output as a digest (None: none),
    the input and output themselves staying in the `_Spill`, at row `number`."""

    number: int
    source: str
    group: str
    case_id: str
    digest: bytes | None
    expected_label: str | None
    produced_by: str | None
    input_bytes: int
    size: int | None
    size_values: dict[str, int] | None


class _Spill:
    """The records of one problem that passed, put aside in a file until the merge, so that an
    ingest holds one chunk in memory. Each group is three plain pickles (`_Aside`s, inputs,
    expected outputs): no library with threads is loaded before workers are forked."""

    def __init__(self, path: Path) -> None:
        self.path, self.rows = path, 0
        self.starts: list[int] = []    # the first row number of each group
        self.offsets: list[int] = []   # where each group starts in the file
        self._file = open(path, "wb")
        self._expected: tuple[int, list[str | None]] | None = None  # the last group read

    def write(self, records: list[Record]) -> None:
        start, size = 0, 0
        for index, record in enumerate(records):
            size += len(record.text) + len(record.expected or "")
            if size >= SPILL_GROUP_BYTES or index == len(records) - 1:
                group, start, size = records[start:index + 1], index + 1, 0
                asides = [_Aside(self.rows + n, r.source, r.group, r.case_id,
                                 None if r.expected is None else _digest(r.expected),
                                 r.expected_label, r.produced_by, r.input_bytes, r.size,
                                 r.size_values) for n, r in enumerate(group)]
                self.starts.append(self.rows)
                self.offsets.append(self._file.tell())
                for part in (asides, [r.text for r in group], [r.expected for r in group]):
                    data = pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
                    self._file.write(len(data).to_bytes(8, "little"))
                    self._file.write(data)
                self.rows += len(group)

    def close(self) -> None:
        self._file.close()

    def _parts(self, index: int, *wanted: int) -> list[list]:
        """Parts `wanted` of group `index` (0: rows, 1: inputs, 2: expected outputs)."""
        found = []
        with open(self.path, "rb") as handle:
            handle.seek(self.offsets[index])
            for part in range(max(wanted) + 1):
                length = int.from_bytes(handle.read(8), "little")
                if part in wanted:
                    found.append(pickle.loads(handle.read(length)))
                else:
                    handle.seek(length, 1)
        return found

    def read(self) -> Iterator[_Aside]:
        for index in range(len(self.starts)):
            yield from self._parts(index, 0)[0]

    def read_whole(self) -> Iterator[tuple[_Aside, str, str | None]]:
        """Every record put aside, with its input and expected output."""
        for index in range(len(self.starts)):
            yield from zip(*self._parts(index, 0, 1, 2))

    def expected(self, number: int) -> str | None:
        """The expected output of row `number` (its group's kept: rows are asked for in order)."""
        index = bisect.bisect_right(self.starts, number) - 1
        if self._expected is None or self._expected[0] != index:
            self._expected = index, self._parts(index, 2)[0]
        return self._expected[1][number - self.starts[index]]

    __iter__ = read  # (read more than once: the package's cases before and after the merge)


# -- merging ------------------------------------------------------------------------------------

def _first_difference_line(expected: str, got: str) -> int:
    for number, (a, b) in enumerate(zip(expected.split("\n"), got.split("\n")), start=1):
        if a.split() != b.split():
            return number
    return min(expected.count("\n"), got.count("\n")) + 1


def stored_digests(data_dir: Path, problem_id: str) -> dict[str, bytes | None]:
    """The digest of each stored case's expected output (None: none), a row group at a time."""
    path = problem_file(data_dir, "cases", problem_id)
    if not path.exists():  # (Polars and Arrow not loaded: the validating workers are forked)
        return {}
    from pipeline.problems import cases_schema
    from pipeline.tables.files import read_batches

    return {case_id: None if expected is None else _digest(expected)
            for batch in read_batches(path, cases_schema(), ["case_id", "expected"])
            for case_id, expected in zip(batch["case_id"], batch["expected"])}


# The columns an ingest may change in a stored row (the rest stay as they were stored).
MERGED_COLUMNS = ("case_id", "source", "sources", "group", "groups", "expected",
                  "expected_source", "package_sources")


@dataclass
class _Merged:
    """What merging did to a problem's table: each row's merged columns (its answer as a digest
    and where to read it, `expected_at`), rows changed, removed, started and given answers."""

    rows: dict[str, dict]
    touched: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    creators: set[int] = field(default_factory=set)
    given: dict[str, int] = field(default_factory=dict)

    def give(self, case_id: str, record: _Aside) -> None:
        """Row `case_id` takes the expected output of `record`."""
        row = self.rows[case_id]
        row["digest"], row["expected_source"] = record.digest, record.produced_by
        row["expected_at"] = ("spill", record.number)
        self.given[case_id] = record.number
        self.touched.add(case_id)


def _expected_of(row: dict, stored_path: Path, spill: _Spill) -> str:
    import polars as pl

    kind, key = row["expected_at"]
    if kind == "spill":
        found = spill.expected(key)
        assert found is not None  # a row's answer is put aside with the record it came from
        return found
    return pl.scan_parquet(stored_path).filter(pl.col("case_id") == key).select(
        "expected").collect()["expected"][0]


def _merge(problem: Problem, merged: _Merged, record: _Aside, stored_path: Path,
           spill: _Spill, summary: ProblemSummary) -> None:
    case_id = record.case_id
    row = merged.rows.get(case_id)
    if row is None:
        merged.rows[case_id] = {
            "case_id": case_id, "source": record.source, "sources": [record.source],
            "group": record.group, "groups": [record.group], "digest": record.digest,
            "expected_at": None if record.digest is None else ("spill", record.number),
            "expected_source": record.produced_by, "package_sources": None}
        merged.creators.add(record.number)
        merged.touched.add(case_id)
        summary.added += 1
        return
    if record.digest is not None and row["digest"] is not None \
            and row["digest"] != record.digest:
        stored = _expected_of(row, stored_path, spill)
        expected = spill.expected(record.number)
        assert expected is not None and record.expected_label is not None  # (it has a digest)
        if (difference := problem.compare(stored, expected)) is not None:
            summary.conflicts += 1
            summary.reject(record.expected_label, Flaw(
                "expected", _first_difference_line(stored, expected), None, "conflict",
                f"expected output differs from the stored answer of the same input (from "
                f"{row['source']}): {difference}"))
            return
    if record.digest is not None and row["digest"] is None:
        merged.give(case_id, record)  # (which marks the row touched)
        summary.expected_added += 1
    groups = row.get("groups") or [row["group"]]
    if record.group not in groups:
        row["groups"] = [*groups, record.group]
        merged.touched.add(case_id)
    if record.source in row["sources"]:
        summary.unchanged += 1
    else:
        row["sources"] = [*row["sources"], record.source]
        summary.duplicates += 1
        merged.touched.add(case_id)


def _column(name: str, values: list, dtype: pl.DataType) -> pl.Series:
    """One column of `_rewritten` (a list column of one-item lists built from its items: faster)."""
    import polars as pl

    if isinstance(dtype, pl.List) and values and all(
            isinstance(v, list) and len(v) == 1 for v in values):
        return pl.Series(name, [v[0] for v in values], dtype=dtype.inner).to_frame().select(
            pl.concat_list(name)).to_series()
    return pl.Series(name, values, dtype=dtype, strict=False)


def _rewritten(batch: pl.DataFrame, merged: _Merged, spill: _Spill | None,
               schema: dict) -> pl.DataFrame:
    """A row group of the stored table, its removed rows dropped and changed rows merged."""
    import polars as pl

    ids = batch["case_id"].to_list()
    if not any(c in merged.touched or c in merged.removed for c in ids):
        return batch
    columns = {name: [merged.rows[c].get(name) if c in merged.touched else o
                      for c, o in zip(ids, batch[name].to_list())]
               for name in ("source", "sources", "group", "groups", "expected_source",
                            "package_sources")}
    # in the order they were put aside: a group of them read once
    given = {} if spill is None else {n: spill.expected(n) for n in sorted(
        merged.given[c] for c in ids if c in merged.given)}
    old = batch["expected"].to_list()
    columns["expected"] = [given[merged.given[c]] if c in merged.given else o
                           for c, o in zip(ids, old)]
    batch = batch.with_columns([_column(name, values, schema[name])
                                for name, values in columns.items()])
    if merged.removed:
        batch = batch.filter(~pl.col("case_id").is_in(list(merged.removed)))
    return batch


def _added(problem: Problem, spill: _Spill, merged: _Merged, schema: dict,
           when) -> Iterator[Any]:
    """The new rows, in the order found, as Arrow tables of about `BATCH_BYTES` (their texts
    copied once, from the records put aside into the table written)."""
    from pipeline.tables.files import BATCH_BYTES, arrow_schema, arrow_table

    types = arrow_schema(schema)
    rows: list[dict] = []
    held = 0  # bytes of text in `rows`
    for record, text, expected in spill.read_whole():
        if record.number not in merged.creators:
            continue
        row = merged.rows[record.case_id]
        size, size_values = record.size, record.size_values
        if size is None:  # stored when it was read, gone since: measure it now
            case = problem.parse(text)
            size, size_values = problem.size(case), dict(problem.size_values(case))
        if record.case_id in merged.given:
            expected = spill.expected(merged.given[record.case_id])
        rows.append({
            "problem": problem.id, "case_id": record.case_id, "source": row["source"],
            "sources": row["sources"], "group": row["group"], "groups": row["groups"],
            "input": text, "expected": expected, "expected_source": row["expected_source"],
            "size": size, "input_bytes": record.input_bytes, "ingested_at": when,
            "package_sources": row.get("package_sources"), **(size_values or {})})
        held += len(text) + len(expected or "")
        if held >= BATCH_BYTES:
            yield arrow_table(rows, types)
            rows, held = [], 0
    if rows:
        yield arrow_table(rows, types)


def _store(data_dir: Path, problem: Problem, spill: _Spill | None, summary: ProblemSummary,
           scanned: set[str], when, package_labels: set[str] | None = None) -> None:
    """Merge into the tables as they are now (call under the data folder's lock).

    1. Stored rows are read by their `MERGED_COLUMNS` alone (answers as digests).
    2. When the problem's package was ingested (`package_labels`), they are brought to its
       current cases (`packagecases`).
    3. The records put aside are merged, and the package's sources of each row marked.
    4. Only a changed table is rewritten, once, a row group at a time: untouched rows carried
       over as stored, removed rows left out, new rows last."""
    import polars as pl

    from pipeline.problems import cases_schema
    from pipeline.tables import files
    from pipeline.tables.schemas import REJECTS

    schema = cases_schema()
    path = problem_file(data_dir, "cases", problem.id)
    rows: dict[str, dict] = {}
    for batch in files.read_batches(path, schema, list(MERGED_COLUMNS)):
        for row in batch.iter_rows(named=True):
            expected = row.pop("expected")
            row["digest"] = None if expected is None else _digest(expected)
            row["expected_at"] = None if expected is None else ("stored", row["case_id"])
            rows[row["case_id"]] = row
    merged = _Merged(rows)
    records: Iterable[_Aside] = spill if spill is not None else ()
    if package_labels is not None:  # (a package left with no case has no spill)
        def differs(row: dict, record: _Aside) -> bool:
            assert spill is not None  # a record to compare with was put aside
            return problem.compare(_expected_of(row, path, spill),
                                   spill.expected(record.number) or "") is not None

        package = replace_package_cases(rows, records, package_labels, differs)
        merged.touched |= package.touched - package.removed
        merged.removed = package.removed
        for case_id, record in package.answers.items():
            merged.give(case_id, record)
        summary.removed, summary.answers_replaced = len(package.removed), len(package.answers)
    if spill is not None:
        for record in records:
            _merge(problem, merged, record, path, spill, summary)
    if package_labels is not None:
        merged.touched |= mark_package_sources(rows, records, package_labels)
    if merged.touched or merged.removed:
        def batches() -> Iterator[pl.DataFrame | Any]:
            for batch in files.read_batches(path, schema):
                yield _rewritten(batch, merged, spill, schema)
            if spill is not None:
                yield from _added(problem, spill, merged, schema, when)

        files.write_batches_atomic(path, batches(), schema)
    rejects_path = problem_file(data_dir, "rejects", problem.id)
    old = files.read_file(rejects_path, REJECTS)
    # every reject's source was looked at (a fault's, a package's, a file's read)
    looked_at = scanned | (package_labels or set()) | {r["source"] for r in summary.rejects}
    kept = old.filter(~pl.col("source").is_in(list(looked_at)))
    merged_rejects = pl.concat([kept, pl.DataFrame(
        [{**reject, "ingested_at": when} for reject in summary.rejects], schema=REJECTS,
        strict=False)])
    # ingested_at aside: the same rejects found again leave the file as it was
    key = ["source", "line", "column", "rule", "message"]
    if merged_rejects.height != old.height or not merged_rejects.select(key).sort(
            key, nulls_last=True).equals(old.select(key).sort(key, nulls_last=True)):
        files.write_problem_file(data_dir, "rejects", problem.id, merged_rejects, REJECTS)


# -- problem packages ---------------------------------------------------------------------------

def _package_namespace(found: FoundPackage, data_dir: Path,
                       summary: IngestSummary) -> tuple[Namespace, list[FoundCase]] | None:
    """Register the package (unless it is the data folder's own copy) and lay out its test
    cases as a namespace; an unusable package, a case it could not make and a file left out
    (never read: a link out of the package, a pipe) are rejects."""
    from pipeline.problems import load_found_package

    try:
        package, what, notes = load_found_package(found.path, data_dir, found.problem,
                                                  registered=found.registered)
        if what is not None:
            summary.packages.append(PackageNote(found.problem, found.label, what))
        summary.packages += [PackageNote(found.problem, found.label, f"note: {note}")
                             for note in notes]
    except PackageError as error:
        summary.unplaced.append(Fault(found.label, error.rule, str(error), None))
        return None
    if not package.cases:
        summary.caseless.append(found.problem)
    part = summary.part(found.problem)
    for unused in (*package.rejects, *package.left_out):
        part.reject(f"{found.label}/{unused.file}", unused)
    namespace = Namespace(found.problem)
    cases = []
    for case in package.cases:
        paths = [case.input_path] + ([case.answer_path] if case.answer_path else [])
        keys = []
        for path in paths:
            try:
                key = path.relative_to(package.root).as_posix()
            except ValueError:  # a test the package's generator made outside its folder
                key = f"generated/{case.name}{path.suffix}"
            namespace.files[key] = Source(str(path), None, path.stat().st_size,
                                          f"{found.label}/{key}")
            keys.append(key)
        cases.append(FoundCase(keys[0], keys[1] if len(keys) > 1 else None, case.group))
    return namespace, cases


# -- the ingest ---------------------------------------------------------------------------------

def ingest(data_dir: Path, roots: list[Path], problem_override: str | None = None,
           progress: Callable[..., None] | None = None, *, jobs: int | None = None,
           max_file_mb: float = DEFAULT_MAX_FILE_MB, wait: bool = True,
           names: Mapping[Path, str] | None = None) -> IngestSummary:
    """Ingest every case under `roots` into the tables of `data_dir` (`names`: the problem a
    package root registers as, where not as it is named, or as `problem_override` says)."""
    _return_freed_memory()  # from the first file read: the walk reads them too
    add_problem_dirs([registered_dir(data_dir)])
    ids = frozenset(problem_ids())
    module_ids = frozenset(module_problem_ids())
    when = now()
    summary = IngestSummary()
    work: defaultdict[str, _CaseFiles] = defaultdict(list)
    scanned: defaultdict[str, set[str]] = defaultdict(set)
    packages: list[FoundPackage] = []
    package_labels: defaultdict[str, set[str]] = defaultdict(set)  # every source its package has
    for root in roots:
        found = scan(Path(root), (names or {}).get(Path(root)) or problem_override, ids,
                     module_ids)
        packages.extend(found.packages)
        for fault in found.faults:
            if fault.problem is None:
                summary.unplaced.append(fault)
                continue
            summary.part(fault.problem).reject(fault.label, fault)
        for namespace in found.namespaces:
            discovery = find_cases(namespace.files)
            if namespace.problem is None:
                summary.unknown.extend(s.label for s in namespace.files.values())
                continue
            summary.part(namespace.problem).skipped.update(skipped_kind(p)
                                                           for p in discovery.skipped)
            scanned[namespace.problem].update(s.label for s in namespace.files.values())
            work[namespace.problem].extend((namespace, case) for case in discovery.cases)
    if problem_override and problem_override not in ids and not packages:
        raise UnknownName(f"unknown problem {problem_override!r} (and no problem package "
                          f"under {', '.join(str(r) for r in roots)} to register under that "
                          f"name); known problems: {', '.join(sorted(ids))}")
    held: list[FoundPackage] = []  # packages laid out: asked for their checks once stored
    if packages:
        with data_lock(data_dir, wait=wait):
            refused: dict[str, tuple[str, str]] = {}
            for package in packages:
                laid_out = _package_namespace(package, data_dir, summary)
                if laid_out is None:  # (its fault is the last unplaced)
                    if not package.registered:
                        refused[package.problem] = (str(Path(package.path).resolve()),
                                                    summary.unplaced[-1].message)
                    continue
                held.append(package)
                namespace, cases = laid_out
                package_labels[package.problem].update(s.label for s in namespace.files.values())
                work[package.problem].extend((namespace, c) for c in cases)
            record_refused(data_dir, refused, {p.problem for p in held})
    if not summary.problems:
        return summary
    spill_dir = Path(data_dir) / "tables"
    spill_dir.mkdir(parents=True, exist_ok=True)
    spill_dir = Path(tempfile.mkdtemp(prefix=".ingest-", dir=spill_dir))
    try:
        spills = _read_and_validate(data_dir, work, summary, spill_dir, progress, jobs,
                                    int(max_file_mb * (1 << 20)))
        import pyarrow as pa

        from pipeline.problems import cases_schema
        from pipeline.tables.files import migrate
        from pipeline.tables.schemas import REJECTS

        pa.set_memory_pool(pa.system_memory_pool())  # Arrow's freed memory returned as well

        with data_lock(data_dir, wait=wait):
            # Files written before a schema change are brought up to it, once per ingest.
            migrate(data_dir, "cases", cases_schema())
            migrate(data_dir, "rejects", REJECTS)
            for problem_id, part in summary.problems.items():
                _store(data_dir, get_problem(problem_id), spills.get(problem_id), part,
                       scanned.get(problem_id, set()), when, package_labels.get(problem_id))
    finally:
        shutil.rmtree(spill_dir, ignore_errors=True)
    for package in held:
        _check_after_ingest(package, summary)
    return summary


def _return_freed_memory() -> None:
    """Have what an ingest frees go back to the system (allocations of 128 KiB or more from
    pages unmapped when freed; Arrow's too, once its pool is the C library's), so chunks do not
    raise its size."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None)  # this process's own symbols: finding libc by name runs ldconfig
        libc.mallopt(-3, 128 << 10)  # M_MMAP_THRESHOLD (glibc; elsewhere this is a no-op)


def _read_and_validate(data_dir: Path, work: dict[str, _CaseFiles], summary: IngestSummary,
                       spill_dir: Path, progress: Callable[..., None] | None, jobs: int | None,
                       limit_bytes: int) -> dict[str, _Spill]:
    """Read and validate every problem's items a chunk at a time, putting aside what passed
    in a `_Spill` per problem; what failed is a reject in `summary`."""
    total = sum(len(items) for items in work.values())
    done = [0]
    spills: dict[str, _Spill] = {}
    # one pool of validating workers for every chunk
    with contextlib.closing(SourceReader()) as reader, Pools() as pools:
        for problem_id, items in work.items():
            problem = get_problem(problem_id)
            part = summary.problems[problem_id]
            stored = stored_digests(data_dir, problem_id)
            seen: set[str] = set()
            bad: dict[str, Flaw] = {}
            with contextlib.closing(_Spill(spill_dir / f"{problem_id}.records")) as spill:
                spills[problem_id] = spill
                for chunk in _chunks(items):
                    records = _read_problem(problem, chunk, part, reader, limit_bytes, progress,
                                            done, total)
                    checked = validate_all(problem_id, _pending(records, stored, seen), jobs,
                                           lambda: import_module("pipeline.tables.files"), pools)
                    spill.write(_apply_checks(records, checked, part, bad))
                    del records, checked
    return spills


def _check_after_ingest(found: FoundPackage, summary: IngestSummary) -> None:
    """The package's own checks once its cases are stored: a note each, never a failure."""
    try:
        judge = get_problem(found.problem).package_judge
        notes = judge.check_after_ingest() if judge is not None else []
    except Exception as error:  # the cases are stored: a fault here must not fail the ingest
        notes = [f"its checks after the ingest failed ({type(error).__name__}: "
                 f"{str(error)[:200]}): a run makes them"]
    summary.packages.extend(PackageNote(found.problem, found.label, f"note: {note}")
                            for note in notes)


def nothing_stored_reason(summary: IngestSummary, roots: list[Path]) -> str | None:
    """Why an ingest that stored nothing is a failure, or None (a package with no test data)."""
    if summary.found or any(p.rejects for p in summary.problems.values()) or summary.caseless:
        return None
    where = ", ".join(str(r) for r in roots)
    if summary.unknown:
        return (f"{len(summary.unknown)} files under {where} are in folders that name no "
                f"problem (e.g. {summary.unknown[0]}): put them under raw/<problem>/ or give "
                f"--problem; known problems: {', '.join(problem_ids())}")
    if summary.unplaced:  # said above, one reject a line; even --allow-rejects fails then
        first = summary.unplaced[0]
        return (f"nothing could be used: {_plural(len(summary.unplaced), 'reject')} (the "
                f"first: {first.label}, rule {first.rule})")
    skipped = sum(sum(p.skipped.values()) for p in summary.problems.values())
    return (f"no test files found under {where}" +
            (f" ({skipped} files that belong to no case)" if skipped else ""))


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def format_summary(summary: IngestSummary, show_rejects: int = 10) -> str:
    """The console summary: one line per problem, then the first rejects as file:line."""
    lines = [f"{note.problem}: {note.text} ({note.label})" for note in summary.packages]
    for p in summary.problems.values():
        skipped = sum(p.skipped.values())
        kinds = ", ".join(f"{n} {kind}" for kind, n in p.skipped.most_common())
        lines.append(
            f"{p.problem}: {_plural(p.files_read, 'file')} read ({_plural(p.found, 'input')}"
            f"); cases: {p.added:,} added, {p.unchanged:,} already stored, {p.duplicates:,} "
            f"duplicate{'' if p.duplicates == 1 else 's'} (same input, another name), "
            f"{p.expected_added:,} expected answers added, {len(p.rejects):,} rejected "
            f"({p.conflicts:,} conflicts)"
            + (f"; {p.removed:,} removed (no longer in its package)" if p.removed else "")
            + (f"; {p.answers_replaced:,} expected answers replaced by its package's"
               if p.answers_replaced else "")
            + (f"; skipped {_plural(skipped, 'file')} ({kinds})" if skipped else ""))
    if summary.unknown:
        lines.append(f"{_plural(len(summary.unknown), 'file')} under folders that name no "
                     f"problem (use --problem), e.g. {summary.unknown[0]}")
    lines += [f"  reject {fault.label}: {fault.message} [{fault.rule}]"
              for fault in summary.unplaced[:show_rejects]]
    rejects = [r for p in summary.problems.values() for r in p.rejects]
    for reject in rejects[:show_rejects]:
        where = f"{reject['source']}:{reject['line']}" if reject["line"] else reject["source"]
        lines.append(f"  reject {where}: {reject['message']} [{reject['rule']}]")
    if len(rejects) > show_rejects:
        lines.append(f"  ... and {len(rejects) - show_rejects} more (pipeline query "
                     "\"SELECT * FROM rejects\")")
    return "\n".join(lines)
