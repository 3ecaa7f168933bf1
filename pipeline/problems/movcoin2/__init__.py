"""movcoin2: Move the Coins 2 (CodeChef MOVCOIN2).

The game, its Nim theory (g(R) = XOR of coin distances) and what each stage computes:
docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.base import define_builtin
from pipeline.problems.movcoin2 import case, recipes, shrink, stages

PROBLEM = define_builtin(__file__, case, stages, recipes, shrink)
