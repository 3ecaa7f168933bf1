"""`pipeline ingest`: find every case under some roots, validate it, store it in tables.

For each problem the ingest reads every input (and expected output) it finds, validates them
with the problem's own parser (on every core when there is much to parse; see `validate`), and
merges the good cases into `tables/cases/<problem>.parquet` keyed by `case_id` (the SHA-256 of
the input with line endings normalised: `pipeline.problems.identity`, the one place a case's
identity is computed):

- the same input under another name is one case whose `sources` lists both names, and whose
  `groups` lists every group it was found in;
- the same input with a different expected output is a *conflict*: reported, stored as a
  reject row (rule `conflict`), never written over the stored answer;
- an input that is stored already is not parsed again (it was validated when it was stored);
- re-ingesting the same tree changes nothing.

Everything that cannot be used becomes a row of `tables/rejects/<problem>.parquet` naming the
file, line, column and rule: a broken input or expected output, a file over the size limit
(`--max-file-mb`, or the problem's own `input_mb`), an unreadable file or folder, a broken link,
a name that is not UTF-8, a corrupt or suspicious archive. Rejects of a source are replaced
whenever that source is looked at again, so the table describes the latest look at each file.

Reading and validating happen without a lock; the merge happens under the data folder's lock
(`pipeline.tables.lock`), re-reading the stored table first, so two ingests at once end with
the union of both. Each file is written atomically: a kill at any moment leaves the old or the
new content.

A problem package's validators are then held to its invalid data (`data/invalid_*`,
`valid_output`), as `bt generate` validates it, and what they make of it is cached in the build
area for the runs (`Problem.check_after_ingest`): last, after the cases are stored, so that it
never costs them. A kind of invalid data the validators disagree with is a `note:` line of the
package; a check that fails is one too, and no failure of the ingest.
"""

from __future__ import annotations

import json
import posixpath
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from pipeline.corpus.generate import MANIFEST_NAME
from pipeline.corpus.layouts import FoundCase, find_cases
from pipeline.corpus.packagecases import mark_package_sources, replace_package_cases
from pipeline.corpus.validate import Checked, Item, validate_all
from pipeline.corpus.walk import (
    Fault,
    FoundPackage,
    Namespace,
    ReadFault,
    Source,
    SourceReader,
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
MESSAGE_CHARS = 400


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
    rejects: list[dict] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)   # files of no case, by kind


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

    @property
    def rejected(self) -> int:
        return sum(len(p.rejects) for p in self.problems.values()) + len(self.unplaced)

    @property
    def found(self) -> int:
        return sum(p.found for p in self.problems.values())


def default_roots(data_dir: Path) -> list[Path]:
    """What `pipeline ingest` reads when given no path: `DATA/raw` and every registered
    problem's own folder (of which only the samples are read)."""
    add_problem_dirs([registered_dir(data_dir)])
    raw = Path(data_dir) / "raw"
    return ([raw] if raw.exists() else []) + [problem_folder(pid) for pid in problem_ids()]


def skipped_kind(path: str) -> str:
    """What a file that belongs to no case probably is (for the summary)."""
    name = PurePosixPath(path).name.lower()
    suffix = PurePosixPath(name).suffix
    if name == MANIFEST_NAME:
        return "generator manifest"
    if name.startswith("."):
        return "hidden"
    if suffix in (".md", ".pdf", ".tex", ".html", ".htm", ".txt", ".rst", ".png", ".jpg",
                  ".svg"):
        return "statement or document"
    if suffix in (".py", ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".java", ".kt", ".rs",
                  ".go", ".sh", ".pl", ".rb", ".js", ".cs", ".pas", ".exe"):
        return "program"
    if suffix in (".yaml", ".yml", ".xml", ".toml", ".json", ".ini", ".cfg"):
        return "configuration"
    return "other"


# -- reading ------------------------------------------------------------------------------------

