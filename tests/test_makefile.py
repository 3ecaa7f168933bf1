"""Which interpreter `make venv` makes `.venv` from, asked of the real `make` and the real
interpreters: the system's own Python when it is 3.11 or newer and can make a virtualenv,
else `python3` on PATH; `make PYTHON=...` names another."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SYSTEM_PYTHON = "/usr/bin/python3"


def chosen(*assignments: str) -> str:
    """The interpreter the Makefile would make `.venv` from, with `assignments` (`NAME=VALUE`)."""
    shown = subprocess.run(
        ["make", "--no-print-directory", "-C", str(REPO), *assignments,
         "--eval", "show-python: ; @echo $(PYTHON)", "show-python"],
        capture_output=True, text=True, check=True, timeout=60)
    return shown.stdout.strip()


def makes_virtualenvs(python: str) -> bool:
    """Whether `python` is 3.11 or newer and has `ensurepip` (what `-m venv` needs)."""
    try:
        return subprocess.run([python, "-c", "import sys, ensurepip; "
                               "sys.exit(sys.version_info < (3, 11))"],
                              capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


def test_the_systems_python_is_chosen_when_it_can_make_the_virtualenv():
    if not makes_virtualenvs(SYSTEM_PYTHON):
        pytest.skip(f"{SYSTEM_PYTHON} is missing, older than 3.11 or has no venv module here")
    assert chosen() == SYSTEM_PYTHON


def test_without_a_system_python_the_one_on_path_is_chosen(tmp_path):
    assert chosen(f"SYSTEM_PYTHON={tmp_path / 'python3'}") == "python3"


def test_a_system_python_that_cannot_make_a_virtualenv_is_passed_over(tmp_path):
    # a real interpreter whose standard library has no `ensurepip`: Debian's python3 without
    # its python3-venv package
    stripped = tmp_path / "python3"
    stripped.write_text("#!/bin/sh\nexec python3 -I -c 'import sys; sys.modules[\"ensurepip\"] "
                        "= None; exec(sys.argv[2])' \"$@\"\n")
    stripped.chmod(0o755)
    assert subprocess.run([str(stripped), "-c", "import ensurepip"],
                          capture_output=True).returncode != 0
    assert chosen(f"SYSTEM_PYTHON={stripped}") == "python3"


def test_python_named_on_the_command_line_is_the_one_used():
    assert chosen("PYTHON=/opt/python3.12/bin/python3") == "/opt/python3.12/bin/python3"
