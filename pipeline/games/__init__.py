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
A = TypeVar("A")
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

    def _count(self, memo: dict) -> None:
        if self.max_states is not None and len(memo) >= self.max_states:
            raise StateBudgetExceeded(f"more than {self.max_states} game states")

    def grundy(self, start: S) -> int:
        """The Grundy value of `start`: 0 exactly when the player to move loses."""
        return self._search(start, self._grundy, set, _with, mex, _never)

    def is_winning(self, start: S) -> bool:
        """True iff the player to move from `start` wins with perfect play (stops at a
        state's first losing option: cheaper than a full Grundy value)."""
        return self._search(start, self._winning, bool, _or_losing, bool, bool)

    def _search(self, start: S, memo: dict[S, V], empty: Callable[[], A],
                add: Callable[[A, V], A], value: Callable[[A], V],
                enough: Callable[[A], bool]) -> V:
        """Depth-first over the states from `start` (an explicit stack): a state's value is
        `value` of what `add` folds its options' values into, from `empty()`; a state whose
        fold is `enough` looks at no more options."""
        if start in memo:
            return memo[start]
        # Each frame: [state, iterator over its options, its options' values folded so far].
        stack: list[list] = [[start, iter(self.moves(start)), empty()]]
        on_stack = {start}
        while stack:
            frame = stack[-1]
            for option in () if enough(frame[2]) else frame[1]:
                if option not in memo:
                    if option in on_stack:
                        raise ValueError(f"the game has a cycle through {option!r}")
                    stack.append([option, iter(self.moves(option)), empty()])
                    on_stack.add(option)
                    break
                frame[2] = add(frame[2], memo[option])
                if enough(frame[2]):
                    break
            if stack[-1] is not frame:  # went down to an option not yet known
                continue
            stack.pop()
            on_stack.discard(frame[0])
            self._count(memo)
            memo[frame[0]] = result = value(frame[2])
            if stack:
                stack[-1][2] = add(stack[-1][2], result)
        return memo[start]


def _with(values: set[int], value: int) -> set[int]:
    values.add(value)
    return values


def _or_losing(found_losing: bool, winning: bool) -> bool:
    return found_losing or not winning


def _never(values: set[int]) -> bool:
    return False
