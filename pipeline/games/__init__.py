"""Generic machinery for impartial games that the brute-force oracles share.

- `search`: memoised win/lose and Grundy (mex) search over hashable game states, iterative so
  that long chains of moves do not hit Python's recursion limit;
- `nim`: Nim sums, mex and bit helpers.

Nothing here knows about a particular problem; an oracle describes its game by a function
`moves(state) -> iterable of next states` and lets the search do the rest.
"""

from pipeline.games.nim import lowbit, mex, nim_sum
from pipeline.games.search import GameSearch, StateBudgetExceeded

__all__ = ["GameSearch", "StateBudgetExceeded", "lowbit", "mex", "nim_sum"]
