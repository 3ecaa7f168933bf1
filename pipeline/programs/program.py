"""What a program is: a source file (or folder) in a language, or build/run scripts, with the
role it plays (a submission, a validator, a checker, an interactor, a generator). The language
table builds it (`languages`) and the one contained runner runs it (`contained`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pipeline.packages.model import Expectation

Role = Literal["submission", "input_validator", "answer_validator", "output_validator",
               "checker", "interactor", "generator"]
Convention = Literal["kattis", "testlib"]


@dataclass(frozen=True)
class Program:
    """A program: a submission, validator, checker, interactor or generator (of a package,
    or a problem's checker, or an `--external` source)."""

    name: str
    role: Role
    path: Path                              # the file, or the folder of a folder program
    files: tuple[Path, ...]                 # its source files
    language: str | None                    # language code ("cpp", "python3", ...); None:
                                            # build/run scripts, or not determinable
    convention: Convention = "kattis"
    entrypoint: str | None = None
    expectation: Expectation | None = None
    declared_type: str | None = None        # Polygon's source type ("cpp.g++17")
    include_files: tuple[Path, ...] = ()    # include/<language> files copied before building
