"""One problem, one folder: nothing about a built-in problem lives outside
`pipeline/problems/<id>/` (tests and the README aside). Each id is searched for as a whole word
in every file of `pipeline/`, `configs/` and `benchmarks/`, as `grep -rlw <id>` would."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.problems import BUILTIN_DIR, problem_ids

REPO = Path(__file__).resolve().parents[2]
BUILTIN = [p for p in problem_ids() if (BUILTIN_DIR / p).is_dir()]


def _files():
    for top in ("pipeline", "configs", "benchmarks"):
        for path in sorted((REPO / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                yield path


@pytest.mark.parametrize("problem_id", BUILTIN)
def test_a_problem_is_named_only_inside_its_own_folder(problem_id):
    word = re.compile(rf"(?<!\w){re.escape(problem_id)}(?!\w)".encode())
    own = BUILTIN_DIR / problem_id
    outside = [str(path.relative_to(REPO)) for path in _files()
               if own not in path.parents and word.search(path.read_bytes())]
    assert outside == []


def test_there_are_five_built_in_problems():
    assert len(BUILTIN) == 5
