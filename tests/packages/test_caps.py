"""One package must not take a shared machine down: what its settings and programs may ask for
is capped. Each test loads or ingests a real package (real files, real generator and validator
programs run contained) and looks at what is on disk afterwards and what the message says."""

from __future__ import annotations

from pathlib import Path

from packagekit import tiny_kattis

from pipeline.packages import load_package
from pipeline.packages.kattis_config import MAX_TIME_SETTING_S


def test_a_time_setting_above_the_cap_is_lowered_with_a_note_naming_problem_yaml(tmp_path):
    """`validation_time: 100000000` would hold the ingest on a sleeping validator for years:
    it is taken as the cap, and a note names problem.yaml, its line and the key."""
    root = tiny_kattis(tmp_path / "slow", {
        "problem.yaml": ("problem_format_version: 2023-07\nname: Slow\n"
                         "limits:\n  time_limit: 1\n  validation_time: 100000000\n"
                         "  compilation_time: 30\n"),
        "input_validators/sleepy.py": "import time\ntime.sleep(10**8)\n"})
    package = load_package(root, tmp_path / "build")
    assert package.limits.validation_time_s == MAX_TIME_SETTING_S
    assert package.limits.compilation_time_s == 30.0   # below the cap: as given
    assert package.limits.time_s == 1.0
    notes = [note for note in package.notes if "validation_time" in note]
    assert notes == [f"problem.yaml:5: limits.validation_time 1e+08 s is above the "
                     f"{MAX_TIME_SETTING_S:g} s the pipeline allows any program; "
                     f"{MAX_TIME_SETTING_S:g} s is used"]


def test_a_timelimit_file_above_the_cap_is_lowered_too(tmp_path):
    root = tiny_kattis(tmp_path / "slowlegacy", {".timelimit": "100000\n"})
    package = load_package(root, tmp_path / "build")
    assert package.limits.time_s == MAX_TIME_SETTING_S
    assert any(note.startswith(".timelimit:1: the time limit 100000 s is above")
               for note in package.notes)
