"""`pipeline ingest`: find every case under some roots, validate it, store it in tables.

For each problem the ingest reads every input (and expected output) it finds, validates them
with the problem's own parser, and merges the good cases into `tables/cases/<problem>.parquet`
keyed by `case_id` (the SHA-256 of the input with line endings normalised):

- the same input under another name is one case whose `sources` lists both names;
- the same input with a different expected output is a *conflict*: reported, stored as a
  reject row (rule `conflict`), never written over the stored answer;
- re-ingesting the same tree changes nothing.

Bad inputs and bad expected outputs become rows of `tables/rejects/<problem>.parquet` naming
the file, line, column and rule. Rejects of a source are replaced whenever that source is
ingested again, so the table describes the latest look at each file. Tables are written only
at the end, each file atomically, so a kill at any moment leaves the old or the new content.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import polars as pl

from pipeline.corpus.generate import MANIFEST_NAME
from pipeline.corpus.layouts import FoundCase, find_cases
from pipeline.errors import InputError
from pipeline.problems import Problem, get_problem, problem_ids
from pipeline.problems.tokens import normalise_newlines
from pipeline.tables.files import (migrate, now, problem_file, read_file,
                                   write_problem_file)
from pipeline.tables.schemas import REJECTS, cases_schema

Reader = Callable[[], bytes]


@dataclass(frozen=True)
class Namespace:
    """Files that are laid out together: one problem folder on disk, or one zip archive."""

    problem: str | None
    label: Callable[[str], str]  # relative path inside the namespace -> `source` text
    files: dict[str, Reader]


@dataclass
class ProblemSummary:
    problem: str
    found: int = 0
    added: int = 0
    duplicates: int = 0
    unchanged: int = 0
    expected_added: int = 0
    conflicts: int = 0
    rejects: list[dict] = field(default_factory=list)
    skipped: int = 0


@dataclass
class IngestSummary:
    problems: dict[str, ProblemSummary]
    unknown: list[str]  # files under a folder that names no problem

    @property
    def rejected(self) -> int:
        return sum(len(p.rejects) for p in self.problems.values())


def case_id_of(text: str) -> str:
    return hashlib.sha256(normalise_newlines(text).encode("utf-8")).hexdigest()


# -- discovery ---------------------------------------------------------------------------------

def _problem_of(root: Path, rel: PurePosixPath, override: str | None,
                ids: frozenset[str]) -> tuple[str | None, str]:
    """(problem id, path inside that problem's folder) for a file at `rel` under `root`."""
    if override:
        return override, str(rel)
    if root.name in ids:
        return root.name, str(rel)
    first = rel.parts[0]
    name = first[:-4] if first.endswith(".zip") and len(rel.parts) == 1 else first
    if name in ids:
        inner = str(PurePosixPath(*rel.parts[1:])) if len(rel.parts) > 1 else first
        return name, inner
    return None, str(rel)


def _namespaces(root: Path, override: str | None,
                archives: list[zipfile.ZipFile]) -> Iterator[Namespace]:
    ids = frozenset(problem_ids())
    per_problem: dict[str | None, dict[str, Reader]] = {}
    labels: dict[str | None, dict[str, str]] = {}
    if (root / "problem.toml").is_file() and root.name in ids:
        # A problem's own folder: only its samples are test data.
        samples = root / "samples"
        files = sorted(samples.iterdir()) if samples.is_dir() else []
        yield Namespace(override or root.name, lambda inner_path: inner_path,
                        {f"samples/{f.name}": f.read_bytes for f in files if f.is_file()})
        return
    paths = [root] if root.is_file() else None
    if paths is None:
        found = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            found.extend(Path(dirpath) / name for name in sorted(filenames))
    else:
        found, root = paths, root.parent
    for path in found:
        rel = PurePosixPath(path.relative_to(root).as_posix())
        problem, inner = _problem_of(root, rel, override, ids)
        if path.suffix == ".zip":
            archive = zipfile.ZipFile(path)
            archives.append(archive)
            entries = {info.filename: (lambda a=archive, n=info.filename: a.read(n))
                       for info in archive.infolist() if not info.is_dir()}
            prefix = f"{rel}!"
            yield Namespace(problem, lambda inner_path, p=prefix: p + inner_path, entries)
            continue
        per_problem.setdefault(problem, {})[inner] = path.read_bytes
        labels.setdefault(problem, {})[inner] = str(rel)
    for problem, files in per_problem.items():
        names = labels[problem]
        yield Namespace(problem, lambda inner_path, n=names: n[inner_path], files)


# -- validation --------------------------------------------------------------------------------

def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(line, f"byte {data[error.start]:#04x} is not valid UTF-8 text",
                         rule="encoding") from None


def _reject(problem: str, source: str, error: InputError, when) -> dict:
    return {"problem": problem, "source": source, "line": error.line, "column": error.column,
            "rule": error.rule, "message": error.message, "ingested_at": when}


def _expected_provenance(namespace: Namespace, expected_path: str,
                         cache: dict[str, str]) -> str:
    """`file`, or the stage named by a `pipeline generate` manifest beside the file."""
    manifest = str(PurePosixPath(expected_path).parent / MANIFEST_NAME)
    if manifest not in cache:
        reader = namespace.files.get(manifest)
        try:
            cache[manifest] = str(json.loads(reader()).get("expected_from") or "file") \
                if reader else "file"
        except (ValueError, AttributeError):
            cache[manifest] = "file"
    return cache[manifest]


def _first_difference_line(expected: str, got: str) -> int:
    for number, (a, b) in enumerate(zip(expected.split("\n"), got.split("\n")), start=1):
        if a.split() != b.split():
            return number
    return min(expected.count("\n"), got.count("\n")) + 1


def default_roots(data_dir: Path) -> list[Path]:
    """What `pipeline ingest` reads when given no path: `DATA/raw` and every registered
    problem's own folder (of which only the samples are read)."""
    from pipeline.problems import problem_folder

    raw = Path(data_dir) / "raw"
    return ([raw] if raw.exists() else []) + [problem_folder(pid) for pid in problem_ids()]


# -- the ingest --------------------------------------------------------------------------------

def ingest(data_dir: Path, roots: list[Path], problem_override: str | None = None,
           progress: Callable[[int, int], None] | None = None) -> IngestSummary:
    """Ingest every case under `roots` into the tables of `data_dir`."""
    if problem_override:
        get_problem(problem_override)
    when = now()
    archives: list[zipfile.ZipFile] = []
    work: dict[str, list[tuple[Namespace, FoundCase]]] = {}
    summaries: dict[str, ProblemSummary] = {}
    unknown: list[str] = []
    try:
        for root in roots:
            for namespace in _namespaces(Path(root), problem_override, archives):
                discovery = find_cases(namespace.files)
                if namespace.problem is None:
                    unknown.extend(namespace.label(p) for p in namespace.files)
                    continue
                summary = summaries.setdefault(namespace.problem,
                                               ProblemSummary(namespace.problem))
                summary.skipped += len(discovery.skipped)
                work.setdefault(namespace.problem, []).extend(
                    (namespace, found) for found in discovery.cases)
        total = sum(len(items) for items in work.values())
        done = 0
        if work:  # once per ingest: files written before a schema change are brought up to it
            migrate(data_dir, "cases", cases_schema())
            migrate(data_dir, "rejects", REJECTS)
        for problem_id, items in work.items():
            problem = get_problem(problem_id)
            done = _ingest_problem(data_dir, problem, items, summaries[problem_id], when,
                                   progress, done, total)
    finally:
        for archive in archives:
            archive.close()
    return IngestSummary(summaries, unknown)


def _ingest_problem(data_dir: Path, problem: Problem, items: list[tuple[Namespace, FoundCase]],
                    summary: ProblemSummary, when, progress, done: int, total: int) -> int:
    schema = cases_schema()
    cases_path = problem_file(data_dir, "cases", problem.id)
    rejects_path = problem_file(data_dir, "rejects", problem.id)
    stored = read_file(cases_path, schema)
    rows: dict[str, dict] = {row["case_id"]: row for row in stored.iter_rows(named=True)}
    changed = False
    scanned_sources: set[str] = set()
    provenance: dict[int, dict[str, str]] = {}
    for namespace, found in items:
        source = namespace.label(found.input)
        expected_source = namespace.label(found.expected) if found.expected else None
        scanned_sources.update(s for s in (source, expected_source) if s)
        summary.found += 1
        done += 1
        if progress:
            progress(done, total)
        try:
            text = _decode(namespace.files[found.input](), source)
            case_id = case_id_of(text)
            row = rows.get(case_id)
            # A stored input was validated when it was stored: parse only new ones (and an
            # input whose expected output is new, to validate that output against it).
            case = problem.parse(text) if row is None else None
        except InputError as error:
            summary.rejects.append(_reject(problem.id, source, error, when))
            continue
        expected = None
        if found.expected:
            try:
                expected = normalise_newlines(_decode(namespace.files[found.expected](),
                                                      expected_source))
                if row is None or row["expected"] != expected:
                    problem.validate_answer(case if case is not None else problem.parse(text),
                                            expected)
            except InputError as error:
                summary.rejects.append(_reject(problem.id, expected_source, error, when))
                continue
        produced_by = _expected_provenance(namespace, found.expected, provenance.setdefault(
            id(namespace), {})) if expected else None
        if row is None:
            rows[case_id] = {
                "problem": problem.id, "case_id": case_id, "source": source,
                "sources": [source], "group": found.group, "groups": [found.group],
                "input": normalise_newlines(text),
                "expected": expected, "expected_source": produced_by,
                "size": problem.size(case), "input_bytes": len(text.encode("utf-8")),
                "ingested_at": when, **dict(problem.size_values(case)),
            }
            summary.added += 1
            changed = True
            continue
        if expected is not None and row["expected"] is not None \
                and problem.compare(row["expected"], expected) is not None:
            line = _first_difference_line(row["expected"], expected)
            message = (f"expected output differs from the stored answer of the same input "
                       f"(from {row['source']}): {problem.compare(row['expected'], expected)}")
            summary.conflicts += 1
            summary.rejects.append({"problem": problem.id, "source": expected_source,
                                    "line": line, "column": None, "rule": "conflict",
                                    "message": message, "ingested_at": when})
            continue
        if expected is not None and row["expected"] is None:
            row["expected"], row["expected_source"] = expected, produced_by
            summary.expected_added += 1
            changed = True
        groups = row.get("groups") or [row["group"]]
        if found.group not in groups:
            row["groups"] = [*groups, found.group]
            changed = True
        if source in row["sources"]:
            summary.unchanged += 1
        else:
            row["sources"] = [*row["sources"], source]
            summary.duplicates += 1
            changed = True
    if changed:
        frame = pl.DataFrame(list(rows.values()), schema=schema, strict=False)
        write_problem_file(data_dir, "cases", problem.id, frame, schema)
    old_rejects = read_file(rejects_path, REJECTS)
    kept = old_rejects.filter(~pl.col("source").is_in(list(scanned_sources)))
    new_rejects = pl.DataFrame(summary.rejects, schema=REJECTS, strict=False)
    merged = pl.concat([kept, new_rejects])
    if merged.height != old_rejects.height or not _same_rejects(merged, old_rejects):
        write_problem_file(data_dir, "rejects", problem.id, merged, REJECTS)
    return done


def _same_rejects(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    key = ["source", "line", "column", "rule", "message"]
    return a.select(key).sort(key, nulls_last=True).equals(
        b.select(key).sort(key, nulls_last=True))


def format_summary(summary: IngestSummary, show_rejects: int = 10) -> str:
    """The console summary: one line per problem, then the first rejects as file:line."""
    lines = []
    for p in summary.problems.values():
        lines.append(f"{p.problem}: {p.found} cases found, {p.added} added, {p.duplicates} "
                     f"duplicates, {p.unchanged} unchanged, {p.expected_added} expected added, "
                     f"{p.conflicts} conflicts, {len(p.rejects)} rejects, {p.skipped} skipped "
                     "files")
    if summary.unknown:
        lines.append(f"{len(summary.unknown)} files under folders that name no problem "
                     f"(use --problem), e.g. {summary.unknown[0]}")
    rejects = [r for p in summary.problems.values() for r in p.rejects]
    for reject in rejects[:show_rejects]:
        where = f"{reject['source']}:{reject['line']}" if reject["line"] else reject["source"]
        lines.append(f"  reject {where}: {reject['message']} [{reject['rule']}]")
    if len(rejects) > show_rejects:
        lines.append(f"  ... and {len(rejects) - show_rejects} more (pipeline query "
                     "\"SELECT * FROM rejects\")")
    return "\n".join(lines)
