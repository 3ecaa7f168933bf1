"""Ctrl-C (a real SIGINT to a real `pipeline stress` process) while a failure is being shrunk
keeps the simplest failing case found so far, and the next run includes it."""

from __future__ import annotations

import signal
import subprocess
import threading
import time

from stresskit import REPO, alive, cases, cli_env, descendants_of, findings, pipeline_argv, run_cli


def _read_lines(stream, lines: list[str]) -> None:
    for line in stream:
        lines.append(line)


def test_findings_survive_ctrl_c_and_appear_in_the_next_run(toy, tmp_path):
    data = tmp_path / "data"
    # `planted-slow` sleeps 50 ms a call and fails on almost every case of `big`
    # (a, b up to 10^9), so shrinking one takes many seconds.
    process = subprocess.Popen(
        pipeline_argv(data, "stress", "--problem", "toy", "--solver", "planted-slow",
                      "--recipe", "big", "--budget", "60s", "--jobs", "2"),
        cwd=REPO, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=_read_lines, args=(process.stderr, lines), daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not any("shrinking" in line for line in lines):
        assert process.poll() is None, "".join(lines)
        assert time.monotonic() < deadline, "no failure found in time"
        time.sleep(0.05)
    time.sleep(2.0)  # some shrink steps are made
    workers = descendants_of(process.pid)
    assert workers
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    reader.join(timeout=10)
    assert process.returncode == 130, out + "".join(lines)
    end = time.monotonic() + 10  # the resource tracker may take a moment after the parent
    while any(alive(pid) for pid in workers) and time.monotonic() < end:
        time.sleep(0.05)
    assert not [pid for pid in workers if alive(pid)], "worker processes outlived the session"
    assert "interrupted (findings so far are kept)" in out
    assert "Traceback" not in out + "".join(lines)

    row = findings(data).row(0, named=True)
    assert row["locally_minimal"] is False and row["shrink_stopped"] == "interrupted"
    assert row["shrunk_size"] < row["original_size"] or row["input_bytes"] < row["original_bytes"]
    kept = data / "raw" / row["source"]
    assert kept.is_file() and kept.with_suffix(".out").is_file()
    stored = cases(data, "toy")
    assert stored.filter(stored["case_id"] == row["case_id"])["group"].to_list() == ["found"]

    # The next run includes it (and sees the bug).
    done = run_cli(data, "run", "--problem", "toy", "--group", "found", "--solver", "planted",
                   "--solver", "fast")
    assert done.returncode == 0, done.stderr
    assert "1 cases" in done.stdout
    assert "planted      WA=1" in done.stdout and "fast         AC=1" in done.stdout
