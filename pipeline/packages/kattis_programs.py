"""Finding the programs of an ICPC / Kattis package: which of its files are part of it at all
(`visible`, not `disabled`), the files of one program (a file or a folder) and its language,
and every program in a folder of programs (validators; submissions are found by
`kattis_submissions`). A file among programs that is no program is noted in `NOT_PROGRAMS`
for the package being loaded (`kattis.load_kattis` opens and collects it).
"""

from __future__ import annotations

from pathlib import Path

from pipeline.packages.model import Program, Role
from pipeline.packages.yamlfile import relative
from pipeline.programs.languages import detect_language


def visible(path: Path) -> bool:
    """Files and folders starting with a dot or dash are not part of the package."""
    return not path.name.startswith((".", "-"))


# BAPCtools (and DOMjudge's packages) keep a file or folder out of the package by ending its
# name in one of these (BAPCtools' util.glob skips them wherever it lists files).
DISABLED_SUFFIXES = (".disabled", ".template")


def disabled(path: Path) -> bool:
    return path.suffix in DISABLED_SUFFIXES


def files_of(path: Path) -> tuple[Path, ...]:
    if path.is_file():
        return (path,)
    return tuple(sorted(p for p in path.rglob("*") if p.is_file()
                        and all(visible(part) and not disabled(part)
                                for part in p.relative_to(path).parents
                                if part != Path(".")) and visible(p) and not disabled(p)))


# Files of the package being loaded that are no program though they sit among programs
# (innermost load last): (path, why) for one note per package.
NOT_PROGRAMS: list[list[tuple[str, str]]] = []


def not_a_program(path: Path, root: Path, why: str) -> None:
    if NOT_PROGRAMS:
        NOT_PROGRAMS[-1].append((relative(path, root), why))


def programs_in(folder: Path, role: Role, root: Path) -> list[Program]:
    """Every program in a folder of programs, as problemtools finds them (a README.txt is none;
    `*.disabled` / `*.template` are skipped)."""
    if not folder.is_dir():
        return []
    programs = []
    for entry in sorted(folder.iterdir()):
        if not visible(entry):
            continue
        if disabled(entry):
            not_a_program(entry, root, "disabled")
            continue
        program = program_at(entry, role, entry.name, root)
        if program.language is None:
            not_a_program(entry, root, "no program")
            continue
        programs.append(program)
    return programs


def program_at(path: Path, role: Role, name: str, root: Path, **extra) -> Program:
    files = files_of(path)
    language = _validator_language(files) if role in ("input_validator",
                                                      "answer_validator") else None
    return Program(name=name, role=role, path=path, files=files,
                   language=language or detect_language(list(files)), convention="kattis",
                   **extra)


def _validator_language(files: tuple[Path, ...]) -> str | None:
    if len(files) != 1:
        return None
    return {".ctd": "checktestdata", ".viva": "viva"}.get(files[0].suffix)
