"""Work that waits on programs (a generator per case, a validator per file), a core's worth at
once on daemon threads of this process: an interrupted command exits without them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def on_cores(function: Callable[[Item], Result], items: Iterable[Item]) -> list[Result]:
    """`function` of each item, in order, one item per core at once; what it raises is raised
    here once every item started has ended."""
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
