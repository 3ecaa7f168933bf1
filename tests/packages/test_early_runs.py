"""While a package's time limit is derived, the longest run of all starts at once.

A package that gives no time limit has it derived from its accepted submissions' times. A
submission meant to time out runs to the high end of that limit on the run's largest case
(`submissions.submission_specs`), and that run cannot wait for the limit: it starts with the
derivation (on all workers but one), under the highest limit deriving can give, and is
given the derived limit's caps as soon as that is known (`SolverSpec.caps_later`, read by the worker
that runs it). It then stands at the derived limit: it runs once, to the high end, not to the
highest limit.

Real packages, real `pipeline` processes; the submissions note when they start and end in a
log outside their folder (so the sandbox is off), which is how the order is seen.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
from packagekit import write_tree

REPO = Path(__file__).resolve().parents[2]
# time_resolution 0.5 s: a limit of 1 s is derived from a run of 0.25 s to 0.5 s, above the
# 0.5 s floor, so the derivation shows in it while the runs stay short
VERSION = "problem_format_version: 2025-09\ntype: pass-fail\nname: Early\n" \
          "uuid: 8ee7605a-0000-4000-8000-000000000003\nlimits:\n  time_resolution: 0.5\n"
DERIVED = "up to a multiple of 0.5 s: 1 s"  # the run's note on the limit derived


def _logging(log: Path, body: str) -> str:
    """A Python submission that logs `<name> <input> start|end <time>` around `body`."""
    return (f"import sys, time\nname = {str(log)!r}\nwords = sys.stdin.read().split()\n"
            f"def note(what):\n    with open(name, 'a') as f:\n"
            f"        f.write(f'{{sys.argv[0].rsplit(\"/\", 1)[-1]}} {{words[0]}} {{what}} "
            f"{{time.time()}}\\n')\n"
            f"note('start')\n{body}\nnote('end')\nprint(int(words[0]) + int(words[1]))\n")


def _busy(seconds_expr: str) -> str:
    return f"t = time.process_time()\nwhile time.process_time() - t < {seconds_expr}:\n    pass"


def _pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def _log(log: Path) -> list[tuple[str, str, str, float]]:
    return [(name, case, what, float(at)) for name, case, what, at
            in (line.split() for line in log.read_text().splitlines())]


def _judged(data: Path, *args: str, jobs: int = 2) -> tuple[pl.DataFrame, pl.DataFrame, str]:
    done = _pipeline(data, "run", "--problem", "early", "--jobs", str(jobs), "--sandbox", "off",
                     *args)
    assert done.returncode == 0, done.stdout + done.stderr
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    expectations = pl.read_parquet(data / "tables" / "expectations" / "*.parquet")
    return results, expectations, done.stdout


def _spinning(tmp_path: Path, log: Path) -> Path:
    """A package whose limit is derived from `accepted/busy.py` (1 s, high end 1.5 s), with a
    `time_limit_exceeded/spin.py` that never ends."""
    package = write_tree(tmp_path / "early", {
        "problem.yaml": VERSION,
        **{f"data/secret/{i}.in": f"{i} 1\n" for i in (1, 2, 3, 4)},
        **{f"data/secret/{i}.ans": f"{i + 1}\n" for i in (1, 2, 3, 4)},
        "data/secret/big.in": "1000000 1\n", "data/secret/big.ans": "1000001\n",
        # about 0.3 s of CPU time on each case: the limit derived is 1 s, its high end 1.5 s
        "submissions/accepted/busy.py": _logging(log, _busy("0.3")),
        "submissions/time_limit_exceeded/spin.py": _logging(log, "while True:\n    pass"),
    })
    data = tmp_path / "data"
    assert _pipeline(data, "ingest", str(package)).returncode == 0
    return data


def test_the_run_meant_to_time_out_starts_with_the_derivation_and_stops_at_the_derived_high_end(
        tmp_path):
    log = tmp_path / "log"
    data = _spinning(tmp_path, log)
    results, expectations, out = _judged(data)
    assert "time limit derived" in out and DERIVED in out, out
    assert set(expectations["status"]) == {"agree"}, expectations
    spin = results.filter(pl.col("solver") == "time_limit_exceeded/spin.py")
    big = spin.filter(pl.col("size") == spin["size"].max())
    assert big["verdict"].to_list() == ["TLE"]
    # run to the derived limit's high end (1.5 s, stopped just past it), not to the highest
    # limit deriving can give (31.5 s) that it started under
    assert 1500 <= big["cpu_ms"][0] < 2500, big
    others = spin.filter(pl.col("size") < spin["size"].max())
    assert set(others["verdict"]) == {"TLE"} and others["cpu_ms"].max() < 1500  # cut at 1 s
    events = _log(log)
    big_starts = [at for name, case, what, at in events
                  if (name, case, what) == ("spin.py", "1000000", "start")]
    assert len(big_starts) == 1  # it ran once: its run stands at the derived limit
    busy_ends = [at for name, _, what, at in events if (name, what) == ("busy.py", "end")]
    assert len(busy_ends) == 5
    assert big_starts[0] < max(busy_ends)  # started before the limit was known


def test_with_one_worker_the_derivation_goes_first_and_the_long_run_gets_the_limit_at_once(
        tmp_path):
    """The runs that derive the limit are sent before the one started early: a single
    worker derives the limit first, and the long run then starts with the derived caps (it
    never holds the worker up to the highest limit while the derivation waits)."""
    log = tmp_path / "log"
    data = _spinning(tmp_path, log)
    results, expectations, _ = _judged(data, jobs=1)
    assert set(expectations["status"]) == {"agree"}, expectations
    spin = results.filter(pl.col("solver") == "time_limit_exceeded/spin.py")
    big = spin.filter(pl.col("size") == spin["size"].max())
    assert big["verdict"].to_list() == ["TLE"] and 1500 <= big["cpu_ms"][0] < 2500, big
    events = _log(log)
    busy_ends = [at for name, _, what, at in events if (name, what) == ("busy.py", "end")]
    [big_start] = [at for name, case, what, at in events
                   if (name, case, what) == ("spin.py", "1000000", "start")]
    assert big_start > max(busy_ends)


def test_under_fail_fast_a_lower_bound_submissions_early_run_goes_beside_its_own_cases(tmp_path):
    """BAPCtools' `testexpectations` shape: `tle/` times the limit from below on the samples and
    from above on the secret cases. Not expected to pass, it runs its cases one at a time
    under --fail-fast, but its run to the high end on the largest case starts with them (it
    waits for none, none waits for it); its TLE there stops its other secret cases."""
    log = tmp_path / "log"
    package = write_tree(tmp_path / "early", {
        "problem.yaml": VERSION,
        # each case of its own size (the results are told apart by it)
        "data/sample/1.in": "3 1\n", "data/sample/1.ans": "4\n",
        "data/sample/2.in": "6 10\n", "data/sample/2.ans": "16\n",
        **{f"data/secret/{a}.in": f"{a} {b}\n" for a, b in ((20, 100), (30, 1000), (1000, 10000))},
        **{f"data/secret/{a}.ans": f"{a + b}\n"
           for a, b in ((20, 100), (30, 1000), (1000, 10000))},
        "submissions/accepted/sum.py": "print(sum(map(int, input().split())))\n",
        # its input / 20 seconds of CPU time: 0.3 s on the slower sample, so a 1 s limit
        "submissions/tle/spin.py": _logging(log, _busy("int(words[0]) / 20")),
        "submissions/submissions.yaml": "tle:\n  sample:\n    use_for_time_limit: lower\n"
                                        "  secret:\n    use_for_time_limit: upper\n",
    })
    data = tmp_path / "data"
    assert _pipeline(data, "ingest", str(package)).returncode == 0
    results, expectations, out = _judged(data, "--fail-fast")
    assert "time limit derived" in out and DERIVED in out, out
    assert set(expectations["status"]) == {"agree"}, expectations
    spin = results.filter(pl.col("solver") == "tle/spin.py")
    verdicts = dict(zip(spin["size"], spin["verdict"]))
    cpu = dict(zip(spin["size"], spin["cpu_ms"]))
    largest = max(verdicts)
    assert verdicts[largest] == "TLE" and 1500 <= cpu[largest] < 2500
    assert sorted(v for size, v in verdicts.items() if size != largest) == \
        ["AC", "AC", "SKIP", "SKIP"]  # the samples ran; the other secret cases did not
    events = _log(log)
    early = [at for name, case, what, at in events if (case, what) == ("1000", "start")]
    sample_ends = [at for name, case, what, at in events if case in ("3", "6") and what == "end"]
    assert len(early) == 1 and len(sample_ends) == 2
    assert early[0] < max(sample_ends)
    assert not [case for _, case, _, _ in events if case in ("20", "30")]


def test_an_early_run_stands_at_the_derived_limit_only_where_its_caps_would_have_let_it_end():
    """Run under higher caps until the limit was known, a run stands at the derived limit
    (2 s, high end 3 s: its own wall-clock cap 3.5 s) when it was stopped at a cap, or ended
    within the derived caps; one that waited past them and then ended (a sleeping submission
    that answers after 10 s) would have been stopped there: it is run again."""
    from pipeline.packages.expectations import TimeLimit
    from pipeline.packages.model import CaseResult
    from pipeline.packages.submissions import holds_under
    from pipeline.verdicts import Verdict

    limit = TimeLimit(2.0, 1.0, 3.0, "derived", "")

    def run(verdict: Verdict, wall_s: float, timed_out: bool = False) -> CaseResult:
        return CaseResult("secret/big", verdict, verdict, cpu_s=0.01, wall_s=wall_s,
                          timed_out=timed_out)

    assert holds_under(run(Verdict.TLE, 3.6, timed_out=True), limit)  # stopped at a cap
    assert holds_under(run(Verdict.WA, 1.2), limit)                   # ended within them
    assert not holds_under(run(Verdict.WA, 10.0), limit)              # waited past them
    assert not holds_under(run(Verdict.SKIP, 0.0), limit)
