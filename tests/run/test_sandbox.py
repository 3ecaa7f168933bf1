"""The sandbox: a sandboxed program sees the whole file system read-only but not the data
folder's tables and stored cases, has an empty /tmp of its own (showing the paths under /tmp
its command names), no network, and runs as the caller with no capabilities. `--sandbox auto`
(the default) uses it where it works and says in the run's summary when it does not; `on`
refuses to run without it.

The sandbox needs root (this machine and CI run as root); the programs are real Python
scripts, run by real pool workers and by `pipeline run` in a real process.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from runkit import PROGRAMS, REPO, command, corpus, external, py, results, run_cli, run_one

from pipeline.programs.contained import data_folder_hidden, shown_under_tmp
from pipeline.programs.jobs import Job
from pipeline.run.executors import LocalPoolExecutor
from pipeline.tables.results import read_runs
from pipeline.verdicts import Verdict

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root")


def _sandboxed(argv: tuple[str, ...], data) -> object:
    return external(argv, sandbox=True, hidden=data_folder_hidden(data))


@pytest.fixture
def listener():
    """A TCP server on loopback that a program outside the sandbox could reach."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def test_a_sandboxed_program_sees_the_machine_and_not_the_data_folder(pool, tmp_path, listener):
    data = tmp_path / "data"
    (data / "tables").mkdir(parents=True)
    (data / "tables" / "expected.txt").write_text("the answers\n")
    argv = py("look_around")
    # (a clone under /tmp is in the program's private /tmp, where only what it names shows)
    shown = [sys.executable, str(PROGRAMS / "look_around.py"), "/usr/bin/env", "/etc/passwd",
             *([] if str(REPO).startswith("/tmp/") else [str(REPO / "pipeline")])]
    hidden = [str(data / "tables"), str(data / "tables" / "expected.txt")]
    request = json.dumps({"paths": shown + hidden, "port": listener})
    outcome = run_one(pool, _sandboxed(argv, data), request)
    assert outcome.verdict is None, outcome
    seen = json.loads(outcome.answer)
    assert seen["uid"] == os.getuid()
    assert {path: seen["paths"][path]["readable"] for path in shown} == dict.fromkeys(shown, True)
    # (a folder hidden is covered by an empty one; here it is also under /tmp, and the
    # program's /tmp is its own)
    assert not seen["paths"][str(data / "tables" / "expected.txt")]["exists"]
    assert seen["connect"] != "connected"
    # the same program outside the sandbox sees all of it
    outside = json.loads(run_one(pool, external(argv), request).answer)
    assert all(outside["paths"][path]["exists"] for path in hidden)
    assert outside["connect"] == "connected"


def test_each_sandboxed_case_has_an_empty_tmp_of_its_own(tmp_path, listener):
    """Two cases in one worker: what the first leaves in /tmp, the second does not see."""
    spec = _sandboxed(py("look_around"), tmp_path / "data")
    request = json.dumps({"paths": [], "port": listener, "litter": True})
    with LocalPoolExecutor(1) as executor:
        outcomes = [outcome for _, outcome in
                    executor.run([Job(i, spec, f"c{i}", request) for i in range(2)])]
    # the only entries are the way to the paths its command names under /tmp (its interpreter
    # and script live there when the repository was cloned there, as CI may do)
    shown = {p.split("/")[2] for p in shown_under_tmp(spec.argv)}
    assert [set(json.loads(o.answer)["tmp"]) for o in outcomes] == [shown, shown]
    assert "left-behind" not in shown and not os.path.exists("/tmp/left-behind")


def test_sandboxed_programs_get_the_same_verdicts(pool, tmp_path, cpp):
    data = tmp_path / "data"
    for argv, text, verdict in (((cpp["sum"],), "1 2\n", None), (py("sum"), "1 2\n", None),
                                ((cpp["hog"],), "", Verdict.MLE), (py("exit_code"), "", Verdict.RE),
                                (py("segfault"), "", Verdict.RE), ((cpp["recurse"], "1000000"),
                                                                   "1 2\n", None)):
        spec = external(argv, sandbox=True, hidden=data_folder_hidden(data), memory_mb=256)
        outcome = run_one(pool, spec, text)
        assert outcome.verdict == verdict, (argv, outcome)


def test_the_default_runs_programs_sandboxed_and_off_runs_them_as_they_are(tmp_path):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    program = command(py("where_am_i")) + f" --look={data / 'tables' / 'cases'}"
    seen = {}
    for mode in ("auto", "off"):
        done = run_cli(data, "run", "--problem", "toy", "--sandbox", mode,
                       "--external", f"look={program}", "--jobs", "1")
        assert done.returncode == 0, done.stderr
        assert "note:" not in done.stdout  # nothing less than asked for
        run_id = read_runs(data).sort("started_at")["run_id"][-1]
        seen[mode] = json.loads(results(data, run_id)["answer"][0])
    assert seen == {"auto": {"uid": os.getuid(), "sees": False},
                    "off": {"uid": os.getuid(), "sees": True}}


