"""The `dask` bench section end to end on tiny inputs: it starts its own loopback cluster, runs
both executors on both corpora, agrees on every verdict, records its rows and stops the cluster.

No timing is asserted (timings belong to `make bench`): only that the section measures what it
says it measures and leaves nothing running.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from runkit import alive, wait_until
from test_dask_executor import descendants

from benchmarks import dask as dask_section
from benchmarks import throughput, workspace
from benchmarks.common import close_launcher, make_context, row_schema

PROBLEM = "bipartitebattle"  # pure Python stages and a tiny C++ program: quick to run


@pytest.mark.slow
def test_the_dask_section_times_both_executors_on_both_corpora(tmp_path: Path) -> None:
    ctx = make_context(tmp_path / "work", tmp_path / "data" / "bench", quick=True)
    tiny = throughput.run_corpus(ctx, PROBLEM, cases=12, external_cases=4)
    binaries = workspace.binaries(ctx, [PROBLEM], tmp_path / "data")
    text = "2\n1 2\n3 1\n"
    path = ctx.work_dir / "small.in"
    path.write_text(text)
    tests = [workspace.MaxTest(PROBLEM, "small", 2, path, len(text))]
    root = dask_section.max_corpus(ctx, tests, binaries)
    before = set(descendants(os.getpid()))
    result = dask_section.run_dask(ctx, tiny, root, tests, binaries, repeats=1, warm_up=False)
    close_launcher()
    assert ctx.failures == []
    started = set(descendants(os.getpid())) - before
    assert wait_until(lambda: not any(alive(pid) for pid in started), timeout=20)

    rows = pl.DataFrame(ctx.rows, schema=row_schema(), orient="row").filter(
        pl.col("section") == "dask")
    walls = rows.filter(pl.col("metric") == "wall_s")
    assert set(zip(walls["recipe"], walls["solver"])) == {
        ("tiny", "local"), ("tiny", "dask"), ("tiny", "dask-local-cluster"), ("max", "local"),
        ("max", "dask")}
    assert walls["value"].min() > 0
    goals = rows.filter(pl.col("metric") == "goal_met")
    assert sorted(goals["recipe"]) == ["max", "tiny"]
    ratios = rows.filter(pl.col("metric") == "ratio_dask_local_time")
    assert sorted(ratios["value"]) == sorted([result["tiny_ratio"], result["max_ratio"]])
