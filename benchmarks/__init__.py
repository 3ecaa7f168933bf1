"""`make bench`: benchmarks of gamebench, measured side by side in one run.

The sections, each a module with plain functions that take a `BenchContext` (see `common`)
and record one row per measurement:

- `maxtests`: `pipeline solve P --solver fast` on every max test as a real process,
  against our C++ solution and a C++ program that only reads the input; time limits,
  peak memory, the fast/C++ ratio goal and how many tests meet it, and where fast's time
  goes (`phases.py`: start, import, read, parse, solve, print);
- `growth`: every stage's solve time over a ladder of sizes, with the fitted
  exponent beside the stage's claimed complexity;
- `ingest`: `pipeline ingest` files/s and MB/s on 10,000 small files and on the max
  tests, against reading and hashing the same files;
- `throughput`: `pipeline run` cases/s for the built-in `fast` stage and for an
  external C++ program, against a plain shell loop;
- `overhead`: a contained program's fixed cost per case (the worker's whole per-case path:
  launcher, PID namespace, sandbox, result) against a bare fork/exec/wait4 of the same tiny
  program, with the goal of at most 3 ms over it;
- `dask`: the same tiny cases and the max tests through a Dask cluster started on loopback
  (a `dask scheduler` and two `dask worker` processes) beside the local pool;
- `nightly`: the wall time of `pipeline nightly` on a fresh data folder, two nights; then a
  first night with two CPU-bound processes beside it, which must exit 0;
- `peers`: `pipeline run` beside BAPCtools' `bt run` on the same packages, back to back
  (`--package NAME` picks some), with the goal of at most 0.7x bt's wall time.

`suite.main` runs them (`python -m benchmarks [--quick] [--only SECTION]`) and writes all
rows to `DATA/bench/<bench_id>.parquet` with `pipeline.tables.files.write_parquet_atomic`.
"""

from benchmarks.suite import SECTIONS, main

__all__ = ["SECTIONS", "main"]