def _reject(problem: str, source: str, line: int | None, column: int | None, rule: str,
            message: str, when) -> dict:
    if len(message) > MESSAGE_CHARS:
        message = message[:MESSAGE_CHARS] + " ..."
    return {"problem": problem, "source": source, "line": line, "column": column,
            "rule": rule, "message": message, "ingested_at": when}


def _provenance(namespace: Namespace, expected_path: str, cache: dict[str, str],
                reader: SourceReader) -> str:
    """`file`, or the stage named by a `pipeline generate` manifest beside the file."""
    manifest = posixpath.join(posixpath.dirname(expected_path), MANIFEST_NAME)
    if manifest not in cache:
        source = namespace.files.get(manifest)
        try:
            cache[manifest] = str(json.loads(reader.read(source, 1 << 20)).get(
                "expected_from") or "file") if source else "file"
        except (ValueError, AttributeError, ReadFault):
            cache[manifest] = "file"
    return cache[manifest]


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


def _read_problem(problem: Problem, items: list[tuple[Namespace, FoundCase]],
                  summary: ProblemSummary, reader: SourceReader, limit_bytes: int, when,
                  progress: Callable[..., None] | None, done: list[int],
                  total: int) -> list[Record]:
    """Read every input (and expected output) of `items`; what cannot be read is a reject
    in `summary`."""
    limit = limit_bytes
    if problem.input_mb is not None:
        limit = min(limit, int(problem.input_mb * (1 << 20)))
    records: list[Record] = []
    provenance: dict[int, dict[str, str]] = {}
    for namespace, found in items:
        source = namespace.labels[found.input]
        expected_label = namespace.labels[found.expected] if found.expected else None
        summary.found += 1
        done[0] += 1
        if progress:
            progress(done[0], total)
        try:
            summary.files_read += 1
            text, case_id, input_bytes = judge_file(
                reader.read(namespace.files[found.input], limit))
        except ReadFault as fault:
            message = fault.message
            if fault.rule == "too-large" and limit < limit_bytes:
                message += f" ({problem.id}'s inputs are at most {problem.input_mb:g} MB: " \
                           "input_mb in its problem.toml)"
            summary.rejects.append(_reject(problem.id, source, None, None, fault.rule,
                                           message, when))
            continue
        except InputError as error:
            summary.rejects.append(_reject(problem.id, source, error.line, error.column,
                                           error.rule, error.message, when))
            continue
        expected = None
        if found.expected:
            label = namespace.labels[found.expected]
            try:
                summary.files_read += 1
                expected = decode_judge_file(reader.read(namespace.files[found.expected],
                                                         limit_bytes))
            except ReadFault as fault:
                summary.rejects.append(_reject(problem.id, label, None, None,
                                               fault.rule, fault.message, when))
                continue
            except InputError as error:
                summary.rejects.append(_reject(problem.id, label, error.line,
                                               error.column, error.rule, error.message, when))
                continue
        produced_by = _provenance(namespace, found.expected, provenance.setdefault(
            id(namespace), {}), reader) if expected is not None and found.expected else None
        records.append(Record(source, found.group, case_id, text, input_bytes, expected,
                              expected_label, produced_by))
    return records


def _pending(records: list[Record], stored: dict[str, str | None]) -> list[Item]:
    """What to validate: each input not stored yet (each distinct one once), and every
    expected output that is new for its case."""
    first: dict[str, int] = {}
    pending: list[Item] = []
    for index, record in enumerate(records):
        is_new = record.case_id not in stored and record.case_id not in first
        new_expected = record.expected is not None and record.expected != stored.get(
            record.case_id)
        if is_new or new_expected:
            pending.append(Item(index, record.text, record.expected if new_expected else None,
                                record.group))
        if is_new:
            first[record.case_id] = index
    return pending


