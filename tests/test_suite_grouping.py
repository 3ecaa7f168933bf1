"""The suite's own set-up: `make test` runs it on every core (`-n N --dist loadgroup`), and
a fixture of module scope defined in a test module is built once, on the one worker that runs
that module's tests (`tests/conftest.py`); so is a conftest's fixture of session scope marked
`suitekit.one_worker`, whichever modules its tests are in. Data folders made with
`shared_builds` build a package's program once between them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

PROBE = '''
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def shared():
    with open(os.environ["BUILT"], "a") as log:
        log.write(f"{os.getpid()}\\n")


@pytest.mark.parametrize("index", range(8))
def test_uses_it(shared, index):
    pass


@pytest.mark.parametrize("index", range(8))
def test_does_not(index):
    pass
'''

# a folder's conftest with a costly session fixture, used by tests in two modules
COSTLY = '''
import os

import pytest
from suitekit import one_worker


@pytest.fixture(scope="session")
@one_worker
def costly():
    with open(os.environ["BUILT_COSTLY"], "a") as log:
        log.write(f"{os.getpid()}\\n")
'''
USES_COSTLY = '''
import pytest


@pytest.mark.parametrize("index", range(6))
def test_uses_costly(costly, index):
    pass
'''


def test_a_module_scoped_fixture_is_built_once_on_two_workers(tmp_path):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    shutil.copy(TESTS / "suitekit.py", tmp_path / "suitekit.py")
    (tmp_path / "test_probe.py").write_text(PROBE)
    (tmp_path / "costly").mkdir()
    (tmp_path / "costly" / "conftest.py").write_text(COSTLY)
    for name in ("test_costly_one.py", "test_costly_two.py"):
        (tmp_path / "costly" / name).write_text(USES_COSTLY)
    built_costly = tmp_path / "built-costly.log"
    built = tmp_path / "built.log"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         "--dist", "loadgroup", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env={**os.environ, "BUILT": str(built), "BUILT_COSTLY": str(built_costly)},
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "28 passed" in done.stdout
    assert len(built.read_text().split()) == 1, built.read_text()
    assert len(built_costly.read_text().split()) == 1, built_costly.read_text()


def test_data_folders_made_with_shared_builds_build_a_program_once(tmp_path, shared_builds):
    """Two data folders of `shared_builds`: a program built into the first's package build
    cache (where the pipeline builds a package's programs) is found built in the second's, and
    runs from there; a program of other content is built anew."""
    from pipeline.packages.registry import build_dir
    from pipeline.programs.languages import build_program
    from pipeline.programs.program import Program

    source = tmp_path / "answer.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("42"); return 0; }\n')
    program = Program(name="answer.c", role="submission", path=source, files=(source,),
                      language="c")
    first, second = (shared_builds(tmp_path / name) for name in ("one", "two"))
    made = build_program(program, build_dir(first))
    found = build_program(program, build_dir(second))
    assert made.ok and not made.cached, made.message
    assert found.ok and found.cached
    assert Path(found.argv[0]).resolve() == Path(made.argv[0]).resolve()  # the one build
    assert subprocess.run(list(found.argv), capture_output=True, text=True).stdout == "42\n"
    source.write_text('#include <stdio.h>\nint main(void) { puts("43"); return 0; }\n')
    other = build_program(program, build_dir(second))
    assert other.ok and not other.cached
    assert Path(other.argv[0]).resolve() != Path(made.argv[0]).resolve()
