"""A package's programs leave symbolic links where the pipeline reads or writes (issue 41,
faults 1-5): each is a package built here whose real program makes the link in the folder it
may write, run through a real `pipeline ingest` and `pipeline run`. The pipeline never follows
one: what it names outside is untouched (its bytes, its mode, not made), what it names is never
read into the tables or a message, and the case or program that left it is refused with one
line naming the file, while the other cases and programs go on.

The secret the links name lies in the data folder, hidden from every contained program: only
the pipeline itself could have read it. The files they would write lie outside every folder a
program may write.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from packagekit import tiny_kattis, write_tree

REPO = Path(__file__).resolve().parents[2]
SECRET = "SECRET-TEXT-never-to-be-read\n"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeptKeyOfTheUser user@host\n"


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def stored(data: Path, problem: str) -> list[str]:
    path = data / "tables" / "cases" / f"{problem}.parquet"
    return sorted(pl.read_parquet(path)["source"].to_list()) if path.exists() else []


def results(data: Path) -> pl.DataFrame:
    return pl.read_parquet(data / "tables" / "results" / "*.parquet")


def nowhere_in(folder: Path, text: str) -> list[Path]:
    """The files under `folder` whose bytes hold `text` (there should be none)."""
    needle = text.strip().encode()
    return [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
            and needle in p.read_bytes()]


@pytest.fixture
def places(tmp_path):
    """The data folder (with the secret, hidden from programs, in it) and the outside files a
    link may name: an `authorized_keys` and a private 0600 file, as they were."""
    data = tmp_path / "data"
    secret = write_tree(data / "private", {"answers.txt": SECRET}) / "answers.txt"
    home = write_tree(tmp_path / "home" / ".ssh", {"authorized_keys": KEY, "id_key": KEY})
    os.chmod(home / "authorized_keys", 0o600)
    os.chmod(home / "id_key", 0o600)
    return dict(data=data, secret=secret, keys=home / "authorized_keys",
                private=home / "id_key", made=home / "made-by-the-pipeline")


def untouched(places: dict) -> None:
    """The outside files as they were: bytes and mode, and nothing made beside them."""
    for name in ("keys", "private"):
        path = places[name]
        assert not path.is_symlink() and path.read_text() == KEY, path
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, oct(path.stat().st_mode)
    assert not os.path.lexists(places["made"])
    assert sorted(os.listdir(places["keys"].parent)) == ["authorized_keys", "id_key"]
    assert places["secret"].read_text() == SECRET
    assert nowhere_in(places["data"], SECRET) == [places["secret"]]


def no_traceback(done: subprocess.CompletedProcess) -> None:
    for text in (done.stdout, done.stderr):
        assert "Traceback" not in text and "internal error" not in text, text


# -- faults 1 and 3: a generators.yaml generator -----------------------------------------------

# generator leaves -> (what the link names, what generators.yaml adds to the case)
GENERATOR_LINKS = {
    # the pipeline wrote its `.complete` marker through it: the file emptied (or made)
    ".complete": ("keys", ""),
    ".complete-new": ("made", ""),
    # the solution's answer was written through it: a file made
    "testcase.ans": ("made", ""),
    # the case's inline answer was written through it: the key file overwritten
    "testcase.ans-inline": ("keys", "          ans: 'ssh-rsa ATTACKER'\n"),
    # the case's input was read through it: the hidden file stored as a case (fault 3)
    "testcase.in": ("secret", ""),
}


@pytest.mark.parametrize("left", sorted(GENERATOR_LINKS))
def test_a_generator_leaving_a_link_in_its_folder_is_refused_and_nothing_follows_it(
        tmp_path, places, left):
    target, extra = GENERATOR_LINKS[left]
    name = left.split("-")[0]
    writes_input = "" if name == "testcase.in" else "open('testcase.in', 'w').write('1 2\\n')\n"
    generator = (f"import os\n{writes_input}"
                 f"os.symlink({str(places[target])!r}, {name!r})\n")
    raw, data = tmp_path / "raw", places["data"]
    package = tiny_kattis(raw / "gen", {
        "generators/evil.py": generator,
        "generators/good.py": "print(4, 5)\n",
        "generators/generators.yaml": (
            "solution: /submissions/accepted/sum.py\n"
            "data:\n  secret:\n    data:\n"
            f"      - a:\n          generate: evil.py\n{extra}"
            "      - b: good.py\n")})
    shutil.rmtree(package / "data")
    done = pipeline(data, "ingest", str(raw))
    no_traceback(done)
    untouched(places)
    # the case is refused at its line, naming the file; the other case is stored
    action = "written" if name == ".complete" else "read"
    assert (f"  reject gen/generators/generators.yaml:5: secret/1-a: the generator left {name} "
            f"as a symbolic link; it is not {action} [generator-failed]\n") in done.stdout, \
        done.stdout
    assert stored(data, "gen") == ["gen/generated/secret/2-b.in"]


# -- fault 2: a program's build script ----------------------------------------------------------

@pytest.mark.parametrize("left", ["run", "result.json"])
def test_a_build_script_leaving_a_link_is_a_compile_error_and_nothing_follows_it(
        tmp_path, places, left):
    """The build script leaves `run` (made executable by the pipeline) or `result.json`
    (where the pipeline writes what the build came to) as a link to a private file."""
    if left == "run":
        script = f"ln -s {places['private']} run\n"
    else:
        script = f"printf '#!/bin/sh\\necho 3\\n' > run\nln -s {places['keys']} result.json\n"
    raw, data = tmp_path / "raw", places["data"]
    tiny_kattis(raw / "tiny", {"submissions/accepted/evil/build": "#!/bin/sh\n" + script})
    ingested = pipeline(data, "ingest", str(raw))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    done = pipeline(data, "run", "--problem", "tiny")
    no_traceback(done)
    untouched(places)
    found = results(data)
    evil = found.filter(pl.col("solver") == "accepted/evil")
    assert evil.height == 3 and set(evil["verdict"]) == {"CE"}, evil
    assert set(evil["message"]) == {
        f"the build script left {left} as a symbolic link; it is not "
        + ("run" if left == "run" else "written")}
    assert set(found.filter(pl.col("solver") == "accepted/sum.py")["verdict"]) == {"AC"}


# -- faults 4 and 5: an output validator's feedback folder --------------------------------------

VALIDATOR_LINKING = """\
import os, sys
feedback = sys.argv[3]
os.symlink({secret!r}, os.path.join(feedback, {name!r}))
sys.exit({code})
"""


def test_an_output_validator_leaving_judgemessage_as_a_link_is_a_judge_error(tmp_path,
                                                                            places):
    raw, data = tmp_path / "raw", places["data"]
    tiny_kattis(raw / "tiny", {  # (a time limit given: no accepted run derives it)
        "problem.yaml": ("problem_format_version: 2025-09\nname: Tiny Sum\n"
                         "limits:\n  time_limit: 2\n"),
        "output_validator/check.py": VALIDATOR_LINKING.format(
            secret=str(places["secret"]), name="judgemessage.txt", code=43)})
    ingested = pipeline(data, "ingest", str(raw))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    done = pipeline(data, "run", "--problem", "tiny")
    no_traceback(done)
    untouched(places)
    assert SECRET.strip() not in done.stdout + done.stderr
    found = results(data)
    assert set(found["verdict"]) == {"JE"} and found.height == 3, found
    assert set(found["message"]) == {"output validator output_validator left judgemessage.txt "
                                     "as a symbolic link; it is not read"}


MULTI_PASS = {
    "problem.yaml": ("problem_format_version: 2025-09\ntype: multi-pass\nname: Echo Twice\n"
                     "uuid: 3c0d8a52-9f1e-4b7a-a8c2-5e6f7a8b9c0d\nlicense: cc0\n"
                     "rights_owner: gamebench\nlimits:\n  time_limit: 1.0\n"),
    "data/sample/1.in": "hello\n", "data/sample/1.ans": "hello\n",
    "data/secret/01.in": "world\n", "data/secret/01.ans": "world\n",
    # (one line: it talks interactively too)
    "submissions/accepted/echo.py": "import sys\nsys.stdout.write(sys.stdin.readline())\n",
}


def test_an_output_validator_leaving_nextpass_in_as_a_link_is_a_judge_error(tmp_path, places):
    """Pass 1's validator makes nextpass.in a link to the hidden file: that was pass 2's
    input, echoed by the submission into the stored answers."""
    raw, data = tmp_path / "raw", places["data"]
    write_tree(raw / "echo", {**MULTI_PASS, "output_validator/check.py": VALIDATOR_LINKING.format(
        secret=str(places["secret"]), name="nextpass.in", code=42)})
    ingested = pipeline(data, "ingest", str(raw))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    done = pipeline(data, "run", "--problem", "echo")
    no_traceback(done)
    untouched(places)
    assert SECRET.strip() not in done.stdout + done.stderr
    found = results(data)
    assert set(found["verdict"]) == {"JE"} and found.height == 2, found
    assert set(found["message"]) == {"pass 1: output validator output_validator left nextpass.in "
                                     "as a symbolic link; it is not read"}


INTERACTIVE_LINKING = """\
import os, sys
feedback = sys.argv[3]
print("ping", flush=True)
if sys.stdin.readline() != "ping\\n":
    sys.exit(43)
