"""On the nightly corpus of every built-in problem with a stage known to be wrong, `pipeline
strength` names a smallest set of cases that kills every such stage; a data folder holding
only that set (its inputs, and expected outputs where the corpus has them) kills each again.

Everything is real: the corpus is the one `pipeline nightly` generates (the problem's
`[nightly]` counts and `configs/nightly.toml`'s seed), ingested, run and measured through the
real `pipeline` command. Only the known-wrong stages are run: they are what strength judges.
The data folders are in memory (`in_memory`): the test writes thousands of case files, each
synced on its own, and tests strength, not the disk.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_strength import killed, pipeline, strength_of

from pipeline.config import read_nightly_settings
from pipeline.nightly import build_corpus
from pipeline.problems import get_problem, module_problem_ids


def _known_wrong(problem_id: str) -> list[str]:
    return [stage.name for stage in get_problem(problem_id).stages
            if stage.role == "known-wrong"]


WITH_KNOWN_WRONG = [p for p in module_problem_ids() if _known_wrong(p)]


def test_some_built_in_problem_registers_a_known_wrong_stage() -> None:
    assert WITH_KNOWN_WRONG, "no built-in problem has a known-wrong stage to kill"


@pytest.mark.slow
@pytest.mark.parametrize("problem_id", WITH_KNOWN_WRONG)
def test_the_smallest_set_of_the_nightly_corpus_kills_every_known_wrong_stage_again(
        problem_id: str, in_memory: Path) -> None:
    tmp_path = in_memory  # the folders of the test, as `tmp_path` would be
    problem = get_problem(problem_id)
    wrong = _known_wrong(problem_id)
    data = tmp_path / "data"
    build_corpus(data, read_nightly_settings(), [problem], log=lambda line: None)
    assert pipeline(data, "ingest", str(data / "raw")).returncode == 0
    stages = [word for name in wrong for word in ("--solver", name)]
    done = pipeline(data, "run", "--problem", problem_id, *stages)
    assert done.returncode == 0, done.stdout + done.stderr

    report = strength_of(data, problem_id)
    assert report["cases"] >= 2000, "the nightly corpus has at least 2,000 cases a problem"
    assert killed(report) == set(wrong), "the nightly corpus kills every known-wrong stage"
    chosen = set(report["smallest_set"])
    assert 0 < len(chosen) <= len(wrong)  # one case a stage at most, or the set is not smallest
    sources = {case["case_id"]: case["source"] for case in report["per_case"]}

    only = tmp_path / "only" / problem_id
    only.mkdir(parents=True)
    for index, case_id in enumerate(sorted(chosen)):
        source = data / "raw" / sources[case_id]
        shutil.copy(source, only / f"{index:02d}.in")
        if source.with_suffix(".out").exists():  # max tests have none: the run's reference judges
            shutil.copy(source.with_suffix(".out"), only / f"{index:02d}.out")
    again = tmp_path / "again"
    assert pipeline(again, "ingest", str(tmp_path / "only")).returncode == 0
    pipeline(again, "run", "--problem", problem_id, *stages)
    rerun = strength_of(again, problem_id)
    assert rerun["cases"] == len(chosen)
    assert killed(rerun) == set(wrong)
