"""Which executor a command runs on: `--executor local|dask [--scheduler ADDRESS] [--jobs N]`."""

from __future__ import annotations

import os

from pipeline.errors import UserError
from pipeline.run.executors import GROW_PER_CORE, Executor, LocalPoolExecutor, check_jobs

EXECUTORS = ("local", "dask")
# The Dask scheduler `--executor dask` connects to when `--scheduler` is not given.
SCHEDULER_VARIABLE = "PIPELINE_SCHEDULER"


def make_executor(kind: str = "local", scheduler: str | None = None, jobs: int | None = None,
                  problem=None, selection=None) -> Executor:
    """The executor of `--executor KIND`, started now (the one place a run's workers are set
    up): `local`, a pool of `jobs` workers here; `dask`, the cluster at `scheduler` (else
    `$PIPELINE_SCHEDULER`, else a local one started for the run), `jobs` batches at once.
    With `problem` and `selection`, the workers warm up the selected stages at once."""
    kind = kind.strip().lower()
    if kind not in EXECUTORS:
        raise UserError(f"unknown executor {kind!r}: use {' or '.join(EXECUTORS)}")
    preload: tuple[tuple[str, str], ...] = ()
    if problem is not None and selection is not None:
        preload = tuple((problem.id, name) for name in selection.stages)
        if not preload and (selection.submissions or selection.externals):
            preload = ((problem.id, ""),)  # no stage: the workers start now, load the problem
    if kind == "local":
        if scheduler:
            raise UserError("--scheduler is for --executor dask")
        # no --jobs: one worker per core, and more batches at once while the cores sit idle
        grow_to = None if jobs is not None else GROW_PER_CORE * (os.cpu_count() or 1)
        return LocalPoolExecutor(check_jobs(jobs), preload=preload, grow_to=grow_to)
    from pipeline.run.dask_executor import DaskExecutor  # Dask is imported only for Dask

    address = scheduler or os.environ.get(SCHEDULER_VARIABLE, "").strip() or None
    return DaskExecutor(address, jobs, preload=preload)
