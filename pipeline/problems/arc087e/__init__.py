"""arc087e: Prefix-free Game (AtCoder ARC087 E, task arc087_c).

The game, the Grundy theory (G(h) = lowbit(h)) and what each stage computes: docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.arc087e import case, recipes, shrink, stages
from pipeline.problems.base import define_builtin

PROBLEM = define_builtin(__file__, case, stages, recipes, shrink)