def test_a_program_only_its_owner_may_run_runs_sandboxed_under_auto_and_on(tmp_path):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    private = tmp_path / "private-sum.py"
    private.write_text(f"#!{sys.executable}\n" + (PROGRAMS / "sum.py").read_text())
    private.chmod(stat.S_IRWXU)  # 0700: only its owner may read or run it
    for mode in ("auto", "on"):
        done = run_cli(data, "run", "--problem", "toy", "--sandbox", mode,
                       "--external", f"mine={private}", "--jobs", "1")
        assert done.returncode == 0, done.stderr
        assert "note:" not in done.stdout
    assert [results(data, run_id)["verdict"].to_list() for run_id in read_runs(data)["run_id"]
            ] == [["AC"], ["AC"]]


def test_a_sandbox_setting_other_than_auto_on_off_is_refused(tmp_path):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    done = run_cli(data, "run", "--problem", "toy", "--sandbox", "maybe",
                   "--external", f"sum={command(py('sum'))}")
    assert done.returncode == 2
    assert "--sandbox must be auto, on or off" in done.stderr


def test_what_the_private_tmp_shows_is_taken_from_the_command_line(tmp_path):
    """Under /tmp only (the rest of the machine is shown anyway): each absolute path on the
    command line that exists, a file by its folder (what lies beside a script is found), the
    program itself; a path inside a shown folder goes with it."""
    if not str(tmp_path).startswith("/tmp/"):
        pytest.skip("the test folder is not under /tmp")
    prefix = tmp_path / "opt" / "lang"
    (prefix / "bin").mkdir(parents=True)
    interpreter = prefix / "bin" / "lang"
    interpreter.write_text("#!/bin/sh\n")
    interpreter.chmod(0o755)
    script = tmp_path / "solution" / "main.lang"
    script.parent.mkdir()
    script.write_text("print(1)\n")
    argv = (str(interpreter), str(script), f"--lib={prefix}", "/usr/share",
            str(tmp_path / "missing"), "relative/path")
    assert shown_under_tmp(argv) == tuple(sorted([str(prefix), str(script.parent)]))


def test_a_program_runs_sandboxed_with_hundreds_of_paths_hidden_and_sees_none(tmp_path):
    """A machine with many users (each with keys and histories) or a process that ran many
    data folders hides hundreds of paths: the sandbox is still built (the launcher took at most
    64 once, and every program was `RE`), and none of the paths shows."""
    from pipeline.programs import contained

    outside = Path(tempfile.mkdtemp(prefix="gamebench-hidden-", dir="/var/tmp"))
    try:
        secrets = []
        for index in range(300):
            secret = outside / f"secret{index:03d}"
            secret.write_text("private\n")
            secrets.append(str(secret))
        reader = ("import sys\nseen = 0\nfor path in sys.argv[1:]:\n    try:\n"
                  "        seen += open(path).read() == 'private\\n'\n    except OSError:\n"
                  "        pass\nprint(seen)\n")
        for hidden, expected in (((), "300"), (tuple(secrets), "0")):
            answer = tmp_path / f"answer{len(hidden)}"
            work = tmp_path / f"work{len(hidden)}"
            work.mkdir()
            with open(answer, "wb") as stdout:
                done = contained.run([sys.executable, "-c", reader, *secrets],
                                     stdin=subprocess.DEVNULL, stdout=stdout,
                                     stderr=subprocess.DEVNULL, workdir=work,
                                     limits=contained.Limits(cpu_s=10, wall_s=30),
                                     sandbox=True, hidden=hidden)
            assert done.setup_error is None and done.exit_code == 0, done
            assert answer.read_text().strip() == expected
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_a_path_under_tmp_a_command_names_is_shown_once_it_exists(tmp_path):
    """What a command names under /tmp is worked out once per command and kept while it
    exists, unless a path it names is missing: that one is shown to the first run after it
    appears (a folder removed since is looked for again too)."""
    from pipeline.programs import contained

    folder = tmp_path / "later"
    named = folder / "data.txt"
    reader = "import sys\ntry:\n    print(open(sys.argv[1]).read().strip())\n" \
             "except OSError:\n    print('-')\n"

    def seen(name: str) -> str:
        work = tmp_path / f"work-{name}"
        work.mkdir()
        with open(tmp_path / name, "wb") as stdout:
            done = contained.run([sys.executable, "-c", reader, str(named)],
                                 stdin=subprocess.DEVNULL, stdout=stdout,
                                 stderr=subprocess.DEVNULL, workdir=work,
                                 limits=contained.Limits(cpu_s=10, wall_s=30), sandbox=True)
        assert done.setup_error is None and done.exit_code == 0, done
        return (tmp_path / name).read_text().strip()

    assert seen("missing") == "-"
    folder.mkdir()
    named.write_text("shown\n")
    assert seen("there") == "shown" and seen("again") == "shown"
    shutil.rmtree(folder)
    assert seen("removed") == "-"
    folder.mkdir()
    named.write_text("back\n")
    assert seen("back") == "back"


