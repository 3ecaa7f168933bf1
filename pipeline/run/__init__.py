"""Running solvers over cases: `solve` for judge files, `runner` over the stored cases through
an executor (`executors`, `dask_executor`) whose `worker`s run each job."""
