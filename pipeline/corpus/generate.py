"""`pipeline generate`: write seeded cases of a recipe as `NNN.in` (and `NNN.out` from the
expected-answer stage, within its limits) with a `manifest.json` from which the corpus can be
rebuilt exactly.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from pipeline.fsutil import atomic_write_text, sync_filesystem
from pipeline.problems import Problem

MANIFEST_NAME = "manifest.json"


@dataclass(frozen=True)
class GeneratedCase:
    name: str
    size: int
    expected: bool


@dataclass(frozen=True)
class Manifest:
    problem: str
    recipe: str
    seed: int
    count: int
    expected_from: str
    cases: tuple[GeneratedCase, ...]


def generate(problem: Problem, recipe: str, count: int, seed: int, out_dir: Path,
             expected_from: str = "brute") -> Manifest:
    """Generate `count` cases into `out_dir`; outputs come from `expected_from` when it accepts.
    The cases reach the disk together before the manifest that says they are complete."""
    problem.recipe(recipe)
    stage = problem.stage(expected_from)
    width = max(3, len(str(count)))
    cases = []
    for index in range(1, count + 1):
        case = problem.generate(recipe, seed, index)
        name = f"{index:0{width}d}"
        atomic_write_text(out_dir / f"{name}.in", problem.render(case), sync=False)
        has_expected = stage.accepts(case)
        if has_expected:
            atomic_write_text(out_dir / f"{name}.out", problem.format_answer(case, stage(case)),
                              sync=False)
        else:
            (out_dir / f"{name}.out").unlink(missing_ok=True)
        cases.append(GeneratedCase(name, problem.size(case), has_expected))
    manifest = Manifest(problem.id, recipe, seed, count, expected_from, tuple(cases))
    out_dir.mkdir(parents=True, exist_ok=True)
    sync_filesystem(out_dir)
    atomic_write_text(out_dir / MANIFEST_NAME, json.dumps(asdict(manifest), indent=2) + "\n")
    return manifest
