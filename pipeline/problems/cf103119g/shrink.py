"""Shrink passes and hunt mutations of cf103119g (structured edits of a `Case`).

Positions are shared by the initial values and the appends, so every edit that removes an
element renumbers the queries after it (a query on a removed element goes with it).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from pipeline.problems.cf103119g.case import MAX_VALUE, Case
from pipeline.problems.edits import lower_int, removals, replaced


def _rebuild(case: Case, dropped_values: frozenset[int] = frozenset(),
             dropped_ops: frozenset[int] = frozenset()) -> Case:
    """`case` without some initial values and some operations, queries renumbered."""
    new_position: dict[int, int] = {}
    values: list[int] = []
    for i, value in enumerate(case.values):
        if i not in dropped_values:
            new_position[i] = len(values)
            values.append(value)
    ops = []
    position, length = case.n, len(values)
    for j, (op, k) in enumerate(case.ops):
        if op == 1:
            if j not in dropped_ops:
                new_position[position] = length
                length += 1
                ops.append((1, k))
            position += 1
        elif j not in dropped_ops and k - 1 in new_position:
            ops.append((2, new_position[k - 1] + 1))
    return Case(tuple(values), tuple(ops))


def drop_operations(case: Case) -> Iterator[Case]:
    """Remove runs of operations (halves first, ..., single ones)."""
    for removed in removals(case.m, minimum_kept=1):
        yield _rebuild(case, dropped_ops=frozenset(removed))


def drop_values(case: Case) -> Iterator[Case]:
    """Remove runs of initial values."""
    for removed in removals(case.n, minimum_kept=1):
        yield _rebuild(case, dropped_values=frozenset(removed))


def fold_appends(case: Case) -> Iterator[Case]:
    """Appends before the first query become initial values (same size, shorter input)."""
    leading = 0
    while leading < case.m - 1 and case.ops[leading][0] == 1:
        leading += 1
    for count in dict.fromkeys((leading, 1)):
        if count:
            yield Case(case.values + tuple(k for _, k in case.ops[:count]), case.ops[count:])


def _smaller_values(value: int) -> Iterator[int]:
    yield from lower_int(value)
    for bit in range(8):
        if value >> bit & 1:
            yield value ^ (1 << bit)


def lower_values(case: Case) -> Iterator[Case]:
    """Every value (initial or appended) lowered towards 0, or with one bit cleared."""
    for i, value in enumerate(case.values):
        for smaller in _smaller_values(value):
            yield Case(replaced(case.values, i, smaller), case.ops)
    for j, (op, k) in enumerate(case.ops):
        if op == 1:
            for smaller in _smaller_values(k):
                yield Case(case.values, replaced(case.ops, j, (1, smaller)))


def _recoded(case: Case, code) -> Case:
    return Case(tuple(code(v) for v in case.values),
                tuple((op, code(k)) if op == 1 else (op, k) for op, k in case.ops))


def recode_values(case: Case) -> Iterator[Case]:
    """Every value XORed with one constant, or two bit positions exchanged in every value:
    neither changes which values differ in one bit (the game), and together they lower whole
    patterns (31 63 127 -> 0 32 96 -> 0 1 3)."""
    present = sorted(set(case.values) | {k for op, k in case.ops if op == 1})
    for constant in present + [1 << bit for bit in range(8)]:
        if constant:
            yield _recoded(case, lambda v, c=constant: v ^ c)
    for high in range(7, 0, -1):
        for low in range(high):
            def swap(v: int, high: int = high, low: int = low) -> int:
                if (v >> high & 1) == (v >> low & 1):
                    return v
                return v ^ (1 << high) ^ (1 << low)
            yield _recoded(case, swap)


def lower_queries(case: Case) -> Iterator[Case]:
    """Every query moved to an earlier position, towards 1."""
    for j, (op, k) in enumerate(case.ops):
        if op == 2:
            for smaller in lower_int(k, 1):
                yield Case(case.values, replaced(case.ops, j, (2, smaller)))


SHRINKS = (drop_operations, drop_values, fold_appends, recode_values, lower_values,
           lower_queries)


# -- hunt mutations -------------------------------------------------------------------------------

def swap_operations(case: Case, rng: random.Random) -> Case | None:
    """Two neighbouring operations trade places (queries kept on existing positions)."""
    if case.m < 2:
        return None
    j = rng.randrange(case.m - 1)
    ops = list(case.ops)
    ops[j], ops[j + 1] = ops[j + 1], ops[j]
    length = case.n
    for index, (op, k) in enumerate(ops):
        if op == 2 and k > length:
            ops[index] = (2, length)
        length += op == 1
    return Case(case.values, tuple(ops))


def change_value(case: Case, rng: random.Random) -> Case | None:
    """One value (initial or appended) becomes a random byte or a one-bit neighbour."""
    appends = [j for j, (op, _) in enumerate(case.ops) if op == 1]
    slot = rng.randrange(case.n + len(appends))
    old = case.values[slot] if slot < case.n else case.ops[appends[slot - case.n]][1]
    new = old ^ (1 << rng.randrange(8)) if rng.random() < 0.5 else rng.randint(0, MAX_VALUE)
    if slot < case.n:
        return Case(replaced(case.values, slot, new), case.ops)
    return Case(case.values, replaced(case.ops, appends[slot - case.n], (1, new)))


def retarget_query(case: Case, rng: random.Random) -> Case | None:
    """One query asks about the last occurrence (so far) of some value instead."""
    queries = [j for j, (op, _) in enumerate(case.ops) if op == 2]
    if not queries:
        return None
    j = rng.choice(queries)
    sequence = list(case.values) + [k for op, k in case.ops[:j] if op == 1]
    value = rng.choice(sequence)
    last = len(sequence) - 1 - sequence[::-1].index(value)
    return Case(case.values, replaced(case.ops, j, (2, last + 1)))


def flip_operation(case: Case, rng: random.Random) -> Case | None:
    """An append becomes a query on the newest position, or a query an append."""
    j = rng.randrange(case.m)
    op, _ = case.ops[j]
    length = case.n + sum(kind == 1 for kind, _ in case.ops[:j])  # before operation j
    flipped = (2, length) if op == 1 else (1, rng.randint(0, MAX_VALUE))
    return _valid_or_none(Case(case.values, replaced(case.ops, j, flipped)))


def _valid_or_none(case: Case) -> Case | None:
    length = case.n
    for op, k in case.ops:
        if op == 2 and not 1 <= k <= length:
            return None
        length += op == 1
    return case


MUTATIONS = (swap_operations, change_value, retarget_query, flip_operation)
