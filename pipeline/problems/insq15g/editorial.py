"""The editorial's two methods for insq15g: `editorial` (its large-range program, Staircase
Nim over grouped cells) and `independent-people` (its first idea, known wrong)."""

from __future__ import annotations

from pipeline.problems.insq15g.case import Case


def solve_editorial(case: Case) -> bool:
    people = sorted(case.people())
    corner_parity = (1 + case.m) % 2
    total = 0
    run = 1
    for i in range(1, len(people) + 1):
        if i < len(people) and people[i] == people[i - 1]:
            run += 1
            continue
        x, y = people[i - 1]
        if (x + y) % 2 != corner_parity:
            total ^= run
        run = 1
    return total != 0


# -- independent-people (known wrong) -----------------------------------------------------------
def solve_independent_people(case: Case) -> bool:
    corner_parity = (1 + case.m) % 2
    total = 0
    for x, y in case.people():
        total ^= int((x + y) % 2 != corner_parity)
    return total != 0
