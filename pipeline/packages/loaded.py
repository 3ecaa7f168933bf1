"""What the package judge's run side (`runjob`, `submissions`) needs of a registered package
problem (`problem.PackageProblem` is one), as a protocol: they take it without importing the
module that builds it, so the package modules import one another in one direction only."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pipeline.packages.expectations import TimeLimit
from pipeline.packages.judge import PackageBuilds
from pipeline.packages.model import Package


class LoadedPackage(Protocol):
    """A registered package as a problem: id, folder, package, builds and time limit."""

    @property
    def id(self) -> str: ...

    @property
    def folder(self) -> Path: ...

    @property
    def time_limit_s(self) -> float: ...

    @property
    def build_cache(self) -> Path: ...

    def load(self) -> Package: ...

    def builds(self) -> PackageBuilds: ...

    def time_limit(self) -> TimeLimit | None: ...

    def expected_to_pass(self, name: str) -> bool: ...
