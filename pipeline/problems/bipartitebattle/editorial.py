"""The `editorial` stage of bipartitebattle: the seed's program, one modular power per graph."""

from __future__ import annotations

from pipeline.problems.bipartitebattle.case import MOD, BattleCase


def solve_editorial(case: BattleCase) -> int:
    parity = 0
    result = 1
    for i, (a, b) in enumerate(case.graphs):
        parity ^= (a & 1) ^ (b & 1)
        result = result * pow(2, a * b - (1 if i == 0 else 0), MOD) % MOD
    return 0 if parity else result
