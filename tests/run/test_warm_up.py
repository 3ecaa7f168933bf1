"""Every worker answers one real case per stage before any timed case: the problem's first
sample, or the first case of its first tiny recipe when the stage refuses the sample. So a
stage's one-off costs (imports, JIT compiles, caches) never land in a case's time, and a
comparison of two runs does not see them as regressions.

The `coldstart` problem (`warm_problems/coldstart/`) has stages that burn 150 ms of CPU on
their first call in a process and log every call.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import pytest

from pipeline.problems import get_problem
from pipeline.programs.jobs import Job, SolverSpec
from pipeline.run.executors import LocalPoolExecutor
from pipeline.run.worker import warm_up_inputs
from pipeline.verdicts import Verdict

WARM_PROBLEMS = Path(__file__).resolve().parent / "warm_problems"
COLD_MS = 150


@pytest.fixture
def coldstart(monkeypatch, tmp_path):
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR", os.pathsep.join(
        [os.environ["PIPELINE_PROBLEMS_DIR"], str(WARM_PROBLEMS)]))
    log = tmp_path / "calls.log"
    monkeypatch.setenv("COLDSTART_LOG", str(log))
    return get_problem("coldstart"), log


def calls(log: Path) -> dict[int, list[tuple[str, int]]]:
    """pid -> the (stage, n) calls that process made, in order."""
    found: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for line in log.read_text().splitlines():
        pid, stage, n = line.split()
        found[int(pid)].append((stage, int(n)))
    return found


def spec(name: str) -> SolverSpec:
    return SolverSpec(name=name, kind="stage", problem="coldstart", stage=name, timeout_s=10)


def test_the_warm_up_inputs_are_the_first_sample_then_the_first_tiny_case(coldstart):
    problem, _ = coldstart
    tiny = problem.render(problem.generate("tiny", 0))
    assert warm_up_inputs(problem) == ("50\n", tiny)


def test_no_timed_case_pays_the_first_call_cost(coldstart):
    problem, log = coldstart
    tiny_n = problem.generate("tiny", 0)
    jobs = [Job(i, spec(name), f"c{i}-{name}", f"{n}\n")
            for i, (n, name) in enumerate([(n, name) for n in (1, 2, 3, 4)
                                            for name in ("fast", "brute", "off-by-one")])]
    with LocalPoolExecutor(2) as executor:
        outcomes = {job.key: outcome for job, outcome in executor.run(jobs)}
    assert all(o.verdict is None for o in outcomes.values())
    # a generous bound: without the warm-up the first case of each stage on each worker
    # takes the whole 150 ms
    assert max(o.cpu_ms for o in outcomes.values()) < COLD_MS / 3
    timed = {(name, n) for n in (1, 2, 3, 4) for name in ("fast", "brute", "off-by-one")}
    workers = {pid: made for pid, made in calls(log).items()
               if any(call in timed for call in made)}
    assert 1 <= len(workers) <= 2
    for pid, made in workers.items():
        for name in {name for name, _ in made}:
            first = next(n for stage, n in made if stage == name)
            # fast takes the sample (n = 50); brute refuses it and takes the tiny case
            assert first == (tiny_n if name == "brute" else 50), (pid, name, made)
    # the known-wrong stage was first tried in a forked copy of the worker
    copies = [made for pid, made in calls(log).items() if pid not in workers]
    assert copies and all(made == [("off-by-one", 50)] for made in copies)


def test_a_known_wrong_stage_that_kills_its_process_costs_the_others_nothing(coldstart):
    jobs = [Job(i, spec("doomed" if i == 2 else "fast"), f"c{i}", f"{i}\n") for i in range(6)]
    with LocalPoolExecutor(1) as executor:
        outcomes = {job.key: outcome for job, outcome in executor.run(jobs)}
    assert outcomes[2].verdict == Verdict.JE  # its worker died, then the fresh one too
    assert outcomes[2].error.startswith("judge error: its worker died twice (")
    assert [outcomes[i].answer for i in (0, 1, 3, 4, 5)] == ["0\n", "2\n", "6\n", "8\n", "10\n"]


def test_two_real_runs_compare_without_warm_up_regressions(coldstart, tmp_path):
    """`pipeline run` twice (real workers), then `pipeline compare`: no case is slower, the
    verdict line agrees with the body."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    def pipeline(*args: str):
        result = CliRunner().invoke(app, ["--data-dir", str(data), *args],
                                    catch_exceptions=False)
        return result.exit_code, result.stdout

    data = tmp_path / "data"
    folder = data / "raw" / "coldstart" / "t"
    folder.mkdir(parents=True)
    for n in range(40):
        (folder / f"{n:02d}.in").write_text(f"{n}\n")
    assert pipeline("ingest")[0] == 0
    for _ in range(2):
        code, out = pipeline("run", "--problem", "coldstart", "--solver", "fast", "--solver",
                             "off-by-one", "--jobs", "2")
        assert code == 0, out
    code, out = pipeline("compare", "--problem", "coldstart")
    assert code == 0, out
    assert "0 flagged slowdowns" in out and "noted slow" not in out
    assert out.rstrip().splitlines()[-1] == "OK: no new failures, no flagged slowdowns"
    code, out = pipeline("query", "SELECT max(cpu_ms) AS worst FROM results", "--format", "csv")
    assert float(out.splitlines()[1]) < COLD_MS / 3            # no case paid the first call
