"""`atomic_write`: every file it writes gets the mode any file the user writes gets (0666 less
the umask, or the mode of the file it replaces), not the 0600 of a private temporary file; a
scratch folder goes with what a program left in it, never following a link."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from pipeline.fsutil import atomic_write_text, current_umask, scratch_folder
from pipeline.tables.files import write_parquet_atomic


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@contextmanager
def umask(mask: int):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def test_a_new_file_gets_0666_less_the_umask(tmp_path):
    with umask(0o022):
        assert current_umask() == 0o022
        atomic_write_text(tmp_path / "a.txt", "a\n")
        write_parquet_atomic(tmp_path / "t.parquet", pl.DataFrame({"x": [1]}))
    assert mode(tmp_path / "a.txt") == 0o644
    assert mode(tmp_path / "t.parquet") == 0o644
    with umask(0o077):
        atomic_write_text(tmp_path / "private.txt", "p\n")
    assert mode(tmp_path / "private.txt") == 0o600
    with umask(0o002):
        atomic_write_text(tmp_path / "group.txt", "g\n")
    assert mode(tmp_path / "group.txt") == 0o664
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a.txt", "group.txt", "private.txt", "t.parquet"]          # no temporary file left


def test_rewriting_a_file_keeps_its_mode(tmp_path):
    target = tmp_path / "shared.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    with umask(0o022):
        atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n" and mode(target) == 0o640


def test_the_html_report_of_a_real_process_is_readable_by_others(tmp_path):
    """`pipeline report` in a real process under the usual umask writes a 0644 file."""
    data = tmp_path / "data"
    pipeline = Path(sys.executable).with_name("pipeline")
    samples = Path(__file__).resolve().parents[1] / "pipeline" / "problems" / "arc087e" / "samples"
    env = {**os.environ, "PIPELINE_DATA_DIR": str(data)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["sh", "-c", 'umask 022 && exec "$@"', "sh", str(pipeline), *args],
                              env=env, capture_output=True, text=True, check=True)

    run("ingest", str(samples), "--problem", "arc087e")
    run("run", "--problem", "arc087e", "--solver", "fast", "--jobs", "1")
    out = tmp_path / "report.html"
    run("report", "--out", str(out))
    assert mode(out) == 0o644
    tables = list((data / "tables").rglob("*.parquet"))
    assert tables and all(mode(p) == 0o644 for p in tables)


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    """Text that cannot be encoded (a lone surrogate) fails the write: the file keeps what it
    held and no temporary file is left beside it; an unsynced write, flushed with its
    folder's filesystem, lands as a synced one does."""
    import pytest

    from pipeline.fsutil import sync_filesystem

    target = tmp_path / "case.in"
    atomic_write_text(target, "1 2\n")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "bad \udc80\n")
    assert target.read_text() == "1 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["case.in"]
    atomic_write_text(tmp_path / "other.in", "3 4\n", sync=False)
    sync_filesystem(tmp_path)
    assert (tmp_path / "other.in").read_text() == "3 4\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.in", "other.in"]


def _leave_a_locked_link(make_scratch, base: Path) -> int:
    """In a forked child (as `nobody` when this is root, so that removing is refused): a
    program's leftovers in a scratch folder, a folder made read-only holding a link to a file
    outside; 0 when the file is untouched after the folder's removal, else 1."""
    pid = os.fork()
    if pid == 0:
        code = 2
        try:
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            victim = base / "victim"
            victim.write_text("outside\n")
            os.chmod(victim, 0o644)
            with make_scratch(dir=base) as scratch:
                locked = Path(scratch, "locked")
                locked.mkdir()
                (locked / "link").symlink_to(victim)
                locked.chmod(0o500)
            code = 0 if stat.S_IMODE(victim.stat().st_mode) == 0o644 else 1
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_a_scratch_folder_goes_without_following_a_link_a_program_left_in_it():
    """Removing a scratch folder never follows a link left in it, even where a folder inside
    refuses the removal (`tempfile.TemporaryDirectory` then makes the link's target 0o700 on a
    Python before 3.11.8: CVE-2023-6597)."""
    base = Path(tempfile.mkdtemp(prefix="gamebench-scratch-"))
    try:
        base.chmod(0o777)
        assert _leave_a_locked_link(scratch_folder, base) == 0
    finally:
        for folder in base.rglob("*"):
            if folder.is_dir() and not folder.is_symlink():
                folder.chmod(0o700)
        shutil.rmtree(base)