def _apply_checks(problem: Problem, records: list[Record], checked: dict[int, Checked],
                  summary: ProblemSummary, when) -> list[Record]:
    """The records that passed; each failure becomes a reject (and so does the same input
    under its other names)."""
    for index, record in enumerate(records):
        result = checked.get(index)
        if result is None:
            continue
        if result.error is not None:
            where = record.source if result.error.part == "input" else record.expected_label
            assert where is not None  # an expected output that was read has its label
            summary.rejects.append(_reject(problem.id, where, result.error.line,
                                           result.error.column, result.error.rule,
                                           result.error.message, when))
            if result.error.part == "input":
                for other in records:  # the same input under other names is just as bad
                    if other.case_id == record.case_id and other is not record:
                        summary.rejects.append(_reject(
                            problem.id, other.source, result.error.line, result.error.column,
                            result.error.rule, result.error.message, when))
                        other.case_id = ""
            record.case_id = ""
            continue
        record.size, record.size_values = result.size, result.size_values
    return [r for r in records if r.case_id]


# -- merging ------------------------------------------------------------------------------------

def _first_difference_line(expected: str, got: str) -> int:
    for number, (a, b) in enumerate(zip(expected.split("\n"), got.split("\n")), start=1):
        if a.split() != b.split():
            return number
    return min(expected.count("\n"), got.count("\n")) + 1


def stored_answers(data_dir: Path, problem_id: str) -> dict[str, str | None]:
    """Expected output (or None) of every stored case of a problem, by case id."""
    path = problem_file(data_dir, "cases", problem_id)
    if not path.exists():
        return {}
    from pipeline.problems import cases_schema
    from pipeline.tables.files import read_file

    stored = read_file(path, cases_schema(), ["case_id", "expected"])
    return dict(zip(stored["case_id"], stored["expected"]))


# The columns an ingest may change in a stored row (the rest stay as they were stored).
MERGED_COLUMNS = ("case_id", "source", "sources", "group", "groups", "expected",
                  "expected_source", "package_sources")


def _merge(problem: Problem, rows: dict[str, dict], record: Record, summary: ProblemSummary,
           when) -> str | None:
    """Merge one record into the rows (stored ones hold `MERGED_COLUMNS` only); returns the
    case id of the row it changed, or None."""
    row = rows.get(record.case_id)
    if row is None:
        if record.size is None:  # stored when it was read, gone since: measure it now
            case = problem.parse(record.text)
            record.size, record.size_values = problem.size(case), dict(problem.size_values(case))
        rows[record.case_id] = {
            "problem": problem.id, "case_id": record.case_id, "source": record.source,
            "sources": [record.source], "group": record.group, "groups": [record.group],
            "input": record.text, "expected": record.expected,
            "expected_source": record.produced_by, "size": record.size,
            "input_bytes": record.input_bytes, "ingested_at": when,
            **(record.size_values or {}),
        }
        summary.added += 1
        return record.case_id
    changed = False
    if record.expected is not None and row["expected"] is not None \
            and problem.compare(row["expected"], record.expected) is not None:
        line = _first_difference_line(row["expected"], record.expected)
        assert record.expected_label is not None  # an expected output that was read has one
        summary.conflicts += 1
        summary.rejects.append(_reject(
            problem.id, record.expected_label, line, None, "conflict",
            f"expected output differs from the stored answer of the same input (from "
            f"{row['source']}): {problem.compare(row['expected'], record.expected)}", when))
        return None
    if record.expected is not None and row["expected"] is None:
        row["expected"], row["expected_source"] = record.expected, record.produced_by
        summary.expected_added += 1
        changed = True
    groups = row.get("groups") or [row["group"]]
    if record.group not in groups:
        row["groups"] = [*groups, record.group]
        changed = True
    if record.source in row["sources"]:
        summary.unchanged += 1
    else:
        row["sources"] = [*row["sources"], record.source]
        summary.duplicates += 1
        changed = True
    return record.case_id if changed else None


def _column(name: str, values: list, dtype: pl.DataType) -> pl.Series:
    """One column of `_frame`; a list column of one-item lists (the usual `sources` and
    `groups`) is built from its items, which is many times faster than list by list."""
    import polars as pl

    if isinstance(dtype, pl.List) and values and all(
            isinstance(v, list) and len(v) == 1 for v in values):
        return pl.Series(name, [v[0] for v in values], dtype=dtype.inner).to_frame().select(
            pl.concat_list(name)).to_series()
    return pl.Series(name, values, dtype=dtype, strict=False)


