"""Without the launcher (no C compiler, or `PIPELINE_NATIVE=0`) a process runs its programs
itself, and after each one ends only what that program started: its session, the sessions its
descendants made, and the orphans carrying its mark that a subreaper adopted; never another
thread's build or any other child of the process. Real threads, real processes.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys

from runkit import PROGRAMS, REPO, processes_with, wait_until

# In a process of its own that, like a pool's worker, is a child subreaper: a build runs on a
# second thread (through `contained`, as builds do) and waits for a file; meanwhile the main
# thread runs cases of `forker` (each leaves a child in its group, one that made a session of
# its own, and a double-forked orphan), and one more child of the process runs outside
# `contained`. The build is let go only once every case has ended.
SCRIPT = r"""
import json, subprocess, sys, threading
from pathlib import Path
from pipeline.programs import contained
from pipeline.programs.launcher import launcher_path
from pipeline.programs.processes import become_subreaper

work, forker, token = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
assert launcher_path() is None
become_subreaper()
limits = contained.Limits(cpu_s=60, wall_s=120)
quiet = subprocess.DEVNULL
build = work / "build"
build.mkdir()
measured = {}

def run_build():
    measured["build"] = contained.run(
        ["/bin/sh", "-c", "while [ ! -e go ]; do sleep 0.02; done; echo built > out"],
        stdin=quiet, stdout=quiet, stderr=quiet, workdir=build, limits=limits, sandbox=False)

thread = threading.Thread(target=run_build)
thread.start()
plain = subprocess.Popen(["sleep", "120"])  # a child not run through `contained`
answers = []
for number in range(3):
    case = work / f"case{number}"
    case.mkdir()
    (case / "in").write_text("1 2\n")
    with open(case / "in", "rb") as stdin, open(case / "out", "wb") as stdout:
        ended = contained.run([sys.executable, forker, token, "3", "answer"], stdin=stdin,
                              stdout=stdout, stderr=quiet, workdir=case, limits=limits,
                              sandbox=False)
    answers.append([ended.exit_code, (case / "out").read_text()])
building = thread.is_alive()
plain_alive = plain.poll() is None
(build / "go").write_text("")
thread.join()
plain.kill()
plain.wait()
done = measured["build"]
print(json.dumps({"answers": answers, "building": building, "plain_alive": plain_alive,
                  "build": [done.exit_code, done.killed, (build / "out").read_text()]}))
"""


def test_the_end_of_a_case_ends_its_programs_leftovers_and_not_a_build_on_another_thread(
        tmp_path):
    token = f"forker-{secrets.token_hex(4)}"
    env = {**os.environ, "PIPELINE_NATIVE": "0", "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path),
                           str(PROGRAMS / "forker.py"), token], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["answers"] == [[0, "3\n"]] * 3
    # the build ran through every case's clean-up, and finished on its own
    assert report["building"] and report["plain_alive"]
    assert report["build"] == [0, "none", "built\n"]
    # and nothing any case left behind is running (grouped, setsid, double-forked)
    assert wait_until(lambda: not processes_with(token), timeout=10), processes_with(token)
