"""Generic machinery for impartial games that the brute-force oracles share: memoised win/lose
and Grundy search (`search`), Nim sums, mex and bit helpers (`nim`). An oracle describes its
game by `moves(state) -> iterable of next states`."""

from pipeline.games.nim import lowbit, mex, nim_sum
from pipeline.games.search import GameSearch, StateBudgetExceeded

__all__ = ["GameSearch", "StateBudgetExceeded", "lowbit", "mex", "nim_sum"]
