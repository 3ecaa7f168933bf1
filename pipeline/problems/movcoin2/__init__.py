"""movcoin2: Move the Coins 2 (CodeChef MOVCOIN2).

The game, its Nim theory (g(R) = XOR of coin distances) and what each stage computes:
docs/architecture.md.
"""

from pipeline.problems.base import define_builtin

PROBLEM = define_builtin(__name__)