if not os.path.exists(os.path.join(feedback, "passed")):
    open(os.path.join(feedback, "passed"), "w").close()
    open(os.path.join(feedback, "nextpass.in"), "w").write("again\\n")
    os.symlink({folder!r}, os.path.join(feedback, "..", "run-2"))
sys.exit(42)
"""


def test_an_interactive_validator_linking_the_next_pass_folder_out_is_a_judge_error(
        tmp_path, places):
    """An interactive validator tries to make pass 2's working folder, beside its feedback
    folder, a link to a private folder, where the pipeline would make the submission's and the
    validator's stderr files and folders: it writes only its feedback folder (a copy on the
    case's capped tmpfs), so the link is never made, the case is a judge error naming the
    validator's own failure, and nothing is made in the private folder."""
    raw, data = tmp_path / "raw", places["data"]
    yaml = MULTI_PASS["problem.yaml"].replace("type: multi-pass",
                                              "type: [interactive, multi-pass]")
    write_tree(raw / "echo", {**MULTI_PASS, "problem.yaml": yaml,
                              "output_validator/check.py": INTERACTIVE_LINKING.format(
                                  folder=str(places["keys"].parent))})
    ingested = pipeline(data, "ingest", str(raw))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    done = pipeline(data, "run", "--problem", "echo")
    assert "internal error" not in done.stdout + done.stderr
    untouched(places)
    found = results(data)
    assert set(found["verdict"]) == {"JE"} and found.height == 2, found
    for message in found["message"]:  # the validator's own error: the folder is read-only
        assert message.startswith("output validator output_validator exited with code 1 "
                                  "(42 or 43 expected)"), message
        assert "Read-only file system" in message, message
