"""The `fast` stage of bipartitebattle: the parity of the vertex total, then one modular power
of the exact edge total."""

from __future__ import annotations

from pipeline.problems.bipartitebattle.case import MOD, BattleCase


def solve_fast(case: BattleCase) -> int:
    graphs = case.graphs
    if sum(a + b for a, b in graphs) & 1:
        return 0
    edges = sum(a * b for a, b in graphs)  # exact, >= 1
    return pow(2, (edges - 1) % (MOD - 1), MOD)