def test_an_entry_made_in_a_data_folder_is_hidden_from_then_on(tmp_path):
    """`data_folder_hidden` is kept while the folder's entries are unchanged: a table made
    after a first look is among the next look's."""
    data = tmp_path / "data"
    (data / "cases").mkdir(parents=True)
    (data / "build").mkdir()
    first = data_folder_hidden(data)
    assert first == (str(data / "cases"),) and data_folder_hidden(data) is first
    (data / "results").mkdir()
    assert data_folder_hidden(data) == (str(data / "cases"), str(data / "results"))
    (data / "cases").rmdir()
    assert data_folder_hidden(data) == (str(data / "results"),)


def test_what_appears_in_a_hidden_data_folder_after_a_program_ran_is_hidden_from_the_next(
        tmp_path, monkeypatch):
    """What is hidden is worked out once and kept while the folders it depends on are as they
    were: a table a run writes into the data folder after its first program (results/ once the
    first chunk is written) is hidden from every program after it."""
    from pipeline.programs import contained

    data = tmp_path / "data"
    (data / "cases").mkdir(parents=True)
    (data / "cases" / "secret.txt").write_text("private\n")
    monkeypatch.delenv(contained.HIDE_ENV, raising=False)
    contained.hide(data)
    later = data / "results" / "chunk.txt"
    reader = ("import sys\nseen = []\nfor path in sys.argv[1:]:\n    try:\n"
              "        seen.append(open(path).read().strip())\n    except OSError:\n"
              "        seen.append('-')\nprint(' '.join(seen))\n")

    def seen(name: str) -> str:
        work = tmp_path / f"work-{name}"
        work.mkdir()
        with open(tmp_path / name, "wb") as stdout:
            done = contained.run([sys.executable, "-c", reader, str(data / "cases" / "secret.txt"),
                                  str(later)], stdin=subprocess.DEVNULL, stdout=stdout,
                                 stderr=subprocess.DEVNULL, workdir=work,
                                 limits=contained.Limits(cpu_s=10, wall_s=30), sandbox=True)
        assert done.setup_error is None and done.exit_code == 0, done
        return (tmp_path / name).read_text().strip()

    first_hidden = contained.hidden_paths()
    assert str(data / "cases") in first_hidden and seen("first") == "- -"
    later.parent.mkdir()
    later.write_text("private\n")
    assert str(data / "results") in contained.hidden_paths()
    assert seen("second") == "- -"
    assert contained.hidden_paths() is contained.hidden_paths()  # kept while nothing changed


def test_a_sandboxed_programs_proc_is_its_own_and_hides_where_its_folders_were_built(tmp_path):
    """The case's /proc is a procfs of its own PID namespace (its processes only), laid over
    the tmpfs its /tmp and working folder were built on: what the program writes there shows in
    /tmp and its folder, never under /proc."""
    from pipeline.programs import contained

    looker = ("import json, os\n"
              "open('/tmp/in-tmp', 'w').write('x')\n"
              "open('in-work', 'w').write('x')\n"
              "entries = os.listdir('/proc')\n"
              "mounts = [line.split(' - ')[1].split()[0] for line in open('/proc/self/mountinfo')\n"
              "          if line.split()[4] == '/proc']\n"
              "print(json.dumps({'pids': sorted(int(e) for e in entries if e.isdigit()),\n"
              "                  'others': sorted(e for e in entries if not e.isdigit()),\n"
              "                  'self': os.readlink('/proc/self'), 'top': mounts[-1],\n"
              "                  'tmp': os.listdir('/tmp'), 'work': os.listdir('.')}))\n")
    work = tmp_path / "work"
    work.mkdir()
    answer = tmp_path / "answer"
    with open(answer, "wb") as stdout:
        done = contained.run([sys.executable, "-c", looker], stdin=subprocess.DEVNULL,
                             stdout=stdout, stderr=subprocess.DEVNULL, workdir=work,
                             limits=contained.Limits(cpu_s=10, wall_s=30), sandbox=True)
    assert done.setup_error is None and done.exit_code == 0, done
    seen = json.loads(answer.read_text())
    assert seen["top"] == "proc"  # the last mount on /proc, the one a path reaches
    assert seen["pids"] == [1, int(seen["self"])]  # the launcher (init) and the program
    assert {"self", "meminfo", "cpuinfo"} <= set(seen["others"])
    assert not {"in-tmp", "in-work", "tmp", "work"} & set(seen["others"])
    assert "in-tmp" in seen["tmp"] and seen["work"] == ["in-work"]
    assert list(work.iterdir()) == []  # written on the case's tmpfs, not in the folder
