"""coldstart: input `n` (0 <= n <= 10^6), answer `2n`. Registered only in the warm-up tests.

Every stage pays COLD_CPU_MS of CPU the first time it is called in a process (as a kernel
being compiled or loaded does) and nothing after, and appends `pid stage n` to the file named by
`COLDSTART_LOG` (when set) on every call, so a test can see which inputs each worker answered
and in which order:

- `brute`: counts up; refuses n > 5, so the first sample (n = 50) is beyond it;
- `fast`: 2n;
- `off-by-one`: 2n + 1 (known wrong);
- `doomed`: kills the process it runs in with SIGKILL (known wrong).
"""

from __future__ import annotations

import os
import signal
import time

from pipeline.problems.base import Recipe, Stage, define_problem
from pipeline.problems.tokens import TokenReader

COLD_CPU_MS = 150
BRUTE_MAX = 5
_called: set[str] = set()


def parse(text: str) -> int:
    reader = TokenReader(text)
    n = reader.int("n", 0, 10**6)
    reader.end()
    return n


def render(n: int) -> str:
    return f"{n}\n"


def format_answer(n: int, answer: int) -> str:
    return f"{answer}\n"


def validate_answer(n: int, text: str) -> None:
    reader = TokenReader(text)
    reader.int("answer", 0)
    reader.end()


def _first_call_cost(stage: str, n: int) -> None:
    log = os.environ.get("COLDSTART_LOG")
    if log:
        with open(log, "a") as handle:
            handle.write(f"{os.getpid()} {stage} {n}\n")
    if stage not in _called:
        _called.add(stage)
        until = time.process_time() + COLD_CPU_MS / 1000
        while time.process_time() < until:
            pass


def brute(n: int) -> int:
    _first_call_cost("brute", n)
    total = 0
    for _ in range(n):
        total += 2
    return total


def fast(n: int) -> int:
    _first_call_cost("fast", n)
    return 2 * n


def off_by_one(n: int) -> int:
    _first_call_cost("off-by-one", n)
    return 2 * n + 1


def doomed(n: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return 0


STAGES = (
    Stage("brute", brute, "counts up", "O(n)", limits=f"n <= {BRUTE_MAX}",
          refuses=lambda n: None if n <= BRUTE_MAX else f"n = {n} is above {BRUTE_MAX}"),
    Stage("fast", fast, "2n", "O(1)"),
    Stage("off-by-one", off_by_one, "2n + 1", "O(1)", counterexample=lambda: 0),
    Stage("doomed", doomed, "kills its process", "O(1)", counterexample=lambda: 0),
)

RECIPES = (
    Recipe("tiny", "tiny", "n <= 5", lambda rng: rng.randint(0, BRUTE_MAX)),
    Recipe("big", "max", "n up to 10^6", lambda rng: rng.randint(0, 10**6)),
)

PROBLEM = define_problem(
    __file__, parse=parse, render=render, format_answer=format_answer,
    validate_answer=validate_answer, size=lambda n: n, size_values=lambda n: {},
    stages=STAGES, recipes=RECIPES)
