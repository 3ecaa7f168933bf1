"""What every bench section shares: the measurement rows, child-process timing, fits.

A bench run is one `BenchContext`: it collects one row per measurement (every single timed
run, plus the medians, ratios, exponents and goal checks derived from them) and, at the end,
writes them all to `DATA/bench/<bench_id>.parquet` in one atomic write
(`pipeline.tables.files.write_parquet_atomic`). The columns are `ROW_COLUMNS` with the types of
`row_schema()`; `host`, `cpu_model` and `git_rev` come from `pipeline.run.runner.host_info()`,
so bench files of different machines and revisions can be told apart and compared. A goal
check is a row with metric `goal_met` (1 or 0) in section `<section>` or `<section>/<check>`.

Child processes are timed with `spawn_timed`, which hands them to a small launcher process
(`launcher.py`): wall time from fork to `os.wait4`, and the child's own CPU time and peak
resident memory (`ru_maxrss`) from `wait4`'s resource usage, untouched by the bench's own size.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROW_COLUMNS: tuple[str, ...] = (
    "bench_id", "section", "problem", "recipe", "solver", "size", "repeat", "metric", "value",
    "unit", "host", "cpu_model", "git_rev", "measured_at",
)


def row_schema() -> dict:
    """The Polars schema of a bench row (polars imported only when rows are written)."""
    import polars as pl

    return {
        "bench_id": pl.String(), "section": pl.String(), "problem": pl.String(),
        "recipe": pl.String(), "solver": pl.String(), "size": pl.Int64(),
        "repeat": pl.Int64(), "metric": pl.String(), "value": pl.Float64(),
        "unit": pl.String(), "host": pl.String(), "cpu_model": pl.String(),
        "git_rev": pl.String(), "measured_at": pl.Datetime("us", "UTC"),
    }


@dataclass
class BenchContext:
    """One bench run: its id, where it works and writes, the rows and the goals missed."""

    bench_id: str
    work_dir: Path
    out_dir: Path
    quick: bool
    host: dict[str, str | None]
    rows: list[dict] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    cache: dict = field(default_factory=dict)  # built binaries, generated max tests


def new_bench_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def make_context(work_dir: Path, out_dir: Path, quick: bool = False) -> BenchContext:
    from pipeline.run.runner import host_info

    return BenchContext(new_bench_id(), Path(work_dir), Path(out_dir), quick, host_info())


def record(ctx: BenchContext, section: str, metric: str, value: float | None, unit: str, *,
           problem: str | None = None, recipe: str | None = None, solver: str | None = None,
           size: int | None = None, repeat: int | None = None) -> None:
    """Add one measurement row (None values are stored as nulls)."""
    ctx.rows.append({
        "bench_id": ctx.bench_id, "section": section, "problem": problem, "recipe": recipe,
        "solver": solver, "size": None if size is None else int(size),
        "repeat": repeat, "metric": metric,
        "value": None if value is None else float(value), "unit": unit,
        "host": ctx.host.get("host"), "cpu_model": ctx.host.get("cpu_model"),
        "git_rev": ctx.host.get("git_rev"), "measured_at": datetime.now(UTC),
    })


def goal(ctx: BenchContext, section: str, met: bool, text: str, **keys) -> str:
    """Record a goal check as a 0/1 row; remember the text of a missed one. Returns the mark."""
    record(ctx, section, "goal_met", 1.0 if met else 0.0, "bool", **keys)
    if not met:
        ctx.missed.append(f"[{section}] {text}")
    return "met" if met else "MISSED"


def fail(ctx: BenchContext, text: str) -> None:
    """A loud failure line (wrong answers, crashed programs): printed now and at the end."""
    ctx.failures.append(text)
    say(f"!!! FAIL: {text}")


def write_rows(ctx: BenchContext) -> Path:
    """All rows of the run to `out_dir/<bench_id>.parquet`, atomically."""
    import polars as pl

    from pipeline.tables.files import write_parquet_atomic

    frame = pl.DataFrame(ctx.rows, schema=row_schema(), orient="row") if ctx.rows else \
        pl.DataFrame(schema=row_schema())
    path = ctx.out_dir / f"{ctx.bench_id}.parquet"
    write_parquet_atomic(path, frame)
    return path


# -- printing ----------------------------------------------------------------------------------

def say(text: str = "") -> None:
    print(text, flush=True)


# -- statistics --------------------------------------------------------------------------------

def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def fit_exponent(sizes: Sequence[float], times: Sequence[float]) -> float:
    """k of the least-squares line log t = k log n + c (nan with fewer than 2 sizes)."""
    points = [(math.log(n), math.log(t)) for n, t in zip(sizes, times) if n > 0 and t > 0]
    if len({x for x, _ in points}) < 2:
        return math.nan
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in points)
    return sxy / sxx


# -- child processes ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ProcessRun:
    """One child process: wall seconds (start included), CPU seconds, peak RSS, exit code."""

    wall_s: float
    cpu_s: float
    peak_rss_kb: int
    exit_code: int
    stderr: str = ""  # the last 2000 characters the child wrote to stderr


_LAUNCHER: subprocess.Popen | None = None


def _launcher() -> subprocess.Popen:
    """The small launcher process (`launcher.py`), started once per bench process."""
    global _LAUNCHER
    if _LAUNCHER is None or _LAUNCHER.poll() is not None:
        script = Path(__file__).with_name("launcher.py")
        _LAUNCHER = subprocess.Popen([sys.executable, "-S", "-E", str(script)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     bufsize=1)
    return _LAUNCHER


def close_launcher() -> None:
    global _LAUNCHER
    if _LAUNCHER is not None:
        _LAUNCHER.stdin.close()
        _LAUNCHER.wait(timeout=10)
        _LAUNCHER = None


def spawn_timed(argv: Sequence[str], stdin: Path | None = None, stdout: Path | None = None,
                cwd: Path | None = None, env: dict[str, str] | None = None,
                stderr: Path | None = None) -> ProcessRun:
    """Run `argv` with stdin/stdout from/to files (or /dev/null) and measure it.

    The child is started by the launcher (see `launcher.py`), which times it from just before
    `fork` to `wait4`'s return (process and interpreter start-up included) and takes its CPU
    time and peak RSS from `wait4`, so the bench's own size never leaks into the figures.
    stderr goes to `stderr` when given (kept whole), else to a temporary file; its tail is
    returned.
    """
    launcher = _launcher()
    if stderr is not None:
        err_path = Path(stderr)
    else:
        with tempfile.NamedTemporaryFile(prefix="bench-stderr-", delete=False) as handle:
            err_path = Path(handle.name)
    try:
        request = {"argv": [str(a) for a in argv], "stdin": str(stdin) if stdin else None,
                   "stdout": str(stdout) if stdout else None, "stderr": str(err_path),
                   "cwd": str(cwd) if cwd else None, "env": env}
        launcher.stdin.write(json.dumps(request) + "\n")
        launcher.stdin.flush()
        answer = json.loads(launcher.stdout.readline() or "{}")
        if "wall_s" not in answer:
            raise RuntimeError(f"launcher failed on {argv[0]}: {answer.get('error', 'no answer')}")
        err = err_path.read_bytes()[-4000:].decode("utf-8", "replace")[-2000:]
    finally:
        if stderr is None:
            err_path.unlink(missing_ok=True)
    return ProcessRun(answer["wall_s"], answer["cpu_s"], int(answer["peak_rss_kb"]),
                      answer["exit_code"], err)


def pipeline_argv() -> list[str]:
    """How to start the `pipeline` command as a real process (the venv's console script)."""
    script = Path(sys.executable).parent / "pipeline"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "pipeline"]


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return math.nan
