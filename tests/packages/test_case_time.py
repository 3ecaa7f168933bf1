"""How long a package's case runs: as long as its verdict needs, and no longer.

- a batch submission is stopped once it has run past its limit on its own clock (the wall
  clock less its waits for a core), not at twice the limit: one that sleeps is TLE at the
  limit's end, and one slowed down by other work on the machine is not failed for it;
- a submission meant to run out of time runs to the high end of the margin on the run's
  largest case only; on its other cases it is stopped at the limit it is judged at;
- any other submission that ran out of time at the high end is stopped at the limit on the
  cases its worker runs after that.

Real submissions (C and Python), real processes loading the cores, real `pipeline` runs.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from packagekit import FIXTURES
from processkit import starved

from pipeline.packages import build_package, judge_case, load_package
from pipeline.packages.judge import default_limits
from pipeline.packages.model import RunLimits
from pipeline.programs.languages import build_program, detect_language
from pipeline.programs.program import Program

REPO = Path(__file__).resolve().parents[2]


def _submission(tmp_path: Path, name: str, body: str, build_dir: Path):
    path = tmp_path / name
    path.write_text(body)
    return build_program(Program(name=name, role="submission", path=path, files=(path,),
                                 language=detect_language([path])), build_dir)


@pytest.fixture(scope="module")
def hypotenuse(build_dir):
    package = load_package(FIXTURES / "hypotenuse", build_dir)
    return package, build_package(package, build_dir, submissions=[])


def test_a_batch_submission_that_sleeps_is_stopped_when_its_limit_is_up(hypotenuse, tmp_path,
                                                                         build_dir):
    package, builds = hypotenuse
    sleeper = _submission(tmp_path, "sleeper.py", "import time\ntime.sleep(60)\n", build_dir)
    started = time.monotonic()
    result = judge_case(package, sleeper, package.case("secret/01-unit"),
                        default_limits(package, 1.0, 1.0), tmp_path / "work", builds)
    elapsed = time.monotonic() - started
    assert result.verdict == "TLE" and result.timed_out, result
    assert "wall clock 1.51 s cap reached" in result.message
    assert result.cpu_s < 0.5 and 1.4 < result.wall_s < 3.5  # not twice its limit
    assert elapsed < 3.5


def test_a_loaded_machine_slows_a_batch_submission_down_without_failing_it(hypotenuse, tmp_path,
                                                                          build_dir):
    """Eight busy processes on the machine's cores: the submission (0.4 s of CPU, then the
    right answer) takes longer on the wall clock than its 1.5 s, waiting for a core most of
    the time, and is accepted: those waits are not its time."""
    package, builds = hypotenuse
    busy = _submission(tmp_path, "busy.py",
                       "import math, time\na, b = map(float, input().split())\n"
                       "end = time.process_time() + 0.4\nwhile time.process_time() < end:\n"
                       "    pass\nprint(f'{math.hypot(a, b):.10f}')\n", build_dir)
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(8)]
    try:
        result = judge_case(package, busy, package.case("secret/02-triple"),
                            default_limits(package, 1.0, 1.0), tmp_path / "work", builds)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    assert result.verdict == "AC", result
    assert result.cpu_s < 1.0


def test_a_batch_submission_starved_of_a_core_is_not_judged_never_tle(hypotenuse, tmp_path,
                                                                      build_dir):
    """The submission (0.4 s of CPU under a 0.5 s limit, then the right answer) gets a few ms
    of a core a second: its wall clock passes every cap, its own clock and CPU time do not.
    It is not judged (JE, machine too busy: `--resume` runs it again), never TLE."""
    package, builds = hypotenuse
    name = f"starved_{secrets.token_hex(8)}.py"
    busy = _submission(tmp_path, name,
                       "import math, time\na, b = map(float, input().split())\n"
                       "end = time.process_time() + 0.4\nwhile time.process_time() < end:\n"
                       "    pass\nprint(f'{math.hypot(a, b):.10f}')\n", build_dir)
    with starved(name):
        result = judge_case(package, busy, package.case("secret/02-triple"),
                            default_limits(package, 0.5, 0.5), tmp_path / "work", builds)
    assert (result.verdict, result.timed_out) == ("JE", False), result
    assert result.message.startswith("not judged: machine too busy"), result
    assert result.cpu_s < 0.5


def _hypotenuse_spinning_in(tmp_path: Path, folder: str):
    """The hypotenuse fixture with `spin_all.c`, which spins on every case, in submissions/
    `folder`, ingested into a fresh data folder: a `pipeline` command on it, and the folder.
    Its time limit is 0.5 s (the fixture's 1 s halved: the spinners run to it, and the
    others take milliseconds)."""
    package = tmp_path / "hypotenuse"
    shutil.copytree(FIXTURES / "hypotenuse", package)
    limits = package / "problem.yaml"
    limits.write_text(limits.read_text().replace("time_limit: 1.0\n", "time_limit: 0.5\n"))
    assert "time_limit: 0.5\n" in limits.read_text()
    (package / "submissions" / folder / "spin_all.c").write_text(
        "int main(void) { volatile unsigned long long x = 0; for (;;) x++; }\n")
    data = tmp_path / "data"

    def pipeline(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data),
                               *args], cwd=REPO, capture_output=True, text=True, timeout=600)

    assert pipeline("ingest", str(package)).returncode == 0
    return pipeline, data


def test_a_submission_meant_to_time_out_runs_to_the_margin_on_the_largest_case_only(tmp_path):
    """spin_all.c spins on every case. Judged at 0.5 s with the margin's high end at 0.75 s,
    its run is stopped just past 0.75 s of CPU time on the largest case (04-max: it is TLE
    there even with the margin's time) and just past 0.5 s on the others (TLE at 0.5 s is all
    they need to show); every other submission runs to the high end as before, and all agree
    with their folders."""
    pipeline, data = _hypotenuse_spinning_in(tmp_path, "time_limit_exceeded")
    done = pipeline("run", "--problem", "hypotenuse")
    assert done.returncode == 0, done.stdout + done.stderr
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    cases = pl.read_parquet(data / "tables" / "cases" / "hypotenuse.parquet")
    largest = cases.sort(["size", "case_id"])["case_id"][-1]
    spun = results.filter(pl.col("solver") == "time_limit_exceeded/spin_all.c")
    assert spun["verdict"].to_list() == ["TLE"] * cases.height
    on_largest = spun.filter(pl.col("case_id") == largest)["cpu_ms"].to_list()
    elsewhere = spun.filter(pl.col("case_id") != largest)["cpu_ms"].to_list()
    assert on_largest[0] > 750 and all(500 < cpu <= 800 for cpu in elsewhere), spun
    # spin_big.c (TLE on the largest case only) ran its largest case to the margin too
    big = results.filter((pl.col("solver") == "time_limit_exceeded/spin_big.c")
                         & (pl.col("case_id") == largest))
    assert big["verdict"].to_list() == ["TLE"] and big["cpu_ms"][0] > 750


def test_once_a_submission_times_out_at_the_margin_its_later_cases_need_only_the_limit(
        tmp_path):
    """accepted/spin_all.c spins on every case, though its folder does not expect it to time
    out. Its first case (the largest: cases run largest first) runs to the margin's high end
    (0.75 s) and is TLE there too: its verdict at either limit is settled, so its later cases
    in the same worker (`--jobs 1`) are stopped just past the 0.5 s limit; each is TLE and
    the run says the submission got what its folder does not expect."""
    pipeline, data = _hypotenuse_spinning_in(tmp_path, "accepted")
    done = pipeline("run", "--problem", "hypotenuse", "--jobs", "1", "--timeout", "0.5")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "accepted/spin_all.c" in done.stdout and "NO" in done.stdout, done.stdout
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    cases = pl.read_parquet(data / "tables" / "cases" / "hypotenuse.parquet")
    spun = results.filter(pl.col("solver") == "accepted/spin_all.c")
    assert spun["verdict"].to_list() == ["TLE"] * cases.height
    cpu = sorted(spun["cpu_ms"].to_list())
    assert cpu[-1] > 750, spun  # the first: to the margin's high end
    # the others: stopped just past the limit (`RunLimits.CPU_CAP_PAST_S`, 10 ms), TLE there
    past = 500 + RunLimits.CPU_CAP_PAST_S * 1000
    assert all(past <= ms < past + 90 for ms in cpu[:-1]), spun
