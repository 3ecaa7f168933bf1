"""Registering a judge's problem package in the data folder, so it is a problem like any other.

`register` copies the package to `DATA/problems/<short name>/package/` with `package.json`
beside it (format, origin, file digests, `source_stamp`), swapped in by renames so a crash
leaves the old or the new copy (the caller holds the data folder's lock).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from pipeline.errors import PackageError
from pipeline.fsutil import atomic_write_text, file_sha256
from pipeline.packages import detect, load_package
from pipeline.packages.contest import record_entry
from pipeline.packages.model import Package
from pipeline.packages.tree import contest_stamp, copy_package, listing_digest
from pipeline.tables.layout import registered_dir

MARKER = "package.json"


@dataclass(frozen=True)
class Registration:
    problem_id: str
    folder: Path
    package: Package
    new: bool
    changes: tuple[str, ...]     # what changed since the last registration (empty: nothing)


def build_dir(data_dir: Path) -> Path:
    """Where package programs are built (cached by source hash)."""
    return Path(data_dir).resolve() / "build" / "packages"


def _digests(root: Path) -> dict[str, str]:
    return {path.relative_to(root).as_posix(): file_sha256(path).hexdigest()[:16]
            for path in sorted(root.rglob("*")) if path.is_file()
            and not any(part.startswith(".") for part in path.relative_to(root).parts)}


def _area(path: str) -> str:
    top = path.split("/", 1)[0]
    return {"data": "test data", "tests": "test data", "submissions": "submissions",
            "solutions": "submissions", "input_validators": "input validators",
            "input_format_validators": "input validators",
            "output_validators": "output validator", "output_validator": "output validator",
            "files": "package files"}.get(top, path if "/" not in path else top)


def _facts(package: Package) -> dict[str, str]:
    limits = package.limits
    return {
        "type": package.type.name,
        "time limit": (f"{limits.time_s:g} s" if limits.time_s is not None else
                       f"derived from the submissions (x{limits.ac_to_time_limit:g})"),
        "memory limit": f"{limits.memory_mb} MB",
        "test cases": str(len(package.cases)),
        "submissions": str(len(package.submissions)),
    }


def _changes(old: dict, new_files: dict[str, str], new_facts: dict[str, str]) -> list[str]:
    facts = old.get("facts", {})
    found = [f"{key}: {facts[key]} -> {value}" for key, value in new_facts.items()
             if facts.get(key) not in (None, value)]
    before = old.get("files", {})
    by_area: dict[str, list[str]] = {}
    for path in sorted(set(before) | set(new_files)):
        sign = "-" if path not in new_files else "+" if path not in before else \
            "~" if before[path] != new_files[path] else ""
        if sign:
            by_area.setdefault(_area(path), []).append(f"{sign}{path}")
    for area, items in by_area.items():
        shown = ", ".join(items[:4]) + (f" and {len(items) - 4} more" if len(items) > 4 else "")
        found.append(f"{area}: {shown}")
    return found


def source_stamp(source: Path) -> str | None:
    """A stamp of a package's source read without reading any file (a listing's names,
    sizes, times and links), or None when the source is gone."""
    try:
        if source.is_dir():
            contest = contest_stamp(source)
            return listing_digest(source) + (f" {hashlib.sha256(contest.encode()).hexdigest()}"
                                             if contest else "")
        info = source.stat()
    except OSError:
        return None
    return f"file {info.st_size} {info.st_mtime_ns}"


def changed_source(folder: Path) -> tuple[Path | None, bool]:
    """(the source the package at `folder` came from or None, whether it changed since it
    was registered or is gone)."""
    marker = read_marker(folder)
    if not marker.get("source"):
        return None, False
    source = Path(marker["source"])
    stamp = source_stamp(source)
    return source, stamp is None or stamp != marker.get("listing")


def content_digest(folder: Path) -> str | None:
    """A digest of the package content registered at `folder`; None for a built-in problem."""
    files = read_marker(folder).get("files")
    if files is None:
        return None
    text = "".join(f"{path}\0{digest}\n" for path, digest in sorted(files.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_marker(folder: Path) -> dict:
    try:
        return json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def register(source: Path, data_dir: Path, short_name: str | None = None) -> Registration:
    """Copy the package at `source` into the data folder (see the module docstring)."""
    source = Path(source).resolve()
    format_ = detect(source)
    if format_ is None:
        raise PackageError(str(source), "not-a-package", "no problem.yaml (Kattis) or "
                           "problem.xml (Polygon) here")
    builds = build_dir(data_dir)
    stamp = source_stamp(source)  # before reading: a change while reading shows next time
    package = load_package(source, builds, short_name=short_name)  # bad content fails here
    problem_id = short_name or package.short_name
    folder = registered_dir(data_dir) / problem_id
    old = read_marker(folder)
    folder.mkdir(parents=True, exist_ok=True)
    # the time limit its contest gives it, kept beside the copy (which the contest is not)
    contest_changed = record_entry(source, folder)
    staging = Path(tempfile.mkdtemp(prefix=".package-", dir=folder))
    try:
        left_out = package.left_out + copy_package(package.root, staging / "package")
        files = _digests(staging / "package")
        unchanged = old.get("files") == files and (folder / "package").is_dir() \
            and not contest_changed
        if unchanged:
            if old.get("listing") != stamp or old.get("source") != str(source):
                atomic_write_text(folder / MARKER, json.dumps(
                    {**old, "source": str(source), "listing": stamp}, indent=2) + "\n")
        else:
            previous = folder / "package"
            retired = folder / f".retired-{staging.name}"
            if previous.exists():
                previous.rename(retired)
            (staging / "package").rename(previous)
            shutil.rmtree(retired, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    registered = replace(load_package(folder / "package", builds, short_name=problem_id),
                         left_out=left_out)
    if unchanged:
        return Registration(problem_id, folder, registered, False, ())
    facts = _facts(registered)
    changes = _changes(old, files, facts) if old else []
    if old.get("source") not in (None, str(source)):  # same name, another package's folder
        changes.insert(0, f"replaces the package registered from {old['source']} (its test "
                          "cases are replaced by this one's)")
    marker = {"format": format_, "source": str(source), "listing": stamp, "files": files,
              "facts": facts,
              "registered_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "time_limit": old.get("time_limit") if not changes else None}
    atomic_write_text(folder / MARKER, json.dumps(marker, indent=2) + "\n")
    return Registration(problem_id, folder, registered, not old, tuple(changes))


def record_time_limit(folder: Path, time_s: float, how: str) -> None:
    """Keep a derived time limit with the registration (until the package changes)."""
    marker = read_marker(folder)
    marker["time_limit"] = {"time_s": time_s, "how": how}
    atomic_write_text(folder / MARKER, json.dumps(marker, indent=2) + "\n")
