"""Problem packages (ICPC/Kattis legacy, 2023-07, 2025-09; Polygon) as judged problems.

Entry points: `detect(path)` (the format, None when no package); `load_package(path,
build_dir=None, short_name=None)` (a frozen `model.Package`: a zip unpacked, a folder with
links read from a contained copy (`tree.copy_package`), Polygon's generated tests made; bad
content raises `PackageError`); `build_package` / `build_program` (built once per source hash);
`validate_case` (the input validators on one input); `judge_case` (one submission on one
case). Submissions are judged as a whole by `pipeline run`: `packages.submissions`.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import replace
from pathlib import Path

from pipeline.errors import PackageError
from pipeline.fsutil import scratch_folder
from pipeline.packages.contest import contest_given, python_choice
from pipeline.packages.generators_yaml import building
from pipeline.packages.generators_yaml import default_sources_dir as default_build_dir
from pipeline.packages.judge import PackageBuilds, build_package, judge_case, validate_case
from pipeline.packages.kattis import load_kattis
from pipeline.packages.kattis_config import capped_contest_limit, format_version
from pipeline.packages.model import Format, Package
from pipeline.packages.polygon import load_polygon
from pipeline.packages.tree import boundary, copy_package, leads_outside, listing_digest, needs_copy
from pipeline.packages.yamlfile import MAX_YAML_BYTES, load_yaml
from pipeline.programs.languages import Build, build_program
from pipeline.untrusted import archive_bomb, zip_bomb

__all__ = ["Build", "Package", "PackageBuilds", "PackageError", "build_package",
           "build_program", "default_build_dir", "detect", "judge_case", "load_package",
           "validate_case"]


def _package_root(path: Path) -> Path | None:
    """The folder holding problem.yaml / problem.xml: `path` itself or its only subfolder."""
    if (path / "problem.yaml").is_file() or (path / "problem.xml").is_file():
        return path
    children = [c for c in path.iterdir() if not c.name.startswith(".")] if path.is_dir() else []
    if len(children) == 1 and children[0].is_dir():
        return _package_root(children[0])
    return None


def detect(path: Path) -> Format | None:
    """The package format at `path` (a folder or a zip), or None when it holds no package."""
    path = Path(path)
    if path.is_file() and path.suffix.lower() in (".zip", ".kpp"):
        try:
            archive = zipfile.ZipFile(path)
        except zipfile.BadZipFile:
            return None
        with archive, scratch_folder() as tmp:
            names = archive.namelist()
            if any(Path(n).name == "problem.xml" and n.count("/") <= 1 for n in names):
                return "polygon"
            found = [n for n in names if Path(n).name == "problem.yaml" and n.count("/") <= 1]
            if not found:
                return None
            info = archive.getinfo(found[0])
            bomb = zip_bomb(info)
            if bomb or info.file_size > MAX_YAML_BYTES:
                raise PackageError(found[0], "too-large", bomb or f"{info.file_size:,} bytes, "
                                   f"more than the {MAX_YAML_BYTES:,} a YAML file of a package "
                                   "may have")
            target = Path(tmp) / "problem.yaml"
            with archive.open(info) as member:
                target.write_bytes(member.read(MAX_YAML_BYTES + 1))
            return _yaml_format(target, Path(tmp))
    if not path.is_dir():
        return None
    root = _package_root(path)
    if root is None:
        return None
    if (root / "problem.xml").is_file():
        return "polygon"
    if (outside := leads_outside(root / "problem.yaml", root)) is not None:
        raise outside
    return _yaml_format(root / "problem.yaml", root)


def _yaml_format(problem_yaml: Path, root: Path) -> Format:
    config, lines = load_yaml(problem_yaml, root)
    return format_version(config.get("problem_format_version"), "problem.yaml",
                          lines("problem_format_version"))


def _unpack(archive_path: Path, build_dir: Path) -> Path:
    with open(archive_path, "rb") as handle:  # in pieces: a zip of 700 MB cost as much memory
        digest = hashlib.file_digest(handle, "sha256").hexdigest()[:24]
    final = build_dir / "unpacked" / f"{archive_path.stem}-{digest}"
    if not final.is_dir():
        try:
            with building(final, complete=False) as work, \
                    zipfile.ZipFile(archive_path) as archive:
                for member in archive.infolist():  # each member, then all of them together
                    if bomb := zip_bomb(member):
                        raise PackageError(f"{archive_path.name}!{member.filename}", "too-large",
                                           bomb)
                if bomb := archive_bomb(archive.infolist(), archive_path.stat().st_size):
                    raise PackageError(archive_path.name, "too-large", bomb)
                for member in archive.infolist():
                    if not (work / member.filename).resolve().is_relative_to(work.resolve()):
                        raise PackageError(archive_path.name, "zip-path", f"archive member "
                                           f"{member.filename!r} points outside the package")
                archive.extractall(work)
        except zipfile.BadZipFile as error:
            raise PackageError(archive_path.name, "zip", f"not a readable zip file: {error}") \
                from None
    root = _package_root(final)
    if root is None:
        raise PackageError(archive_path.name, "no-package", "the archive holds no problem.yaml "
                           "or problem.xml at its top (or in its only folder)")
    return root


def load_package(path: Path, build_dir: Path | None = None,
                 short_name: str | None = None) -> Package:
    """Load the package at `path` (folder, .zip or .kpp) as a `Package`."""
    path = Path(path)
    build_dir = Path(build_dir) if build_dir is not None else default_build_dir()
    if not path.exists():
        raise PackageError(str(path), "missing", "no such file or folder")
    if path.is_file():
        if path.suffix.lower() not in (".zip", ".kpp"):
            raise PackageError(path.name, "not-a-package", "a package is a folder or a .zip/.kpp "
                               "archive of one")
        root, name = _unpack(path, build_dir), short_name or path.stem
    else:
        found = _package_root(path)
        if found is None:
            raise PackageError(path.name, "not-a-package", "the folder holds no problem.yaml "
                               "(Kattis) or problem.xml (Polygon)")
        root, name = found, short_name or found.name
    given, python = contest_given(root)  # read where the package is, before any copy of it
    contest = capped_contest_limit(given)
    left_out: tuple[PackageError, ...] = ()
    if needs_copy(root):
        root, left_out = _contained(root, build_dir)
        if described := [e for e in left_out if e.file in ("problem.yaml", "problem.xml")]:
            raise described[0]  # the package is its description
    try:
        if (root / "problem.xml").is_file() and not (root / "problem.yaml").is_file():
            package = load_polygon(root, build_dir, name)
        else:
            package = load_kattis(root, name, build_dir, contest)
    except PackageError as error:
        raise _because_left_out(error, left_out) from None
    data = [e for e in left_out if e.file == "data" or e.file.startswith("data/")]
    if not package.cases and data:  # no test data because it was left out: that is what to tell
        raise data[0]
    choice = python_choice(python) if python and package.format != "polygon" else None
    if choice is not None and any(s.language == "python3" for s in package.submissions):
        # its Python 3 submissions run as the contest's languages.yaml says, and a note by what
        package = replace(package, notes=(*package.notes, choice.note), submissions=tuple(
            replace(s, interpreter=choice.interpreter)
            if s.language == "python3" and choice.interpreter else s
            for s in package.submissions))
    return replace(package, left_out=left_out) if left_out else package


def _contained(root: Path, build_dir: Path) -> tuple[Path, tuple[PackageError, ...]]:
    """The package copied without what leads outside it, once per state: (root, left out)."""
    state = hashlib.sha256(f"{listing_digest(root)}\0{boundary(root)}".encode()).hexdigest()
    final = build_dir / "contained" / f"{root.name}-{state[:24]}"
    if not (final / "left-out.json").is_file():
        with building(final, complete=False) as work:
            left_out = copy_package(root, work / "package")
            (work / "left-out.json").write_text(json.dumps(
                [[e.file, e.rule, e.message] for e in left_out]), encoding="utf-8")
    recorded = json.loads((final / "left-out.json").read_text(encoding="utf-8"))
    return final / "package", tuple(PackageError(*item) for item in recorded)


def _because_left_out(error: PackageError, left_out: tuple[PackageError, ...]) -> PackageError:
    """The loader's error, told as the file left out that caused it when there is one."""
    about = "submissions" if error.rule == "missing-accepted" else error.file
    for cause in left_out:
        if cause.file == about:
            return cause
        if cause.file.startswith(about.rstrip("/") + "/"):
            return PackageError(error.file, error.rule, f"{error.message} ({cause.file} was "
                                f"left out: {cause.message})", line=error.line)
    return error
