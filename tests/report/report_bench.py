"""Small fixture tables for the report tests, written with the real table helpers.

A `Bench` writes into an empty data folder (the `bench` fixture of `conftest.py`):
`add_cases` writes a problem's cases file (`pipeline.store`), `add_run` writes a run row and
its results chunk (`pipeline.run.tables`).
`standard_run` writes one run of arc087e over the `STANDARD` cases with three solvers whose
times follow known power laws (brute ~ n^2, editorial ~ n^1.5, fast ~ n), and can slow a
solver down, break one answer or change the host, which is what the comparison tests need.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import polars as pl

from pipeline.problems import cases_schema
from pipeline.tables.files import write_problem_file
from pipeline.tables.results import write_results_chunk, write_run

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)

# (size, expected answer) of the standard arc087e cases, in the order they are stored.
STANDARD = [(1, "Alice"), (2, "Bob"), (5, "Alice"), (10, "Bob"), (40, "Alice"), (100, "Bob"),
            (400, "Alice"), (1000, "Bob"), (4000, "Alice"), (10000, "Bob")]
BRUTE_MAX = 100        # brute is SKIP above this size


def case_id_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def other(answer: str) -> str:
    return "Bob" if answer == "Alice" else "Alice"


@dataclass
class Bench:
    data: Path

    def add_cases(self, problem: str, specs: list[tuple[int, str | None]],
                  inputs: list[str] | None = None) -> list[str]:
        """Store cases (size, expected) of `problem`; returns their case ids in order."""
        inputs = inputs or [f"{problem} case {i}\nsize {size}\n"
                            for i, (size, _) in enumerate(specs)]
        rows = [{"problem": problem, "case_id": case_id_of(text),
                 "source": f"{problem}/t/{i:02d}.in", "sources": [f"{problem}/t/{i:02d}.in"],
                 "group": "t", "input": text, "expected": expected,
                 "expected_source": "file" if expected is not None else None, "size": size,
                 "input_bytes": len(text), "ingested_at": EPOCH}
                for i, ((size, expected), text) in enumerate(zip(specs, inputs))]
        write_problem_file(self.data, "cases", problem, pl.DataFrame(rows),
                                 cases_schema())
        return [row["case_id"] for row in rows]

    def add_run(self, run_id: str, problem: str, results: list[dict], *, minute: int = 0,
                host: str | None = "bench-1", status: str = "finished", repeat: int = 1,
                command: str = "test") -> str:
        """Store a run row and its results. Each result needs case_id, solver, verdict,
        answer, wall_ms and size; repeat defaults to 0."""
        started = EPOCH + timedelta(minutes=minute)
        solvers = list(dict.fromkeys(r["solver"] for r in results))
        write_run(self.data, {
            "run_id": run_id, "started_at": started, "finished_at": started + timedelta(
                seconds=30), "status": status, "problem": problem, "solvers": solvers,
            "git_rev": "abc123", "host": host, "cpu_model": "Test CPU", "jobs": 2,
            "timeout_s": 2.0, "repeat": repeat, "cases": len({r["case_id"] for r in results}),
            "command": command})
        rows = [{"run_id": run_id, "problem": problem, "repeat": 0,
                 "cpu_ms": r["wall_ms"] * 0.9 if r.get("wall_ms") is not None else None,
                 "host": host, "finished_at": started, **r} for r in results]
        if rows:
            write_results_chunk(self.data, run_id, 0, rows)
        return run_id

    def standard_cases(self) -> list[str]:
        return self.add_cases("arc087e", STANDARD)

    def standard_run(self, run_id: str, minute: int, *, host: str | None = "bench-1",
                     slow: dict[str, float] | None = None, wrong: dict[str, int] | None = None,
                     jitter: float = 0.0, repeats: int = 1, status: str = "finished",
                     solvers: tuple[str, ...] = ("brute", "editorial", "fast"),
                     command: str = "test") -> str:
        """One arc087e run over STANDARD: `slow` multiplies a solver's times, `wrong` makes
        a solver answer case number i wrongly, `jitter` perturbs times by +-jitter."""
        ids = [case_id_of(f"arc087e case {i}\nsize {size}\n")
               for i, (size, _) in enumerate(STANDARD)]
        laws = {"brute": lambda n: 0.02 * n ** 2, "editorial": lambda n: 0.001 * n ** 1.5,
                "fast": lambda n: 0.01 * n}
        results = []
        for i, ((size, expected), case_id) in enumerate(zip(STANDARD, ids)):
            for solver in solvers:
                for rep in range(repeats):
                    if solver == "brute" and size > BRUTE_MAX:
                        results.append({"case_id": case_id, "solver": solver, "repeat": rep,
                                        "verdict": "SKIP", "answer": None, "wall_ms": None,
                                        "size": size})
                        continue
                    sign = 1 if (i + rep) % 2 else -1
                    wall = laws[solver](size) * (slow or {}).get(solver, 1.0) * (
                        1 + sign * jitter)
                    answer = expected
                    if (wrong or {}).get(solver) == i:
                        answer = other(expected)
                    results.append({"case_id": case_id, "solver": solver, "repeat": rep,
                                    "verdict": "AC" if answer == expected else "WA",
                                    "answer": answer + "\n", "wall_ms": wall, "size": size})
        return self.add_run(run_id, "arc087e", results, minute=minute, host=host,
                            status=status, repeat=repeats, command=command)
