"""insq15g: people pushed towards the top-right corner of a grid (CodeChef INSQ15_G).

The game, its Staircase Nim theory, what each stage computes and how `parse` reads:
docs/architecture.md.
"""

from pipeline.problems.base import define_builtin

PROBLEM = define_builtin(__name__)
