"""Validating judge files with their problem's own parser, on every core when it pays.

`validate(problem_id, items, jobs)` parses each new input (its size measures come with it) and
checks each new expected output against its case. Small batches run in this process; when the
new bytes add up to more than `PARALLEL_FROM_BYTES`, they are split into batches that worker
processes (each importing the problem once) validate in parallel.

Every outcome is a value, never an exception: an `InputError` becomes the item's error with its
line and rule; any other failure of a parser is a `parser-error`; a worker that dies on an item
gets that item alone retried in a fresh worker, and an item that kills it again is a
`parser-crashed` error. So one bad file never costs the good ones.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from pipeline.errors import InputError

PARALLEL_FROM_BYTES = 8 << 20
BATCH_BYTES = 4 << 20
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


def _short(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " ..."


def check_items(problem_id: str, items: Iterable[Item]) -> list[Checked]:
    """Validate items with the problem's parser (in this process)."""
    from pipeline.problems import get_problem

    problem = get_problem(problem_id)
    out = []
    for item in items:
        part = "input"
        try:
            case = problem.validate_input(item.text, item.group)
            size, values = problem.size(case), dict(problem.size_values(case))
            if item.expected is not None:
                part = "expected"
                problem.validate_answer(case, item.expected)
        except InputError as error:
            out.append(Checked(item.index, error=Flaw(part, error.line, error.column,
                                                          error.rule, _short(error.message))))
            continue
        except MemoryError:
            out.append(Checked(item.index, error=Flaw(
                part, None, None, "too-large", "the parser ran out of memory on this file")))
            continue
        except RecursionError:
            out.append(Checked(item.index, error=Flaw(
                part, None, None, "parser-error", "the parser recursed too deeply")))
            continue
        except Exception as error:  # a parser bug must not sink the other files
            out.append(Checked(item.index, error=Flaw(
                part, None, None, "parser-error", _short(f"the problem's parser failed: "
                                                         f"{type(error).__name__}: {error}"))))
            continue
        out.append(Checked(item.index, size, values))
    return out


def _batches(items: list[Item]) -> list[list[Item]]:
    batches: list[list[Item]] = []
    current: list[Item] = []
    size = 0
    for item in items:
        if current and (size + len(item.text) > BATCH_BYTES or len(current) >= BATCH_ITEMS):
            batches.append(current)
            current, size = [], 0
        current.append(item)
        size += len(item.text) + len(item.expected or "")
    if current:
        batches.append(current)
    return batches


def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context("spawn"))


def validate(problem_id: str, items: list[Item], jobs: int | None = None) -> dict[int, Checked]:
    """Checked result of every item, by index."""
    total = sum(len(i.text) + len(i.expected or "") for i in items)
    workers = min(jobs or os.cpu_count() or 1, max(1, total // BATCH_BYTES))
    if total < PARALLEL_FROM_BYTES or workers < 2:
        return {c.index: c for c in check_items(problem_id, items)}
    results: dict[int, Checked] = {}
    lost: list[Item] = []
    with _pool(workers) as pool:
        futures = [(batch, pool.submit(check_items, problem_id, batch))
                   for batch in _batches(items)]
        for batch, future in futures:
            try:
                results.update((c.index, c) for c in future.result())
            except BrokenProcessPool:
                lost.extend(batch)
    for item in lost:  # one at a time, each in a fresh worker: find the one that kills it
        with _pool(1) as pool:
            try:
                [checked] = pool.submit(check_items, problem_id, [item]).result()
            except BrokenProcessPool:
                checked = Checked(item.index, error=Flaw(
                    "input", None, None, "parser-crashed",
                    "the validating process died while parsing this file"))
        results[item.index] = checked
    return results
