"""Recognising test cases in the folder layouts judges use, from relative paths alone
(`find_cases` reads no file): `NAME.in` with `.out`/`.ans`/`.a` or alone; Kattis
`data/sample|secret/**`; Polygon `tests/01` + `tests/01.a`; AtCoder `in/NAME` + `out/NAME`;
IOI/TPS `tests/<subtask>-<nn>.in`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from posixpath import basename, dirname, join

ANSWER_SUFFIXES = (".out", ".ans", ".a")
_TPS_NAME = re.compile(r"^(?P<subtask>.+)-(?P<number>\d+)(\.in)?$")


@dataclass(frozen=True)
class FoundCase:
    """One input file, the file holding its expected output (if any), and its group."""

    input: str
    expected: str | None
    group: str


@dataclass(frozen=True)
class Discovery:
    cases: tuple[FoundCase, ...]
    skipped: tuple[str, ...]


def find_cases(paths: Iterable[str]) -> Discovery:
    """Split `paths` into cases (input, expected, group) and files that belong to no case."""
    present = set(paths)
    claimed: set[str] = set()
    cases: list[FoundCase] = []
    for path in sorted(present):
        folder, name = dirname(path), basename(path)
        if name.startswith("."):
            continue
        expected: str | None = None
        if basename(folder) == "in":  # AtCoder: in/NAME + out/NAME (or out/STEM.out)
            out_dir = join(dirname(folder), "out")
            stem = name.removesuffix(".in")
            candidates = [join(out_dir, name)] + [join(out_dir, stem + s) for s in ANSWER_SUFFIXES]
            expected = next((c for c in candidates if c in present), None)
        elif name.endswith(".in"):
            stem = path[: -len(".in")]
            expected = next((stem + s for s in ANSWER_SUFFIXES if stem + s in present), None)
        elif basename(folder) == "tests" and "." not in name:  # Polygon: tests/01 + 01.a
            expected = path + ".a" if path + ".a" in present else None
        else:
            continue
        claimed.add(path)
        if expected is not None:
            claimed.add(expected)
        cases.append(FoundCase(path, expected, group_of(path)))
    skipped = tuple(sorted(present - claimed))
    return Discovery(tuple(cases), skipped)


def group_of(path: str) -> str:
    """The group of an input: Kattis `sample` / `secret/<sub>`, a TPS subtask, else its folder."""
    parts = path.split("/")
    folders = parts[:-1]
    for i in range(len(folders) - 1):
        if folders[i] == "data" and folders[i + 1] in ("sample", "secret"):
            return "/".join(folders[i + 1:])
    if folders and folders[-1] == "tests":
        match = _TPS_NAME.match(parts[-1])
        if match and parts[-1].endswith(".in"):
            return match.group("subtask")
    if folders and folders[-1] == "in":
        folders = folders[:-1]
    return "/".join(folders) or "default"
