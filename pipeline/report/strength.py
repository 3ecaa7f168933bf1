"""How strong a problem's tests are: which case kills which wrong program (one that must fail,
`report.load.must_fail`), the fewest cases that still kill every one the whole set kills, and
which input bounds the stored cases reach (`Problem.bound_coverage`); the rules:
docs/commands.md#pipeline-strength.
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import polars as pl

from pipeline.problems.model import NO_BOUNDS, BoundCoverage
from pipeline.report.load import collapsed_results, load_cases, must_fail, registered
from pipeline.report.mismatches import plural
from pipeline.tables.results import run_rows
from pipeline.tables.schemas import STRENGTH
from pipeline.verdicts import FAILURES, SPELLINGS, Verdict

EXACT_MAX_PROGRAMS = 16
_ANY_FAILURE = frozenset(v.value for v in FAILURES if v is not Verdict.CE)


@dataclass(frozen=True)
class WrongProgram:
    solver: str
    why: str                   # "expected to be wrong_answer", or the stage's known flaw
    kill_verdicts: tuple[str, ...]
    killed_by: tuple[str, ...]  # case ids, in the run's case order

    @property
    def survives(self) -> bool:
        return not self.killed_by


@dataclass(frozen=True)
class CaseStrength:
    case_id: str
    source: str | None
    kills: tuple[str, ...]       # the wrong programs this case kills
    only_kills: tuple[str, ...]  # those no other case kills
    cpu_ms: float                # every solver's CPU time on it, added up


@dataclass(frozen=True)
class Strength:
    problem: str
    run_id: str
    cases: int
    programs: tuple[WrongProgram, ...]
    per_case: tuple[CaseStrength, ...]
    smallest_set: tuple[str, ...]
    method: str                  # "exact" or "greedy (at most H(d) = x times the fewest)"
    total_cpu_ms: float
    saved_cpu_ms: float

    @property
    def survivors(self) -> tuple[str, ...]:
        return tuple(p.solver for p in self.programs if p.survives)


def kill_verdicts(why: str) -> frozenset[str]:
    """The verdicts that kill a wrong program, from what is said to be wrong with it."""
    prefix = "expected to be "
    if why.startswith(prefix):
        expected = SPELLINGS["expected folder"].get(why[len(prefix):].strip())
        if expected is not None:  # MLE and OLE count as RE, as Kattis counts them
            also = (Verdict.MLE, Verdict.OLE) if expected is Verdict.RE else ()
            return frozenset(v.value for v in (expected, *also))
    return _ANY_FAILURE


def smallest_cover(masks: Sequence[int], universe: int) -> tuple[list[int], str]:
    """Indexes of the fewest masks whose union is `universe` (every bit of it is in some
    mask), and how they were found: exact when the universe is small, greedy beyond."""
    if universe == 0:
        return [], "exact"
    bits = universe.bit_count()
    if bits <= EXACT_MAX_PROGRAMS:
        return _exact_cover(masks, universe), "exact"
    chosen = _greedy_cover(masks, universe)
    most = max((m & universe).bit_count() for m in masks)
    bound = sum(1 / k for k in range(1, most + 1))
    return chosen, f"greedy (at most H({most}) = {bound:.2f} times the fewest possible)"


def _exact_cover(masks: Sequence[int], universe: int) -> list[int]:
    # One case per distinct kill set (the first), and none whose kills another's include.
    distinct: dict[int, int] = {}
    for index, mask in enumerate(masks):
        distinct.setdefault(mask & universe, index)
    useful = [(m, i) for m, i in distinct.items()
              if m and not any(o != m and o & m == m for o in distinct)]
    came_from: dict[int, tuple[int, int]] = {0: (0, -1)}
    frontier = [0]
    while universe not in came_from:
        reached = []
        for state in frontier:
            for mask, index in useful:
                union = state | mask
                if union not in came_from:
                    came_from[union] = (state, index)
                    reached.append(union)
        frontier = reached
    chosen, state = [], universe
    while state:
        state, index = came_from[state]
        chosen.append(index)
    return sorted(chosen)


def _greedy_cover(masks: Sequence[int], universe: int) -> list[int]:
    chosen, left = [], universe
    while left:
        best = max(range(len(masks)), key=lambda i: ((masks[i] & left).bit_count(), -i))
        chosen.append(best)
        left &= ~masks[best]
    return sorted(chosen)


def measure_strength(problem: str, run_id: str, results, cases) -> Strength:
    """The strength of the run's cases from its collapsed results (one row per case and
    solver, `report.load.collapse_repeats`) and its cases (`load_cases`)."""
    results = results.filter((pl.col("run_id") == run_id) & (pl.col("problem") == problem))
    order = list(dict.fromkeys(results["case_id"].to_list()))
    sources = dict(zip(cases["case_id"].to_list(), cases["source"].to_list()))
    cpu = results.group_by("case_id").agg(pl.col("cpu_ms").fill_null(0).sum())
    cpu_of = dict(zip(cpu["case_id"].to_list(), cpu["cpu_ms"].to_list()))
    programs: list[WrongProgram] = []
    for solver in sorted(set(results["solver"].to_list())):
        why = must_fail(problem, solver)
        if why is None:
            continue
        verdicts = kill_verdicts(why)
        rows = results.filter(pl.col("solver") == solver)
        killing = set(rows.filter(pl.col("verdict").is_in(list(verdicts)))["case_id"].to_list())
        programs.append(WrongProgram(solver, why, tuple(sorted(verdicts)),
                                     tuple(c for c in order if c in killing)))
    kills_of: dict[str, list[str]] = {case: [] for case in order}
    for program in programs:
        for case in program.killed_by:
            kills_of[case].append(program.solver)
    bit = {p.solver: 1 << n for n, p in enumerate(programs)}
    masks = [sum(bit[s] for s in kills_of[case]) for case in order]
    chosen, method = smallest_cover(masks, functools.reduce(operator.or_, masks, 0))
    smallest = tuple(order[i] for i in chosen)
    per_case = tuple(CaseStrength(
        case, sources.get(case), tuple(kills_of[case]),
        tuple(s for s in kills_of[case]
              if next(p for p in programs if p.solver == s).killed_by == (case,)),
        float(cpu_of.get(case, 0.0))) for case in order)
    total = sum(c.cpu_ms for c in per_case)
    kept = sum(c.cpu_ms for c in per_case if c.case_id in set(smallest))
    return Strength(problem, run_id, len(order), tuple(programs), per_case, smallest, method,
                    total, total - kept)


def strength_of_runs(data_dir: Path, run_ids: Iterable[str]) -> list[Strength]:
    """The strength of each run's cases (each run is of one problem)."""
    rows = run_rows(data_dir, run_ids)
    return [measure_strength(problem, run_id, collapsed_results(data_dir, [run_id], problem),
                             load_cases(data_dir, [problem]))
            for run_id in run_ids for problem in [rows[run_id]["problem"]]]


