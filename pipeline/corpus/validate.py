"""Validating judge files with their problem's own parser, in this process for little work, else
in batches on one pool of workers. Every outcome is a value (an `InputError`, `parser-error`,
or `parser-crashed` for an item that kills a fresh worker twice), so one bad file never costs
the good ones.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.errors import InputError

if TYPE_CHECKING:  # the pool's modules are imported when a pool is started
    from concurrent.futures import ProcessPoolExecutor

PARALLEL_FROM_BYTES = 8 << 20
PARALLEL_FROM_ITEMS = 20_000
BATCH_BYTES = 1 << 20
BATCH_ITEMS = 2000
MESSAGE_CHARS = 400


@dataclass(frozen=True)
class Item:
    """One input to parse, and optionally an expected output to check against its case."""

    index: int
    text: str
    expected: str | None = None
    group: str = ""


@dataclass(frozen=True)
class Flaw:
    """What went wrong with an item: in its input or its expected output."""

    part: str                 # "input" or "expected"
    line: int | None
    column: int | None
    rule: str
    message: str


@dataclass(frozen=True)
class Checked:
    index: int
    size: int | None = None
    size_values: dict[str, int] | None = None
    error: Flaw | None = None


def short(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " ..."


# A check that spends at least this long waiting (wall time past this process's CPU time: a
# validator run as a program of its own) has the items after it checked a core's worth at once.
WAITING_CHECK_S = 0.002


def check_items(problem_id: str, items: Iterable[Item]) -> list[Checked]:
    """Validate items with the problem's parser in this process; on a thread per core when
    the first one waited on something else (a validator program)."""
    from pipeline.problems import get_problem

    problem = get_problem(problem_id)
    items = list(items)
    if not items:
        return []
    wall, cpu = time.perf_counter(), time.process_time()
    out = [_check(problem, items[0])]
    waited = (time.perf_counter() - wall) - (time.process_time() - cpu)
    if waited >= WAITING_CHECK_S:
        from pipeline.programs.procs import on_cores

        out += on_cores(lambda item: _check(problem, item), items[1:])
    else:
        out += [_check(problem, item) for item in items[1:]]
    if (judge := problem.package_judge) is not None:
        judge.finish_building()  # what checking started building is there for the runs
    return out


def _check(problem, item: Item) -> Checked:
    part = "input"
    try:
        case = problem.validate_input(item.text, item.group)
        size, values = problem.size(case), dict(problem.size_values(case))
        if item.expected is not None:
            part = "expected"
            problem.validate_answer(case, item.expected)
    except InputError as error:
        return Checked(item.index, error=Flaw(part, error.line, error.column, error.rule,
                                              short(error.message)))
    except MemoryError:
        return Checked(item.index, error=Flaw(
            part, None, None, "too-large", "the parser ran out of memory on this file"))
    except RecursionError:
        return Checked(item.index, error=Flaw(
            part, None, None, "parser-error", "the parser recursed too deeply"))
    except Exception as error:  # a parser bug must not sink the other files
        return Checked(item.index, error=Flaw(
            part, None, None, "parser-error", short(f"the problem's parser failed: "
                                                     f"{type(error).__name__}: {error}")))
    return Checked(item.index, size, values)


def _batches(items: list[Item], workers: int) -> list[range]:
    """Ranges of `items`, about `workers * 4` in all (so the cores stay busy to the end), each
    within `BATCH_BYTES` and `BATCH_ITEMS`, the largest (in bytes of text) first."""
    most_items = max(1, min(BATCH_ITEMS, -(-len(items) // (workers * 4))))
    batches: list[tuple[int, range]] = []  # (bytes, items)
    start, size = 0, 0
    for index, item in enumerate(items):
        if index > start and (size + len(item.text) > BATCH_BYTES
                              or index - start >= most_items):
            batches.append((size, range(start, index)))
            start, size = index, 0
        size += len(item.text) + len(item.expected or "")
    if start < len(items):
        batches.append((size, range(start, len(items))))
    return [batch for _, batch in sorted(batches, key=lambda b: -b[0])]


# The items of the validation under way, inherited by forked workers (so no text is copied
# to them); empty in a spawned worker, which gets its items as arguments.
_INHERITED: list[Item] = []


def _check_batch(problem_id: str, start: int, stop: int,
                 items: list[Item] | None) -> list[Checked]:
    return check_items(problem_id, _INHERITED[start:stop] if items is None else items)


def _start_worker(parent: int, sandbox: bool | None) -> None:
    """A worker leaves Ctrl-C, SIGTERM and SIGHUP to the parent, dies with the ingest, gives
    NumPy one BLAS thread, and sandboxes as the ingest does (a spawned one would not inherit it)."""
    from pipeline.programs.contained import use_sandbox
    from pipeline.programs.processes import die_with_parent

    use_sandbox(sandbox)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    die_with_parent(parent)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _pool(workers: int, fork: bool) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from pipeline.programs.contained import sandbox_switch

    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(
        "fork" if fork else "spawn"), initializer=_start_worker,
        initargs=(os.getpid(), sandbox_switch()))


@dataclass
class Pools(contextlib.AbstractContextManager["Pools"]):
    """The pool of validating workers, kept from one chunk to the next; shut down on leaving the
    context, its workers killed at once on an error (an interrupt must not wait for a parse)."""

    pool: ProcessPoolExecutor | None = None

    def __exit__(self, kind, error, trace) -> None:
        self.close(kill=kind is not None)

    def get(self, workers: int) -> tuple[ProcessPoolExecutor, bool]:
        """The pool (started with `workers` workers if there is none yet, forked when this
        process is single-threaded), and whether it was forked now."""
        from pipeline.programs.processes import single_threaded

        if self.pool is not None:
            return self.pool, False
        fork = single_threaded()
        self.pool = _pool(workers, fork)
        return self.pool, fork

    def close(self, kill: bool = False) -> None:
        import multiprocessing

        pool, self.pool = self.pool, None
        if pool is None:
            return
        if kill:
            for child in multiprocessing.active_children():
                child.kill()
            pool.shutdown(wait=False, cancel_futures=True)
        else:
            pool.shutdown()


def validate_all(problem_id: str, items: list[Item], jobs: int | None,
                 meanwhile: Callable[[], object], pools: Pools) -> dict[int, Checked]:
    """Checked result of every item of problem `problem_id`, by index, on `pools`; `meanwhile`
    is called while workers validate."""
    total = sum(len(i.text) + len(i.expected or "") for i in items)
    workers = min(jobs or os.cpu_count() or 1, max(1, total // BATCH_BYTES, len(items) // 1000))
    batches = _batches(items, workers)
    workers = min(workers, len(batches))  # one large input is parsed here, not in a copy
    if (total < PARALLEL_FROM_BYTES and len(items) < PARALLEL_FROM_ITEMS) or workers < 2:
        meanwhile()
        return {c.index: c for c in check_items(problem_id, items)}
    from concurrent.futures.process import BrokenProcessPool

    pool, inherit = pools.get(workers)
    results: dict[int, Checked] = {}
    lost: list[Item] = []
    if inherit:
        _INHERITED[:] = items
    try:
        try:
            futures = [(batch, pool.submit(_check_batch, problem_id, batch.start, batch.stop,
                                           None if inherit else items[batch.start:batch.stop]))
                       for batch in batches]
            meanwhile()
            for batch, future in futures:
                try:
                    results.update((c.index, c) for c in future.result())
                except BrokenProcessPool:
                    lost.extend(items[batch.start:batch.stop])
        except BaseException:  # interrupted: the workers stop now, not after their batch
            pools.close(kill=True)
            raise
    finally:
        _INHERITED.clear()
    if lost:  # a broken pool serves no more
        pools.close(kill=True)
    for item in lost:  # one at a time, each in a fresh worker: find the culprit
        with _pool(1, fork=False) as pool:
            try:
                [checked] = pool.submit(check_items, problem_id, [item]).result()
            except BrokenProcessPool:
                checked = Checked(item.index, error=Flaw(
                    "input", None, None, "parser-crashed",
                    "the validating process died while parsing this file"))
        results[item.index] = checked
    return results
