"""How an interactive pair ends (issues 20 and 23): both sides under their own launcher,
connected by pipes the pipeline holds no write end of. A submission reading to its input's
end gets end-of-file once the interactor has exited; one that goes on after the interactor's
verdict is killed after `GRACE_S`, and the verdict stands; the submission's time is its own
CPU time, not its wait on the interactor."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pipeline.packages.interactive import GRACE_S, run_exchange


def _exchange(tmp_path: Path, submission: str, interactor: str, wall_s: float = 20):
    """The pair run with a submission whose wall-clock cap is `wall_s` (its CPU-time limit
    half a second less: `contained.wall_cap_s`)."""
    feedback = tmp_path / "feedback"
    feedback.mkdir(exist_ok=True)
    started = time.monotonic()
    exchange = run_exchange([sys.executable, "-c", submission],
                            [sys.executable, "-c", interactor, str(feedback) + "/"],
                            workdir=tmp_path / "run", submission_cpu_s=wall_s - 0.5,
                            submission_memory_mb=None, output_mb=8, validator_cpu_s=20,
                            validator_memory_mb=None)
    return exchange, time.monotonic() - started


def test_a_submission_reading_to_the_end_gets_it_when_the_interactor_exits(tmp_path):
    exchange, took = _exchange(
        tmp_path, "import sys\ndata = sys.stdin.read()\nsys.exit(0 if data == '7\\n' else 5)\n",
        "import sys\nprint(7, flush=True)\nsys.exit(42)\n")
    # which side was reaped first is not asked: a submission that exits 0 leaves the verdict
    # to the interactor either way (the launcher waits for a reader to let go only after a
    # crash, where the order decides between RE and the interactor's verdict)
    assert exchange.validator.exit_code == 42
    assert exchange.submission.exit_code == 0, exchange.submission
    assert took < 10  # not the 20 s wall-clock limit: it was not left waiting


def test_a_submission_going_on_after_the_verdict_is_stopped_after_the_grace(tmp_path):
    exchange, took = _exchange(
        tmp_path, "import time\nwhile True:\n    time.sleep(0.01)\n",
        "import sys\nsys.exit(42)\n")
    assert exchange.validator.exit_code == 42 and exchange.validator_first
    assert exchange.submission.exit_code == 0 and not exchange.submission.timed_out
    assert exchange.submission.wall_s >= GRACE_S
    assert took < 10
    assert exchange.submission.cpu_s < 1  # it slept: its own CPU time, not the wall clock


def test_the_submissions_time_is_its_own_cpu_time_not_its_wait_on_the_interactor(tmp_path):
    exchange, _ = _exchange(
        tmp_path, "print(input(), flush=True)\n",
        "import sys, time\ntime.sleep(1.0)\nprint(3, flush=True)\n"
        "sys.exit(42 if input() == '3' else 43)\n")
    assert exchange.validator.exit_code == 42
    assert exchange.submission.wall_s >= 1.0 and exchange.submission.cpu_s < 0.5


def test_a_validator_that_stopped_reading_first_is_first_however_late_it_is_reaped(tmp_path):
    # it has said WA and closed both ends, then lingers: the submission crashes on end-of-file
    # and is reaped a second before the validator (a loaded machine's late reaping, made
    # sure); the validator's WA stands, not the submission's crash (BAPCtools' GuessCrash.java)
    exchange, _ = _exchange(
        tmp_path, "import sys\nsys.stdin.read()\nsys.exit(1)\n",
        "import os, time\nos.close(0)\nos.close(1)\ntime.sleep(1.0)\nraise SystemExit(43)\n")
    assert exchange.validator.exit_code == 43 and exchange.submission.exit_code == 1
    assert exchange.validator_first


def test_a_submission_that_exits_first_is_first_though_the_validator_then_says_wa(tmp_path):
    # the validator reads end-of-file only once the submission has ended (BAPCtools'
    # guess_exit_1.cpp: RE, not WA)
    exchange, _ = _exchange(
        tmp_path, "import sys\nsys.exit(1)\n",
        "import sys\nsys.stdin.read()\nsys.exit(43)\n")
    assert exchange.validator.exit_code == 43 and exchange.submission.exit_code == 1
    assert not exchange.validator_first


def test_the_validators_own_computing_is_not_the_submissions_time(tmp_path):
    # the interactor computes for 2.5 s of CPU before it asks; the submission's 1 s is its own
    # (BAPCtools' pseudointeraction, whose interactor writes a million numbers, was TLE on a
    # loaded machine)
    exchange, _ = _exchange(
        tmp_path, "print(input(), flush=True)\n",
        "import sys, time\nstart = time.process_time()\n"
        "while time.process_time() - start < 2.5:\n    pass\n"
        "print(3, flush=True)\nsys.exit(42 if input() == '3' else 43)\n", wall_s=1.0)
    assert not exchange.timed_out, exchange
    assert exchange.validator.exit_code == 42 and exchange.submission.exit_code == 0


def test_a_submission_asleep_while_the_validator_waits_runs_out_of_its_time(tmp_path):
    exchange, took = _exchange(
        tmp_path, "import time\ntime.sleep(30)\n",
        "import sys\nsys.exit(42 if input() == '3' else 43)\n", wall_s=2.0)
    assert exchange.timed_out and exchange.submission.timed_out
    assert took < 4.5  # its 2 s, not the launchers' cap of 8 x 2 s


def test_a_validator_that_says_wa_and_exits_is_first_though_its_input_closes_last(tmp_path):
    # an exiting process lets go of its output before its input, and the submission, crashing
    # on end-of-file, can be reaped in between (the fixture guess's linear.py and BAPCtools'
    # GuessCrash.java were RE, not WA, 2 times in 10): here the validator lingers 0.3 s
    # between the two, as a loaded machine may leave it
    exchange, _ = _exchange(
        tmp_path, "print(1, flush=True)\ninput()\n",
        "import os, sys, time\ninput()\nos.close(1)\ntime.sleep(0.3)\nsys.exit(43)\n")
    assert exchange.validator.exit_code == 43 and exchange.submission.exit_code == 1
    assert exchange.validator_first


def test_a_submission_crashing_after_the_validator_closed_its_output_is_first(tmp_path):
    # the validator closes its output on purpose and reads on (BAPCtools' pseudointeraction):
    # it is still there when the submission crashes, so the crash came first (RE)
    exchange, _ = _exchange(
        tmp_path, "import sys\nsys.stdin.read()\nsys.exit(1)\n",
        "import os, sys\nprint(7, flush=True)\nos.close(1)\nsys.stdin.read()\nsys.exit(43)\n")
    assert exchange.validator.exit_code == 43 and exchange.submission.exit_code == 1
    assert not exchange.validator_first
