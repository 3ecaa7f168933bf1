"""cf103119g: Game on Sequence (Codeforces Gym 103119 G, ICPC Macau 2020).

The game, why the seed's monotonicity argument fails, the lemma behind `fast` and what each
stage computes: docs/architecture.md.
"""

from pipeline.problems.base import define_builtin

PROBLEM = define_builtin(__name__)
