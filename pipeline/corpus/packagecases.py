"""A problem package's cases as the package has them now: what an ingest of it replaces
(docs/commands.md, `pipeline ingest`). `replace_package_cases` drops the sources it no longer
has and gives its answer to rows only it supplies; `mark_package_sources` then records its
sources. Answers are held as digests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PackagePass:
    """What `replace_package_cases` changed: rows to rewrite, rows to drop, and the package's
    record whose answer each replaced row takes (by case id)."""

    touched: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    answers: dict[str, Any] = field(default_factory=dict)


def replace_package_cases(rows: dict[str, dict], records: Iterable, package_labels: set[str],
                          differs: Callable[[dict, Any], bool]) -> PackagePass:
    """Bring `rows` (case id -> stored row, changed in place) to the package's cases among
    `records` (read once); `differs`: whether two answers differ by the problem's comparison.
    Returns the rows changed and removed, and the records whose answers replaced stored ones."""
    done = PackagePass()
    current: set[str] = set()
    answers: dict[str, Any] = {}  # the package's first record with an answer, by case
    found: set[str] = set()
    for record in records:
        found.add(record.case_id)
        if record.source in package_labels:
            current.add(record.source)
            if record.digest is not None:
                answers.setdefault(record.case_id, record)
    for case_id, row in rows.items():
        old = row.get("package_sources") or []
        if stale := [s for s in old if s not in current]:
            row["sources"] = [s for s in row["sources"] if s not in stale]
            row["package_sources"] = [s for s in old if s not in stale]
            done.touched.add(case_id)
            if not row["sources"] and case_id not in found:
                done.removed.add(case_id)
                continue
            if row["sources"] and row["source"] not in row["sources"]:
                row["source"] = row["sources"][0]
        record = answers.get(case_id)
        own = set(old) | current
        if record is not None and row["digest"] is not None \
                and record.digest != row["digest"] \
                and all(s in own for s in row["sources"]) and differs(row, record):
            row["digest"], row["expected_source"] = record.digest, record.produced_by
            done.answers[case_id] = record
            done.touched.add(case_id)
    return done


def mark_package_sources(rows: dict[str, dict], records: Iterable,
                         package_labels: set[str]) -> set[str]:
    """After the merge: record in each row which of its sources are the package's, and give a
    row whose every source is the package's its groups and first source; returns the case ids
    of the rows changed. `records` is read once."""
    touched: set[str] = set()
    groups: dict[str, list[str]] = {}
    for record in records:
        row = rows.get(record.case_id)
        if row is None or record.source not in package_labels \
                or record.source not in row["sources"]:
            continue
        found = groups.setdefault(record.case_id, [])
        if record.group not in found:
            found.append(record.group)
        marked = row.get("package_sources") or []
        if record.source not in marked:
            row["package_sources"] = [*marked, record.source]
            touched.add(record.case_id)
    for case_id, found in groups.items():
        row = rows[case_id]
        if row["source"] not in row["sources"]:
            row["source"] = row["sources"][0]
            touched.add(case_id)
        if all(s in row["package_sources"] for s in row["sources"]) \
                and (row.get("groups") != found or row["group"] not in found):
            row["groups"] = found
            row["group"] = row["group"] if row["group"] in found else found[0]
            touched.add(case_id)
    return touched
