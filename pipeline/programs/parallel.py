"""Work that waits on programs, a core's worth at once, on threads of this process.

Running a contained program mostly waits, so items that each run one (a generator per test
case, a validator per file, a compiler per program) run one per core at once on threads. The
threads are daemon threads: an interrupted command exits without them, and their programs die
with it (each launcher asks to be killed when the thread that started it is gone).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def on_cores(function: Callable[[Item], Result], items: Iterable[Item]) -> list[Result]:
    """`function` of each item, in the items' order, one item per core at once (at once
    in this thread for fewer than two). What `function` raises is raised here, in the
    caller's thread, once every item started has ended."""
    items = list(items)
    if len(items) < 2 or (os.cpu_count() or 1) < 2:
        return [function(item) for item in items]
    found: list[object] = [None] * len(items)
    failed: list[bool] = [False] * len(items)
    left = iter(range(len(items)))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                index = next(left, None)
            if index is None:
                return
            try:
                found[index] = function(items[index])
            except BaseException as error:  # raised again below, in the caller's thread
                found[index], failed[index] = error, True

    threads = [threading.Thread(target=work, name="on-cores", daemon=True)
               for _ in range(min(len(items), os.cpu_count() or 1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result, raised in zip(found, failed):
        if raised:
            raise result  # type: ignore[misc]
    return found  # type: ignore[return-value]
