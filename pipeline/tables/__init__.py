"""The tables: schemas, atomic and chunked writes, reading, choosing runs.

Every table is a folder of Parquet files under `DATA/tables/<table>/`, so plain Polars reads
it: `pl.scan_parquet("data/tables/cases/*.parquet")`.
"""
