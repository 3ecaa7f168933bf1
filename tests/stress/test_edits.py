"""The helpers problems build their passes from: delta-debugging removals and lowered numbers."""

from __future__ import annotations

from pipeline.problems.edits import lower_int, removals, replaced, without


def test_removals_go_from_halves_to_single_items():
    ranges = [(r.start, r.stop) for r in removals(4)]
    assert ranges == [(0, 4), (0, 2), (2, 4), (0, 1), (1, 2), (2, 3), (3, 4)]


def test_removals_also_take_runs_of_every_power_of_two():
    sizes = {len(r) for r in removals(44)}
    assert sizes >= {44, 32, 22, 16, 11, 8, 6, 4, 3, 2, 1}  # (and the 12 left after 32)
    assert range(0, 4) in list(removals(44))


def test_removals_keep_a_minimum_and_never_repeat():
    ranges = [(r.start, r.stop) for r in removals(5, minimum_kept=1)]
    assert (0, 5) not in ranges
    assert len(ranges) == len(set(ranges))
    assert {(i, i + 1) for i in range(5)} <= set(ranges)


def test_lower_int_tries_the_floor_first_and_stays_below():
    assert list(lower_int(100)) == [0, 1, 50, 99]
    assert list(lower_int(5, floor=3)) == [3, 4]
    assert list(lower_int(1, floor=1)) == []


def test_without_and_replaced():
    assert without((1, 2, 3, 4), range(1, 3)) == (1, 4)
    assert replaced((1, 2, 3), 1, 9) == (1, 9, 3)
