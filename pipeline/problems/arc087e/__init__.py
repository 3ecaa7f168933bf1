"""arc087e: Prefix-free Game (AtCoder ARC087 E, task arc087_c).

The game, the Grundy theory (G(h) = lowbit(h)) and what each stage computes: docs/architecture.md.
"""

from pipeline.problems.base import define_builtin

PROBLEM = define_builtin(__name__)
