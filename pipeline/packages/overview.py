"""Constraint coverage of a package, from testlib's own test-overview log.

A testlib validator run with `--testOverviewLogFileName FILE` writes FILE when it ends: one
line per variable it read with a name (`inf.readInt(1, 100, "n")`, `inf.readLongs(n, -C, C,
"a_i")`; testlib leaves out names with a digit), `"n":` followed by `min-value-hit` when some
value it read under that name equalled the lower end that read was checked against and
`max-value-hit` likewise for the upper end; then one line per feature the validator
registered (`addFeature`), `feature "name":` followed by `hit` when the input hit it.

`package_coverage` runs each testlib input validator of the package on every stored input,
with the arguments of the test group the input was found in, exactly as ingest validates
(`validate.input_overview`: the same runner, limits and sandbox, in a working folder of its
own, where the log is written and read back), and counts per variable the cases that hit its
lower end and its upper end. Only validators that are testlib ones (`validate.
speaks_testlib`: a source includes testlib.h, as every C++ Polygon validator does) are asked;
any other validator is never given the flag, so a Kattis package without a testlib validator
shows no coverage. A case a validator rejects or cannot judge (it did not build, it timed out)
is not counted.

The log names no values, only whether an end was hit, and the ends may depend on the input
(`inf.readInt(1, n, "x")`): a row's allowed range and the values reached are unknown (None),
shown as "as the validator checks" and "-". An end no case hits is a warning, as for a
built-in problem's bound.

Features are left out: a feature is not a bound with two ends, and a row of `BoundCoverage`
has no place for one (`parse_overview` reads them past).
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
    """The variables of a test-overview log, in its order (features and any other line are
    read past)."""
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
    """Per variable of the package's testlib input validators, how many of `inputs` (each its
    text and the group it was found in; `case_for(group, path)` is that group's test case for
    an input file) hit its lower end and its upper end. With more than one testlib validator
    a row is named `validator: variable`."""
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
