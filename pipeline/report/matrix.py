"""The verdict matrix: for each problem and solver, how many cases got each verdict.

Counts are per case (the repeats of a case are folded into its worst verdict first).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipeline.verdicts import display_rank


@dataclass(frozen=True)
class VerdictMatrix:
    problems: tuple[str, ...]
    solvers: tuple[str, ...]                              # every solver of any problem
    counts: tuple[tuple[str, str, str, int], ...]         # (problem, solver, verdict, cases)

    def cell(self, problem: str, solver: str) -> dict[str, int]:
        """Verdict -> cases for one problem and solver (empty when it did not run)."""
        found = {v: n for p, s, v, n in self.counts if (p, s) == (problem, solver)}
        return {v: found[v] for v in sorted(found, key=display_rank)}


def verdict_matrix(results: pl.DataFrame) -> VerdictMatrix:
    """From collapsed results (columns `problem`, `solver`, `verdict`)."""
    counts = results.group_by("problem", "solver", "verdict", maintain_order=True).len()
    return VerdictMatrix(
        problems=tuple(sorted(set(results["problem"].to_list()))),
        solvers=tuple(dict.fromkeys(results["solver"].to_list())),
        counts=tuple((p, s, v, int(n)) for p, s, v, n in counts.iter_rows()))
