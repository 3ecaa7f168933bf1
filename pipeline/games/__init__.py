"""Generic machinery for impartial games that the brute-force oracles share: Nim sums, mex and
lowest set bits, and `GameSearch`, memoised win/lose and Grundy search over a game described by
`moves(state) -> iterable of next states`. The search uses an explicit stack (a path of 10^5
moves is fine) and a memo kept across queries; a state budget raises `StateBudgetExceeded` on an
unexpectedly large state space.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
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


class StateBudgetExceeded(RuntimeError):
    """More distinct states were visited than the search was allowed."""


class GameSearch(Generic[S]):
    """Win/lose and Grundy values of the states of one game, memoised."""

    def __init__(self, moves: Callable[[S], Iterable[S]], max_states: int | None = None) -> None:
        self.moves = moves
        self.max_states = max_states
        self._grundy: dict[S, int] = {}
        self._winning: dict[S, bool] = {}

    def _count(self, memo: dict) -> None:
        if self.max_states is not None and len(memo) >= self.max_states:
            raise StateBudgetExceeded(f"more than {self.max_states} game states")

    def grundy(self, start: S) -> int:
        """The Grundy value of `start`: 0 exactly when the player to move loses."""
        memo = self._grundy
        if start in memo:
            return memo[start]
        # Each frame: (state, iterator over its options, Grundy values of options seen so far).
        stack: list[tuple[S, Iterable[S], set[int]]] = [(start, iter(self.moves(start)), set())]
        on_stack = {start}
        while stack:
            state, options, values = stack[-1]
            descended = False
            for option in options:
                known = memo.get(option)
                if known is not None:
                    values.add(known)
                    continue
                if option in on_stack:
                    raise ValueError(f"the game has a cycle through {option!r}")
                stack.append((option, iter(self.moves(option)), set()))
                on_stack.add(option)
                descended = True
                break
            if descended:
                continue
            stack.pop()
            on_stack.discard(state)
            self._count(memo)
            memo[state] = value = mex(values)
            if stack:
                stack[-1][2].add(value)
        return memo[start]

    def is_winning(self, start: S) -> bool:
        """True iff the player to move from `start` wins with perfect play (stops at a
        state's first losing option: cheaper than a full Grundy value)."""
        memo = self._winning
        if start in memo:
            return memo[start]
        # Each frame: [state, iterator over its options, "some option seen so far loses"].
        stack: list[list] = [[start, iter(self.moves(start)), False]]
        on_stack = {start}
        while stack:
            frame = stack[-1]
            state, options, found_losing = frame
            descended = False
            if not found_losing:
                for option in options:
                    known = memo.get(option)
                    if known is None:
                        if option in on_stack:
                            raise ValueError(f"the game has a cycle through {option!r}")
                        stack.append([option, iter(self.moves(option)), False])
                        on_stack.add(option)
                        descended = True
                        break
                    if not known:
                        found_losing = True
                        break
            if descended:
                continue
            stack.pop()
            on_stack.discard(state)
            self._count(memo)
            memo[state] = found_losing
            if stack and not found_losing:
                stack[-1][2] = True  # the parent can move to this losing state
        return memo[start]
