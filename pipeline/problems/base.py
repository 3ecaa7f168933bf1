"""What a problem module provides, as plain frozen dataclasses.

Every later layer (generate, ingest, run, report, stress) talks to a problem only through a
`Problem` value: parse and validate a judge input into a typed case, render a case back to
canonical judge text, measure its size, solve it with any of its stages, and format, validate
and compare answers. A problem module builds one `Problem` and the registry in
`pipeline.problems` maps its id to it.

Cases are structured data (frozen dataclasses, equal when their content is equal), never only
text, so that a later `stress` command can shrink a failing case and render it again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pipeline.errors import BeyondLimits, UnknownName
from pipeline.problems.tokens import check_tokens_equal

Case = Any
Answer = Any

RecipeKind = Literal["tiny", "edge", "family", "max"]


@dataclass(frozen=True)
class Stage:
    """One way of solving a problem: a function case -> answer with declared limits.

    `refuses(case)` returns None when the case is within the stage's limits, otherwise a short
    reason; calling the stage on a refused case raises `BeyondLimits` instead of running for
    hours. `known_wrong` is None for a stage we trust, or the sentence saying what is wrong
    with it (such a stage stays registered so that its counterexample keeps being checked).
    `warm_up`, when set, pays a one-off start-up cost (loading a JIT-compiled kernel) so that
    a worker can do it before it starts timing cases.
    """

    name: str
    solve: Callable[[Case], Answer]
    description: str
    complexity: str
    limits: str = "none"
    refuses: Callable[[Case], str | None] = field(default=lambda case: None)
    known_wrong: str | None = None
    warm_up: Callable[[], object] | None = None

    def __call__(self, case: Case) -> Answer:
        reason = self.refuses(case)
        if reason is not None:
            raise BeyondLimits(f"{self.name}: {reason}")
        return self.solve(case)

    def accepts(self, case: Case) -> bool:
        return self.refuses(case) is None


@dataclass(frozen=True)
class Recipe:
    """A named, seeded generator of cases: `make(rng)` must depend only on `rng`."""

    name: str
    kind: RecipeKind
    description: str
    make: Callable[[random.Random], Case]


@dataclass(frozen=True)
class Problem:
    """Everything the pipeline knows about one problem, in one value."""

    id: str
    title: str
    source: str
    time_limit_s: float
    parse: Callable[[str], Case]
    render: Callable[[Case], str]
    format_answer: Callable[[Case, Answer], str]
    validate_answer: Callable[[Case, str], None]
    size: Callable[[Case], int]
    size_columns: Callable[[Case], Mapping[str, int]]
    size_measure: str
    stages: tuple[Stage, ...]
    recipes: tuple[Recipe, ...]

    # -- lookups ----------------------------------------------------------------------------
    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise UnknownName(f"problem {self.id} has no stage {name!r}; stages: "
                          f"{', '.join(s.name for s in self.stages)}")

    def recipe(self, name: str) -> Recipe:
        for recipe in self.recipes:
            if recipe.name == name:
                return recipe
        raise UnknownName(f"problem {self.id} has no recipe {name!r}; recipes: "
                          f"{', '.join(r.name for r in self.recipes)}")

    @property
    def trusted_stages(self) -> tuple[Stage, ...]:
        return tuple(s for s in self.stages if s.known_wrong is None)

    # -- answers ----------------------------------------------------------------------------
    def solve_text(self, text: str, stage: str = "fast") -> str:
        """Judge input text -> judge output text (ending in a newline) with one stage."""
        case = self.parse(text)
        return self.format_answer(case, self.stage(stage)(case))

    def compare(self, expected: str, got: str) -> str | None:
        """None when two outputs agree token by token, else what differs first."""
        return check_tokens_equal(expected.split(), got.split())

    def generate(self, recipe: str, seed: int, index: int = 0) -> Case:
        """Case number `index` of `recipe` for `seed`: the same on every machine."""
        rng = random.Random(f"{self.id}/{recipe}/{seed}/{index}")
        return self.recipe(recipe).make(rng)
