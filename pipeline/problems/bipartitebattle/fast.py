"""The `fast` stage of bipartitebattle: the parity of the vertex total, then one modular power
of the exact edge total. A case read natively is solved by native code on its tokens (the same
sums, the edge total in 128 bits); any other case by the Python sums below."""

from __future__ import annotations

from pipeline.problems.bipartitebattle import native
from pipeline.problems.bipartitebattle.case import MOD, BattleCase


def solve_fast(case: BattleCase) -> int:
    if case.packed is not None and native.functions() is not None:
        return native.solve(case.packed)
    return solve_python(case)


def solve_python(case: BattleCase) -> int:
    graphs = case.graphs
    if sum(a + b for a, b in graphs) & 1:
        return 0
    edges = sum(a * b for a, b in graphs)  # exact, >= 1
    return pow(2, (edges - 1) % (MOD - 1), MOD)
