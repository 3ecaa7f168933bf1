"""`pipeline harden`: for each wrong program the tests let through (the survivors of the latest
finished run, or the ones named), a one-finding stress session finds and shrinks a case that
kills it, and `Problem.add_test` adds it to the problem's own tests. Names come from the
program and the case, so one seed adds the same files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from pipeline.errors import UserError
from pipeline.problems import get_problem
from pipeline.stress.findings import STRESS_GROUP, KeptCase, safe_name
from pipeline.stress.stress import StressRequest, stress
from pipeline.verdicts import Verdict


class HardenError(UserError):
    """Nothing to harden against: no finished run, or no wrong program named or surviving."""


@dataclass(frozen=True)
class Hardened:
    solver: str
    status: str                 # "added", "not found" (the budget passed), "interrupted",
                                # "rejected" (by ingest), "not added" (no answer to store)
    test: Path | None = None    # the input file added
    verdict: str | None = None  # the program's verdict on it
    detail: str = ""


def survivors(data_dir: Path, problem_id: str) -> list[str]:
    """The wrong programs no test of the problem's latest finished run kills: cases that are
    only in the groups stress and hunt keep theirs in (`found`, `hunt`) are no tests of the
    problem's own (a package's submissions are held to the package's tests)."""
    from pipeline.report.load import load_cases
    from pipeline.report.strength import strength_of_runs
    from pipeline.tables.results import latest_run_per_problem

    runs = latest_run_per_problem(data_dir, problem_id)
    if not runs:
        raise HardenError(f"no finished run of {problem_id} in {Path(data_dir).resolve()}: run "
                          f"'pipeline run --problem {problem_id}' first, or name the programs "
                          "with --solver")
    cases = load_cases(data_dir, [problem_id])
    kept_only = {case for case, groups in zip(cases["case_id"].to_list(),
                                              cases["groups"].to_list())
                 if groups and all(g.split("/")[0] in (STRESS_GROUP, "hunt") for g in groups)}
    strength = strength_of_runs(data_dir, runs)[0]
    return [p.solver for p in strength.programs if not set(p.killed_by) - kept_only]


def _judged_group(data_dir: Path, problem_id: str, kept: KeptCase | None) -> str | None:
    """The test group a kept finding was judged in (`found/secret/group2` -> `secret/group2`),
    None for the problem's default."""
    if kept is None:
        return None
    base = (Path(data_dir) / "raw" / problem_id / STRESS_GROUP).resolve()
    try:
        folder = kept.path.parent.resolve().relative_to(base)
    except ValueError:
        return None
    return None if folder == Path(".") else folder.as_posix()


def harden(data_dir: Path, request: StressRequest, solvers: tuple[str, ...] = (),
           log: Callable[[str], None] = print) -> list[Hardened]:
    """Harden the tests of `request.problem` against each of `solvers` (default: the
    survivors of its latest run); `request` is the stress session each one gets."""
    from pipeline.corpus.ingest import ingest
    from pipeline.problems.identity import case_id_of

    problem = get_problem(request.problem)
    targets = list(solvers) or survivors(data_dir, problem.id)
    if not targets:
        log(f"harden {problem.id}: every wrong program is already killed by some case "
            "(pipeline strength shows which)")
        return []
    done: list[Hardened] = []
    for solver in targets:
        log(f"harden {problem.id}: looking for a case that kills {solver}")
        summary = stress(data_dir, replace(request, solver=solver, stop_after=1))
        if not summary.failures:
            done.append(Hardened(solver, "interrupted" if summary.status == "interrupted"
                                 else "not found",
                                 detail=f"{summary.judged} cases judged, none kills it"))
            if summary.status == "interrupted":
                break
            continue
        found = summary.failures[0]
        trial = found.shrunk.trial
        assert trial.verdict is not None  # a failure found has its verdict
        name = f"harden-{safe_name(solver).replace('.', '_')}-{case_id_of(trial.text)[:12]}"
        group = _judged_group(data_dir, problem.id, found.kept)
        if trial.expected is None:  # the reference wrote no answer (an interactive problem)
            done.append(Hardened(solver, "not added", None, trial.verdict.value,
                                 "a case kills it, but there is no answer to store with it "
                                 "(the reference wrote none); add it to the tests by hand"))
            continue
        root, problem_override = problem.add_test(data_dir, name, trial.text, trial.expected,
                                                  group)
        stored = ingest(data_dir, [root], problem_override)
        added = next(root.rglob(f"{name}.in"))
        rejects = [r for part in stored.problems.values() for r in part.rejects]
        ours = [r for r in rejects if name in str(r.get("source", ""))]
        if ours or (rejects and not _stored(data_dir, problem.id, name)):
            first = (ours or rejects)[0]
            done.append(Hardened(solver, "rejected", added, trial.verdict.value,
                                 f"the new test is refused: {first.get('source')}: "
                                 f"{first.get('message')} [{first.get('rule')}]"))
            continue
        why = ("its answer differs from the reference's" if trial.verdict is Verdict.WA
               else trial.solver.error or "")
        done.append(Hardened(solver, "added", added, trial.verdict.value,
                             f"{trial.verdict.value} on it: {why}"))
    return done


def _stored(data_dir: Path, problem_id: str, name: str) -> bool:
    """Whether a stored case of the problem now comes from the test file `name`."""
    from pipeline.report.load import load_cases

    cases = load_cases(data_dir, [problem_id])
    return any(name in source for sources in cases["sources"].to_list()
               for source in sources or ())


def format_hardened(problem_id: str, done: list[Hardened]) -> str:
    lines = [f"harden {problem_id}:"] + [
        f"  {item.solver}: killed by the new test {item.test} ({item.detail})"
        if item.status == "added" else f"  {item.solver}: {item.status}: {item.detail}"
        for item in done]
    added = sum(item.status == "added" for item in done)
    lines.append(f"{added} test{'s' if added != 1 else ''} added; `pipeline run --problem "
                 f"{problem_id}` judges every program on them")
    return "\n".join(lines)
