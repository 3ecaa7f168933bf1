"""What `pipeline problems` says about each problem: limits, stages with their roles, own
solutions (a package's submissions with the verdicts their folders expect), recipes."""

from __future__ import annotations

from pipeline.problems.model import Problem


def describe(problem: Problem) -> str:
    kind = f"; {problem.origin}" if problem.origin else ""
    limit = (f"time limit {problem.time_limit_s:g} s" if not getattr(
        problem, "time_limit_pending", False) else "time limit derived from its accepted "
        "submissions by the first run")
    lines = [f"{problem.id}  {problem.title}  ({limit}, memory {problem.memory_mb} MB; "
             f"size = {problem.size_measure}{kind})"]
    for stage in problem.stages:
        flag = "  [known wrong]" if stage.known_wrong else ""
        lines.append(f"  {stage.name:<18} {stage.role:<11} {stage.complexity:<22} "
                     f"limits: {stage.limits}{flag}")
    width = max([18, *(len(p.name) for p in (*problem.solutions, *problem.submissions))])
    for role, programs in (("program", problem.solutions), ("submission", problem.submissions)):
        for program in programs:
            expected = f"expected {program.expected}" if program.expected else "our solution"
            lines.append(f"  {program.name:<{width}} {role:<11} {expected}".rstrip())
    if problem.recipes:
        lines.append(f"  recipes: {', '.join(r.name for r in problem.recipes)}")
    return "\n".join(lines)
