"""cf103119g: Game on Sequence (Codeforces Gym 103119 G, ICPC Macau 2020).

The game, why the seed's monotonicity argument fails, the lemma behind `fast` and what each
stage computes: docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.base import define_builtin
from pipeline.problems.cf103119g import case, recipes, shrink, stages

PROBLEM = define_builtin(__file__, case, stages, recipes, shrink)
