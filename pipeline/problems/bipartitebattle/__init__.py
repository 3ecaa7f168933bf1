"""Bipartite Battle (Kattis `bipartitebattle`, ICPC Hanoi 2018 problem B).

The game, the theory (sg(n, m) = n mod 2 + 2 (m mod 2)) and what each stage computes:
docs/architecture.md.
"""

from pipeline.problems.base import define_builtin

PROBLEM = define_builtin(__name__)