def strength_rows(strength: Strength) -> list[dict]:
    """The rows of the `strength` table for one run: one per case."""
    chosen = set(strength.smallest_set)
    return [{"run_id": strength.run_id, "problem": strength.problem, "case_id": c.case_id,
             "source": c.source, "kills": list(c.kills), "only_kills": list(c.only_kills),
             "in_smallest_set": c.case_id in chosen, "set_method": strength.method,
             "cpu_ms": c.cpu_ms, "survivors": list(strength.survivors)}
            for c in strength.per_case]


def as_json(strengths: Sequence[Strength], coverage: dict[str, list] | None = None) -> str:
    """One JSON object per run; `coverage` (per problem) is added as its `coverage`."""
    return "\n".join(json.dumps({**asdict(s), "survivors": list(s.survivors),
                                 "coverage": (coverage or {}).get(s.problem, [])}, default=str)
                     for s in strengths) + "\n"


def as_csv(strengths: Sequence[Strength]) -> str:
    """One CSV row per case of every run: the `strength` table's columns but `measured_at`,
    lists joined by `;`."""
    rows = [row for s in strengths for row in strength_rows(s)]
    columns = [name for name in STRENGTH if name != "measured_at"]
    frame = pl.DataFrame(rows, schema={n: STRENGTH[n] for n in columns}, strict=False)
    frame = frame.with_columns(pl.col(n).list.join(";") for n in columns
                               if isinstance(STRENGTH[n], pl.List))
    return frame.write_csv()


def _cpu(ms: float) -> str:
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.1f} ms"