def _frame(rows: list[dict], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Rows as a frame of `schema`, built column by column."""
    import polars as pl

    return pl.DataFrame([_column(name, [row.get(name) for row in rows], dtype)
                         for name, dtype in schema.items()])


def _store(data_dir: Path, problem: Problem, records: list[Record], summary: ProblemSummary,
           scanned: set[str], when, package_labels: set[str] | None = None) -> None:
    """Merge into the tables as they are now (call under the data folder's lock).

    Stored rows are read and looked at by their `MERGED_COLUMNS` alone; only when the ingest
    changes the table is it read whole, and then rows it did not touch are carried over as
    stored (inputs are never converted), every row keeps its place and new rows come last.
    When the problem's package was ingested (`package_labels`: its sources), the stored rows
    are first brought to the package's current cases (`packagecases`): rows it no longer has
    are dropped in the same write."""
    import polars as pl

    from pipeline.problems import cases_schema
    from pipeline.tables.files import read_file, write_problem_file
    from pipeline.tables.schemas import REJECTS

    schema = cases_schema()
    path = problem_file(data_dir, "cases", problem.id)
    rows: dict[str, dict] = {row["case_id"]: row for row in read_file(
        path, schema, list(MERGED_COLUMNS)).iter_rows(named=True)}
    stored_ids = set(rows)
    touched: dict[str, None] = {}
    removed: set[str] = set()
    if package_labels is not None:
        package = replace_package_cases(
            rows, records, package_labels,
            lambda a, b: problem.compare(a, b) is not None)
        touched.update(dict.fromkeys(package.touched - package.removed))
        removed = package.removed
        summary.removed, summary.answers_replaced = len(removed), package.answers_replaced
    for record in records:
        case_id = _merge(problem, rows, record, summary, when)
        if case_id is not None:
            touched[case_id] = None
    if package_labels is not None:
        touched.update(dict.fromkeys(mark_package_sources(rows, records, package_labels)))
    if touched or removed:
        stored = read_file(path, schema)  # whole, now that it is to be rewritten
        changed = [case_id for case_id in touched if case_id in stored_ids]
        indexed = stored.with_row_index("order")
        kept = indexed.filter(~pl.col("case_id").is_in(changed + list(removed)))
        rewritten = (indexed.filter(pl.col("case_id").is_in(changed))
                     .drop(MERGED_COLUMNS[1:])
                     .join(_frame([rows[case_id] for case_id in changed],
                                  {name: schema[name] for name in MERGED_COLUMNS}),
                           on="case_id"))
        added = _frame([rows[case_id] for case_id in touched if case_id not in stored_ids],
                       schema).with_row_index("order", offset=stored.height)
        frame = pl.concat([part.select(kept.columns) for part in (kept, rewritten, added)])
        write_problem_file(data_dir, "cases", problem.id, frame.sort("order").drop("order"),
                           schema)
    rejects_path = problem_file(data_dir, "rejects", problem.id)
    old = read_file(rejects_path, REJECTS)
    kept = old.filter(~pl.col("source").is_in(list(scanned)))
    merged = pl.concat([kept, pl.DataFrame(summary.rejects, schema=REJECTS, strict=False)])
    if merged.height != old.height or not _same_rejects(merged, old):
        write_problem_file(data_dir, "rejects", problem.id, merged, REJECTS)


def _same_rejects(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    key = ["source", "line", "column", "rule", "message"]
    return a.select(key).sort(key, nulls_last=True).equals(
        b.select(key).sort(key, nulls_last=True))


# -- problem packages ---------------------------------------------------------------------------

def _package_namespace(found: FoundPackage, data_dir: Path, summary: IngestSummary,
                       when) -> tuple[Namespace, list[FoundCase]] | None:
    """Register the package (unless it is the data folder's own copy) and lay out its test
    cases as a namespace; a package that cannot be used is a reject naming its file, and so
    is each test case its generators.yaml could not make and each file of it that was left
    out unread (its label is among the namespace's labels, so that a later look at the
    package replaces the reject)."""
    from pipeline.problems import load_found_package

    try:
        package, what, notes = load_found_package(found.path, data_dir, found.problem,
                                                  registered=found.registered)
        if what is not None:
            summary.packages.append(PackageNote(found.problem, found.label, what))
        for note in notes:
            summary.packages.append(PackageNote(found.problem, found.label, f"note: {note}"))
    except PackageError as error:
        summary.unplaced.append(Fault(found.label, error.rule, str(error), None))
        return None
    if not package.cases:
        summary.caseless.append(found.problem)
    if package.rejects:
        part = summary.problems.setdefault(found.problem, ProblemSummary(found.problem))
        part.rejects.extend(_reject(found.problem, f"{found.label}/{error.file}", error.line,
                                    None, error.rule, error.message, when)
                            for error in package.rejects)
    namespace = Namespace(found.problem)
    part = summary.problems.setdefault(found.problem, ProblemSummary(found.problem))
    for left in package.left_out:  # never read: a link out of the package, a pipe
        label = f"{found.label}/{left.file}"
        part.rejects.append(_reject(found.problem, label, left.line, None, left.rule,
                                    left.message, when))
        namespace.labels[left.file] = label
    cases = []
    for case in package.cases:
        paths = [case.input_path] + ([case.answer_path] if case.answer_path else [])
        keys = []
        for path in paths:
            try:
                key = path.relative_to(package.root).as_posix()
            except ValueError:  # a test the package's generator made outside its folder
                key = f"generated/{case.name}{path.suffix}"
            namespace.files[key] = Source(str(path), None, path.stat().st_size)
            namespace.labels[key] = f"{found.label}/{key}"
            keys.append(key)
        cases.append(FoundCase(keys[0], keys[1] if len(keys) > 1 else None, case.group))
    return namespace, cases


# -- the ingest ---------------------------------------------------------------------------------

def ingest(data_dir: Path, roots: list[Path], problem_override: str | None = None,
           progress: Callable[..., None] | None = None, *, jobs: int | None = None,
           max_file_mb: float = DEFAULT_MAX_FILE_MB, wait: bool = True) -> IngestSummary:
    """Ingest every case under `roots` into the tables of `data_dir`."""
    add_problem_dirs([registered_dir(data_dir)])
    ids = frozenset(problem_ids())
    module_ids = frozenset(module_problem_ids())
    when = now()
    summary = IngestSummary()
    work: dict[str, list[tuple[Namespace, FoundCase]]] = {}
    scanned: dict[str, set[str]] = {}
    packages: list[FoundPackage] = []
    package_labels: dict[str, set[str]] = {}  # problem -> every source its package has now
    for root in roots:
        found = scan(Path(root), problem_override, ids, module_ids)
        packages.extend(found.packages)
        for fault in found.faults:
            if fault.problem is None:
                summary.unplaced.append(fault)
                continue
            part = summary.problems.setdefault(fault.problem, ProblemSummary(fault.problem))
            part.rejects.append(_reject(fault.problem, fault.label, None, None, fault.rule,
                                        fault.message, when))
            scanned.setdefault(fault.problem, set()).add(fault.label)
        for namespace in found.namespaces:
            discovery = find_cases(namespace.files)
            if namespace.problem is None:
                summary.unknown.extend(namespace.labels[p] for p in namespace.files)
                continue
            part = summary.problems.setdefault(namespace.problem,
                                               ProblemSummary(namespace.problem))
            part.skipped.update(skipped_kind(p) for p in discovery.skipped)
            scanned.setdefault(namespace.problem, set()).update(namespace.labels.values())
            work.setdefault(namespace.problem, []).extend(
                (namespace, case) for case in discovery.cases)
    if problem_override and problem_override not in ids and not packages:
        raise UnknownName(f"unknown problem {problem_override!r} (and no problem package "
                          f"under {', '.join(str(r) for r in roots)} to register under that "
                          f"name); known problems: {', '.join(sorted(ids))}")
    held: list[FoundPackage] = []  # packages laid out: asked for their checks once stored
    if packages:
        with data_lock(data_dir, wait=wait):
            for package in packages:
                laid_out = _package_namespace(package, data_dir, summary, when)
                if laid_out is None:
                    continue
                held.append(package)
                namespace, cases = laid_out
                part = summary.problems.setdefault(package.problem,
                                                   ProblemSummary(package.problem))
                scanned.setdefault(package.problem, set()).update(namespace.labels.values())
                package_labels.setdefault(package.problem, set()).update(
                    namespace.labels.values())
                scanned[package.problem].update(r["source"] for r in part.rejects)
                work.setdefault(package.problem, []).extend((namespace, c) for c in cases)
    total = sum(len(items) for items in work.values())
    done = [0]
    reader = SourceReader()
    records: dict[str, list[Record]] = {}
    pending: dict[str, list[Item]] = {}
    try:
        for problem_id, items in work.items():
            records[problem_id] = _read_problem(
                get_problem(problem_id), items, summary.problems[problem_id], reader,
                int(max_file_mb * (1 << 20)), when, progress, done, total)
            pending[problem_id] = _pending(records[problem_id],
                                           stored_answers(data_dir, problem_id))
    finally:
        reader.close()
    checked = validate_all(pending, jobs, meanwhile=lambda: import_module("pipeline.tables.files"))
    for problem_id, problem_records in records.items():
        records[problem_id] = _apply_checks(get_problem(problem_id), problem_records,
                                            checked[problem_id], summary.problems[problem_id],
                                            when)
    if not summary.problems:
        return summary
    from pipeline.problems import cases_schema
    from pipeline.tables.files import migrate
    from pipeline.tables.schemas import REJECTS

    with data_lock(data_dir, wait=wait):
        # Files written before a schema change are brought up to it, once per ingest.
        migrate(data_dir, "cases", cases_schema())
        migrate(data_dir, "rejects", REJECTS)
        for problem_id, part in summary.problems.items():
            _store(data_dir, get_problem(problem_id), records.get(problem_id, []), part,
                   scanned.get(problem_id, set()), when, package_labels.get(problem_id))
    for package in held:
        _check_after_ingest(package, summary)
    return summary


def _check_after_ingest(found: FoundPackage, summary: IngestSummary) -> None:
    """The package's own checks once its cases are stored (`Problem.check_after_ingest`: its
    validators held to its invalid data), a note for each thing they found; a check that fails
    is a note, not a failure."""
    try:
        notes = get_problem(found.problem).check_after_ingest()
    except Exception as error:  # the cases are stored: a fault here must not fail the ingest
        notes = [f"its checks after the ingest failed ({type(error).__name__}: "
                 f"{str(error)[:200]}): a run makes them"]
    summary.packages.extend(PackageNote(found.problem, found.label, f"note: {note}")
                            for note in notes)


def nothing_stored_reason(summary: IngestSummary, roots: list[Path]) -> str | None:
    """Why an ingest that stored nothing it could have is a failure, or None when it is not
    (a package without test data, registered with a note saying so, is no failure)."""
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
    for fault in summary.unplaced[:show_rejects]:
        lines.append(f"  reject {fault.label}: {fault.message} [{fault.rule}]")
    rejects = [r for p in summary.problems.values() for r in p.rejects]
    for reject in rejects[:show_rejects]:
        where = f"{reject['source']}:{reject['line']}" if reject["line"] else reject["source"]
        lines.append(f"  reject {where}: {reject['message']} [{reject['rule']}]")
    if len(rejects) > show_rejects:
        lines.append(f"  ... and {len(rejects) - show_rejects} more (pipeline query "
                     "\"SELECT * FROM rejects\")")
    return "\n".join(lines)
