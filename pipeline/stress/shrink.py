"""Shrinking a failing case until no single step keeps the failure (the order, the passes and
why the result does not depend on workers or timing: docs/stress.md#shrinking). A candidate
counts when the problem parses it, it is strictly simpler (`simplicity`: every step is, so
shrinking ends), the input validators accept it, and S fails on it the same way against R.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pipeline.problems.model import Case, Problem
from pipeline.stress import generic
from pipeline.stress.judge import Judge, Trial

MAX_CHUNK = 64
Simplicity = tuple[int, int, str]


def simplicity(problem: Problem, case: Case, text: str) -> Simplicity:
    """The key of the order: compare two keys with `<`."""
    return (problem.size(case), len(text), text)


def simpler(problem: Problem, a: tuple[Case, str], b: tuple[Case, str]) -> bool:
    """Whether (case, text) `a` is strictly simpler than `b`."""
    return simplicity(problem, *a) < simplicity(problem, *b)


@dataclass(frozen=True)
class Pass:
    """One shrink pass: its candidates for the current (case, text), as cases to render
    (`structured`) or as judge texts."""

    name: str
    candidates: Callable[[Case, str], Iterable[Case | str]]
    structured: bool = False


@dataclass(frozen=True)
class Shrunk:
    case: Case
    trial: Trial
    steps: int                 # candidates accepted
    candidates: int            # candidates judged
    seconds: float
    last_step_s: float         # when the last accepted step was made (from the start)
    locally_minimal: bool      # every pass ran to the end without a candidate failing
    # Why it is not shown minimal: "deadline", "interrupted", "not reproduced" (flaky), or a
    # pass that raised.
    stopped: str | None = None


def passes_for(problem: Problem) -> list[Pass]:
    """The problem's own passes, or the generic text passes when it has none."""
    if problem.shrinks:
        return [Pass(getattr(edit, "__name__", "pass"), _of_case(edit), structured=True)
                for edit in problem.shrinks]
    return [Pass(name, _of_text(edit)) for name, edit in generic.SHRINK_PASSES]


def _of_case(edit: Callable[[Case], Iterable[Case]]) -> Callable[[Case, str], Iterable[Case]]:
    """A problem's shrink pass as a pass's candidates: it edits the case."""
    return lambda case, text: edit(case)


def _of_text(edit: Callable[[str], Iterable[str]]) -> Callable[[Case, str], Iterable[str]]:
    """A generic shrink pass as a pass's candidates: it edits the judge text."""
    return lambda case, text: edit(text)


class _Stop(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


def shrink(problem: Problem, judge: Judge, case: Case, trial: Trial, *,
           passes: list[Pass] | None = None, deadline: float | None = None,
           on_step: Callable[[int, int], None] | None = None, group: str = "") -> Shrunk:
    """The simplest case reachable from the failing (`case`, `trial`) by single steps that
    keep the failure. `on_step(before, after)` hears of every accepted step (sizes); `group`:
    the test group a package validates and judges the candidates as inputs of."""
    started = time.monotonic()
    passes = passes_for(problem) if passes is None else passes
    target = trial.verdict
    state = _State(problem, judge, case, trial, simplicity(problem, case, trial.text), target,
                   deadline, group)
    stopped = None
    try:
        progressed = True
        while progressed:
            progressed = False
            for shrink_pass in passes:
                while state.step(shrink_pass):
                    progressed = True
                    if on_step is not None:
                        on_step(trial.size, state.trial.size)
    except _Stop as stop:
        stopped = stop.reason
    except KeyboardInterrupt:
        stopped = "interrupted"
    final_case, final = state.case, state.trial
    if stopped is None:  # the passes ran to the end: judge the result once more
        again = judge.check([(final_case, final.text)], groups=[group or None])[0]
        if again.verdict == target:
            final = again
        else:  # flaky: keep the case the search started from
            stopped = "not reproduced"
            final_case, final = case, trial
    if stopped is None and state.broken:
        stopped = state.broken[0]
    return Shrunk(final_case, final, state.steps, state.judged, time.monotonic() - started,
                  state.last_step - started if state.steps else 0.0,
                  locally_minimal=stopped is None, stopped=stopped)


class _State:
    """The current case and what is known about candidates already judged."""

    def __init__(self, problem: Problem, judge: Judge, case: Case, trial: Trial,
                 key: Simplicity, target, deadline: float | None, group: str = "") -> None:
        self.problem, self.judge, self.group = problem, judge, group
        self.case, self.trial, self.key = case, trial, key
        self.target, self.deadline = target, deadline
        # Hashes of the texts judged that did not fail the same way, and of those the parser
        # or the input validators reject (a large case's texts would not all fit in memory).
        self.passed: set[int] = set()
        self.rejected: set[int] = set()
        self.broken: list[str] = []  # passes that raised (then the result is not shown minimal)
        self.steps = 0
        self.last_step = 0.0
        self.judged = 0
        self.chunk = max(2, judge.workers)

    def step(self, shrink_pass: Pass) -> bool:
        """Try the pass's candidates on the current case, boldest first; True when one was
        accepted (the pass then starts again from its boldest candidate)."""
        chunk: list[tuple[Case, str, Simplicity]] = []
        try:
            candidates = iter(shrink_pass.candidates(self.case, self.trial.text))
        except Exception as error:
            self.broken.append(f"pass {shrink_pass.name} raised {type(error).__name__}")
            return False
        while True:
            try:
                item = next(candidates)
            except StopIteration:
                break
            except Exception as error:  # a pass that breaks on this case ends there
                self.broken.append(f"pass {shrink_pass.name} raised {type(error).__name__}")
                break
            if shrink_pass.structured:
                try:
                    text = self.problem.render(item)
                except Exception:  # an edit that made an impossible case: not a candidate
                    continue
            else:
                text = item
            digest = hash(text)
            if digest in self.passed or digest in self.rejected:
                continue
            try:
                case = self.problem.parse(text)
            except Exception:
                self.rejected.add(digest)
                continue
            key = simplicity(self.problem, case, text)
            if not key < self.key:
                continue
            if self.problem.check_input is not None:
                try:
                    self.problem.validate_input(text, self.group)
                except Exception:
                    self.rejected.add(digest)
                    continue
            chunk.append((case, text, key))
            if len(chunk) >= self.chunk:
                if self._judge(chunk):
                    return True
                chunk = []
        return bool(chunk) and self._judge(chunk)

    def _judge(self, chunk: list[tuple[Case, str, Simplicity]]) -> bool:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise _Stop("deadline")
        started = time.monotonic()
        trials = self.judge.check([(case, text) for case, text, _ in chunk],
                                  groups=[self.group or None] * len(chunk))
        elapsed = time.monotonic() - started
        if elapsed < 0.05:
            self.chunk = min(MAX_CHUNK, self.chunk * 2)
        elif elapsed > 0.5:
            self.chunk = max(2, self.judge.workers, self.chunk // 2)
        self.judged += len(chunk)
        for (case, text, key), trial in zip(chunk, trials):
            if trial.verdict == self.target:
                self.case, self.trial, self.key = case, trial, key
                self.steps += 1
                self.last_step = time.monotonic()
                return True
            self.passed.add(hash(text))
        return False
