"""What a program is: the one model of every executable thing the pipeline runs (a problem's
solutions, configured solvers, `--external` programs and a package's programs alike).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

Role = Literal["submission", "input_validator", "answer_validator", "output_validator",
               "checker", "interactor", "generator"]
Convention = Literal["kattis", "testlib"]


class Expected(Protocol):
    """What a submission is expected to get; a program knows only its label."""

    @property
    def label(self) -> str: ...  # "accepted", "wrong_answer", a Polygon tag, ...


@dataclass(frozen=True)
class Program:
    """A program in a role: its source file or folder (`path`, `files`) in a `language`, or
    commands of its own (`build`, `run`: split as a shell would, `{exe}` and `{source}`
    filled in). Its relative paths start at `base_dir` (None: the repository)."""

    name: str
    role: Role = "submission"
    path: Path | None = None                # the file or folder of its source (None: a command)
    files: tuple[Path, ...] = ()            # its source files
    language: str | None = None             # "cpp", ...; None: told when built, or commands
    convention: Convention = "kattis"
    entrypoint: str | None = None
    expectation: Expected | None = None     # what a package's submission is expected to get
    declared_type: str | None = None        # Polygon's source type ("cpp.g++17")
    include_files: tuple[Path, ...] = ()    # include/<language> files copied before building
    run: str = ""                           # its own run command; "" or "{exe}": its language's
    build: str | None = None                # its own build command (None: its language's)
    base_dir: Path | None = None            # where its relative paths start (None: the repo)
    time_limit_s: float | None = None       # the limit it is run at (a configured solver's)
    content: bytes | None = None            # its source's bytes, when it travels to be built
    interpreter: str | None = None          # what runs it if Python 3 (pypy3); None: this one

    @property
    def expected(self) -> str | None:
        """What its folder or tag expects (`accepted`, `wrong_answer`, ...), or None."""
        return self.expectation.label if self.expectation is not None else None

    @property
    def builds_from_source(self) -> bool:
        """Whether it is built (by its language or its own `build`) before it runs."""
        return self.build is not None or (self.path is not None
                                           and self.run.strip() in ("", "{exe}"))
