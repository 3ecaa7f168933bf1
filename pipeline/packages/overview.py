"""Constraint coverage of a package, from testlib's own test-overview log.

The log (`--testOverviewLogFileName`) has a line per named variable, `"n":` with
`min-value-hit` and/or `max-value-hit` (feature lines are read past). `package_coverage` counts
per variable the accepted inputs hitting each end; the log names no values, so ranges are
unknown (None). See docs/commands.md on coverage.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pipeline.packages.judge import PackageBuilds, validator_arguments
from pipeline.packages.model import Package, TestCase
from pipeline.packages.validate import input_overview, speaks_testlib
from pipeline.problems.coverage import BoundCoverage

_VARIABLE = re.compile(r'^"(.*)":((?: [a-z-]+)*)\s*$')


@dataclass(frozen=True)
class VariableHit:
    """One variable of one test-overview log: whether a value read equalled each end."""

    name: str
    min_hit: bool
    max_hit: bool


def parse_overview(text: str) -> tuple[VariableHit, ...]:
    """The variables of a test-overview log, in its order (other lines read past)."""
    hits = []
    for line in text.splitlines():
        if line.startswith("feature "):
            continue
        match = _VARIABLE.match(line)
        if match is None:
            continue
        words = match.group(2).split()
        hits.append(VariableHit(match.group(1), "min-value-hit" in words,
                                "max-value-hit" in words))
    return tuple(hits)


def package_coverage(package: Package, builds: PackageBuilds, inputs: Iterable[tuple[str, str]],
                     case_for: Callable[[str, Path], TestCase]) -> tuple[BoundCoverage, ...]:
    """Per variable of the testlib input validators, how many of `inputs` ((text, group))
    hit its lower and upper end; with several validators a row is `validator: variable`."""
    asked = [b for b in builds.input_validators if b.ok and speaks_testlib(b.program)]
    if not asked:
        return ()
    low: dict[tuple[str, str], int] = {}
    high: dict[tuple[str, str], int] = {}
    with tempfile.TemporaryDirectory(prefix="package-coverage-") as scratch:
        folder = Path(scratch)
        path = folder / "input"
        for text, group in inputs:
            path.write_text(text, encoding="utf-8")
            case = case_for(group, path)
            for build in asked:
                name = build.program.name
                overview = input_overview(build, path, validator_arguments(case, name),
                                          time_s=package.limits.validation_time_s,
                                          memory_mb=package.limits.validation_memory_mb,
                                          workdir=folder)
                if overview.rejection is not None or overview.log is None:
                    continue
                for hit in parse_overview(overview.log):
                    key = (name, hit.name)
                    low[key] = low.get(key, 0) + hit.min_hit
                    high[key] = high.get(key, 0) + hit.max_hit
    order = [b.program.name for b in asked]
    several = len(asked) > 1
    return tuple(BoundCoverage(f"{validator}: {variable}" if several else variable, None, None,
                               None, None, low[(validator, variable)],
                               high[(validator, variable)])
                 for validator, variable in sorted(low, key=lambda key: order.index(key[0])))
