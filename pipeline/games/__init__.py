"""Generic machinery for impartial games that the brute-force oracles share: Nim sums, mex and
lowest set bits, and `GameSearch`, memoised win/lose and Grundy search over a game described by
`moves(state) -> iterable of next states`. The search uses an explicit stack (a path of 10^5
moves is fine) and a memo kept across queries; a state budget raises `StateBudgetExceeded` on an
unexpectedly large state space.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from functools import reduce
from operator import xor
from typing import Generic, TypeVar


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least non-negative integer not among `values`."""
    seen = set(values)
    result = 0
    while result in seen:
        result += 1
    return result


def nim_sum(values: Iterable[int]) -> int:
    """XOR of all values: the Grundy value of a sum of independent games."""
    return reduce(xor, values, 0)


def lowbit(x: int) -> int:
    """The lowest set bit of a positive integer (lowbit(12) == 4)."""
    if x <= 0:
        raise ValueError(f"lowbit is defined for positive integers, got {x}")
    return x & -x


S = TypeVar("S", bound=Hashable)
V = TypeVar("V")


class StateBudgetExceeded(RuntimeError):
    """More distinct states were visited than the search was allowed."""


class GameSearch(Generic[S]):
    """Win/lose and Grundy values of the states of one game, memoised."""

    def __init__(self, moves: Callable[[S], Iterable[S]], max_states: int | None = None) -> None:
        self.moves = moves
        self.max_states = max_states
        self._grundy: dict[S, int] = {}
        self._winning: dict[S, bool] = {}

    def grundy(self, start: S) -> int:
        """The Grundy value of `start`: 0 exactly when the player to move loses."""
        return self._search(start, self._grundy, mex, lambda values: False)

    def is_winning(self, start: S) -> bool:
        """True iff the player to move from `start` wins with perfect play (stops at a
        state's first losing option: cheaper than a full Grundy value)."""
        def some_loses(values: set[bool]) -> bool:
            return False in values

        return self._search(start, self._winning, some_loses, some_loses)

    def _search(self, start: S, memo: dict[S, V], value: Callable[[set[V]], V],
                enough: Callable[[set[V]], bool]) -> V:
        """`memo[start]`, each state's value `value` of its options' values, its options
        looked at only until `enough` of them; an explicit stack, so no recursion limit."""
        if start in memo:
            return memo[start]
        # Each frame: (state, iterator over its options, values of the options seen so far).
        stack: list[tuple[S, Iterator[S], set[V]]] = [(start, iter(self.moves(start)), set())]
        on_stack = {start}
        while stack:
            state, options, values = stack[-1]
            depth = len(stack)
            for option in (() if enough(values) else options):
                if option not in memo:
                    if option in on_stack:
                        raise ValueError(f"the game has a cycle through {option!r}")
                    stack.append((option, iter(self.moves(option)), set()))
                    on_stack.add(option)
                    break
                values.add(memo[option])
                if enough(values):
                    break
            if len(stack) > depth:  # descended into an option not known yet
                continue
            stack.pop()
            on_stack.discard(state)
            if self.max_states is not None and len(memo) >= self.max_states:
                raise StateBudgetExceeded(f"more than {self.max_states} game states")
            memo[state] = found = value(values)
            if stack:
                stack[-1][2].add(found)
        return memo[start]
