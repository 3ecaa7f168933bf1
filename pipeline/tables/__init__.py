"""The tables, one home: schemas, atomic and chunked writes, reading, choosing runs, limits.

Every table is a folder of Parquet files under `DATA/tables/<table>/`, so a user reads it with
plain Polars on a glob: `pl.scan_parquet("data/tables/cases/*.parquet")`.

- `schemas`: the four tables' columns and types;
- `files`: where the files live, atomic writes, reading one file, scanning a table;
- `results`: the chunked results of a run and the `runs` rows;
- `runs`: choosing runs (finished, latest, previous, next, the ones a command looks at);
- `limits`: a problem's time limit as reports need it.
"""
