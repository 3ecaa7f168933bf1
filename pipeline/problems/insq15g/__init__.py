"""insq15g: people pushed towards the top-right corner of a grid (CodeChef INSQ15_G).

The game, its Staircase Nim theory, what each stage computes and how `parse` reads:
docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.base import define_builtin
from pipeline.problems.insq15g import case, recipes, shrink, stages

PROBLEM = define_builtin(__file__, case, stages, recipes, shrink)
