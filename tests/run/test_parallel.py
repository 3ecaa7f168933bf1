"""Work that waits on programs runs a core's worth at once (`programs.parallel.on_cores`)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from pipeline.programs.procs import on_cores


def test_results_come_back_in_the_order_of_the_items():
    items = list(range(20))
    assert on_cores(lambda n: n * n, items) == [n * n for n in items]
    assert on_cores(lambda n: n, []) == []


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: items run one by one")
def test_two_items_run_at_once_each_waiting_on_a_real_program():
    """Each item waits for the other at a barrier, after a program of its own ran: one item
    at a time would leave the first waiting there until the barrier's time is up."""
    meeting = threading.Barrier(2, timeout=30)

    def item(word: str) -> str:
        done = subprocess.run([sys.executable, "-c", f"print({word!r})"], capture_output=True,
                              text=True, timeout=30)
        meeting.wait()
        return done.stdout.strip()

    assert on_cores(item, ["left", "right"]) == ["left", "right"]


def test_what_an_item_raises_is_raised_in_the_callers_thread_after_the_others_ended():
    finished = []

    def item(n: int) -> int:
        if n == 3:
            raise ValueError("item 3 is bad")
        finished.append(n)
        return n

    with pytest.raises(ValueError, match="item 3 is bad"):
        on_cores(item, range(8))
    assert sorted(finished) == [0, 1, 2, 4, 5, 6, 7]
