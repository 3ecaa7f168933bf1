"""The quick paths' helpers: a `LazyTuple` stands in for the tuple it builds, and the NumPy
bulk reader declines exactly what the native one declines."""

from __future__ import annotations

import copy
import pickle

import pytest

from pipeline.native.bulk import LazyTuple, numpy_uints, text_buffer, token_capacity


def lazy(items, calls=None):
    def build():
        if calls is not None:
            calls.append(1)
        return iter(items)
    return LazyTuple(len(items), build)


def test_a_lazy_tuple_is_built_once_on_first_use_and_not_for_its_length():
    calls: list[int] = []
    value = lazy((3, 1, 2), calls)
    assert len(value) == 3 and calls == []
    assert value[0] == 3 and value[1:] == (1, 2) and list(value) == [3, 1, 2]
    assert 2 in value and value.index(1) == 1 and value.count(3) == 1
    assert calls == [1]


def test_a_lazy_tuple_equals_and_hashes_like_its_tuple_both_ways():
    assert lazy((1, 2)) == (1, 2) and (1, 2) == lazy((1, 2))
    assert lazy((1, 2)) != (2, 1) and (1,) != lazy((1, 2))
    assert lazy((1, 2)) == lazy((1, 2)) and hash(lazy((1, 2))) == hash((1, 2))
    assert lazy((1, 2)) != [1, 2]  # like a tuple, never equal to a list
    assert {lazy((1, 2)): "a"}[(1, 2)] == "a"
    assert ((1, 2),) == (lazy((1, 2)),)  # inside a dataclass's field tuple too
    assert lazy((1,)) + (2,) == (1, 2) and (0,) + lazy((1,)) == (0, 1)
    assert repr(lazy((1, 2))) == "(1, 2)"


def test_a_lazy_tuple_pickles_and_copies_as_a_plain_tuple():
    for again in (pickle.loads(pickle.dumps(lazy((1, 2)))), copy.copy(lazy((1, 2))),
                  copy.deepcopy(lazy((1, 2)))):
        assert type(again) is tuple and again == (1, 2)


def test_a_lazy_tuple_whose_builder_disagrees_with_its_length_fails_loudly():
    wrong = LazyTuple(3, lambda: iter((1, 2)))
    with pytest.raises(ValueError, match="built 2 items, expected 3"):
        wrong.materialise()


def test_text_buffer_points_at_ascii_text_without_copying_and_declines_the_rest():
    import ctypes

    text = "12 34\n"
    address, length = text_buffer(text)
    assert length == 6 and ctypes.string_at(address, length) == b"12 34\n"
    assert text_buffer("12 é\n") is None


def test_numpy_uints_declines_what_the_native_reader_declines():
    assert numpy_uints(" 12\r\n0 9223372036854775806 \n", 10).tolist() == [12, 0, 2**63 - 2]
    for declined in ("007", "1 -2", "+3", "1.5", "9223372036854775807", "1\x0b2", "1\t2",
                     "1\x1c2", "1\xa02", "é", "4x", "", " \n", "1 2 3"):
        assert numpy_uints(declined, 2) is None, declined


def test_token_capacity_has_room_for_one_token_more_than_a_valid_input():
    assert token_capacity(10, 100) == 6 and token_capacity(10**6, 100) == 101
    assert token_capacity(0, 5) == 1