def format_strength(strength: Strength, top: int = 10) -> str:
    where = {c.case_id: c.source or c.case_id[:12] for c in strength.per_case}
    lines = [f"{strength.problem} (run {strength.run_id}): {strength.cases} cases, "
             f"{plural(len(strength.programs), 'wrong program')}"]
    if not strength.programs:
        lines.append("  no wrong programs in this run (known-wrong stages, or submissions "
                     "expected to fail): nothing to measure the tests against")
        return "\n".join(lines)
    width = max(len(p.solver) for p in strength.programs)
    for program in strength.programs:
        if program.survives:
            state = f"SURVIVES every case (killed by {'/'.join(program.kill_verdicts)})"
        else:
            first = ", ".join(where[c] for c in program.killed_by[:3]) + (
                f", ... ({len(program.killed_by)} cases)" if len(program.killed_by) > 3 else "")
            state = f"killed by {plural(len(program.killed_by), 'case')}: {first}"
        lines.append(f"  {program.solver:<{width}}  {program.why}: {state}")
    if killed := sum(not p.survives for p in strength.programs):
        lines.append(f"  smallest set killing all {killed} killed programs: "
                     f"{len(strength.smallest_set)} of {strength.cases} cases "
                     f"({strength.method}): "
                     + ", ".join(where[c] for c in strength.smallest_set))
    else:
        lines.append(f"  no case kills any wrong program (`pipeline harden --problem "
                     f"{strength.problem}` looks for cases that do)")
    if strength.total_cpu_ms:
        lines.append(f"  running only that set saves {_cpu(strength.saved_cpu_ms)} of "
                     f"{_cpu(strength.total_cpu_ms)} CPU per run of every program "
                     f"({strength.saved_cpu_ms / strength.total_cpu_ms:.0%})")
    strongest = sorted((c for c in strength.per_case if c.kills),
                       key=lambda c: (-len(c.only_kills), -len(c.kills)))[:top]
    if strongest:
        lines.append("  cases that kill most (kills / only this case kills):")
        lines += [f"    {len(case.kills):>3} / {len(case.only_kills):<3} "
                  f"{where[case.case_id]}  ({case.case_id[:12]})" for case in strongest]
    if idle := sum(1 for c in strength.per_case if not c.kills):
        lines.append(f"  {idle} cases kill no wrong program")
    if strength.survivors:
        lines.append(f"  SURVIVORS: {', '.join(strength.survivors)}: no case kills them "
                     f"(`pipeline harden --problem {strength.problem}` looks for one and adds it "
                     "to the tests)")
    return "\n".join(lines)


# -- constraint coverage ------------------------------------------------------------------------

UNKNOWN_BOUND = "as the validator checks"


def stored_coverage(data_dir, problem) -> tuple[BoundCoverage, ...]:
    """Coverage of the problem's bounds by its stored cases (each input with the test group
    it was found in), as the problem's hook `bound_coverage` counts it."""
    cases = load_cases(data_dir, [problem.id])  # (its columns even when there is no case)
    return problem.bound_coverage([(text, group or "") for text, group in
                                   zip(cases["input"].to_list(), cases["group"].to_list())])


def coverage_of_problems(data_dir, problem_ids) -> tuple[dict[str, tuple[BoundCoverage, ...]],
                                                         dict[str, str]]:
    """Each problem's coverage by its stored cases, and what is said where it has none
    (`Problem.why_no_coverage`; a problem no longer registered has none)."""
    problems = {problem_id: registered(problem_id) for problem_id in problem_ids}
    covered = {pid: stored_coverage(data_dir, p) if p else () for pid, p in problems.items()}
    return covered, {pid: p.why_no_coverage() for pid, p in problems.items() if p}


def _number(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if abs(value) < 10**7 else f"{value:.3g}"


def allowed_text(row: BoundCoverage) -> str:
    """The bound's allowed range: `1..100`, or "as the validator checks" when unknown."""
    if row.low is None and row.high is None:
        return UNKNOWN_BOUND
    return f"{_number(row.low)}..{_number(row.high)}"


def reached_text(row: BoundCoverage) -> str:
    """The values the cases reach: `1..8`, `-..-` when no case has the quantity, or "-" when
    the values are unknown (the bound's ends are too)."""
    if row.low is None and row.high is None and row.lowest is None and row.highest is None:
        return "-"
    return f"{_number(row.lowest)}..{_number(row.highest)}"


def format_coverage(problem_id: str, rows: tuple[BoundCoverage, ...],
                    why_none: str = NO_BOUNDS) -> str:
    """The coverage as text; `why_none` says why there is none (`why_no_coverage()`)."""
    if not rows:
        return f"constraint coverage of {problem_id}: {why_none}"
    width = max(len(r.name) for r in rows)
    lines = [f"constraint coverage of {problem_id} (bound: allowed, reached, cases at each end)"]
    for row in rows:
        warn = (f"  WARNING: no case reaches its {' or '.join(row.unreached)} end"
                if row.unreached else "")
        lines.append(f"  {row.name:<{width}}  {allowed_text(row)}  reached {reached_text(row)}"
                     f"  at low {row.at_low}, at high {row.at_high}{warn}")
    return "\n".join(lines)
