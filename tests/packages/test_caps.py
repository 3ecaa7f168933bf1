"""One package must not take a shared machine down: what its settings and programs may ask for
is capped. Each test loads or ingests a real package (real files, real generator and validator
programs run contained) and looks at what is on disk afterwards and what the message says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
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


# -- generators.yaml: how many cases, how many bytes ---------------------------------------------

GENERATED = {"problem.yaml": ("problem_format_version: 2023-07\nname: Fan\nlimits:\n"
                              "  time_limit: 1\n"),
             "submissions/accepted/sum.py": "print(sum(map(int, input().split())))\n"}


def _data_files(build: Path) -> list[Path]:
    return [p for p in (build / "bapctools-data").glob("*/data/**/*") if p.is_file()]


def test_an_include_fan_out_stops_at_the_case_cap_with_a_reject_at_its_line(tmp_path):
    """A 24 KB generators.yaml of includes asked for 100,000 cases and filled the disk: the
    tree holds at most `MAX_CASES`, and the include that would pass it is a reject naming
    generators.yaml and its line."""
    from pipeline.packages.generators_yaml import MAX_CASES

    folders = "".join(f"      f{i:03}:\n        include: [base]\n" for i in range(150))
    text = ("solution: /submissions/accepted/sum.py\ndata:\n  secret:\n    data:\n"
            "      base:\n        data:\n          c:\n            in: \"1 2\"\n"
            "            ans: \"3\"\n            count: 100\n" + folders)
    root = tiny_kattis(tmp_path / "fan", {**GENERATED, "generators/generators.yaml": text})
    assert len(text) > 4000  # (150 x 100 + 100 = 15,100 cases asked for)
    package = load_package(root, tmp_path / "build")
    inputs = [p for p in _data_files(tmp_path / "build") if p.suffix == ".in"]
    assert len(inputs) == MAX_CASES == len(package.cases)
    lines = text.splitlines()
    over = [e for e in package.rejects if e.rule == "too-large"]
    assert len(over) == 150 - (MAX_CASES - 100) // 100
    first = over[0]
    assert first.file == "generators/generators.yaml"
    assert lines[first.line - 1].strip() == "include: [base]"
    assert lines[first.line - 2].strip() == f"f{(MAX_CASES - 100) // 100:03}:"
    assert f"asks for more than {MAX_CASES:,} test cases" in first.message


def test_generated_bytes_stop_at_the_cap_with_rejects_naming_the_entries(tmp_path,
                                                                         monkeypatch):
    """A generator run per case (a real program, contained) writing 1 MB each: once the cases
    made hold more than `MAX_GENERATED_BYTES`, the rest are not made and each is a reject at
    its entry's line."""
    from pipeline.packages import generators_yaml

    monkeypatch.setattr(generators_yaml, "MAX_GENERATED_BYTES", 3 << 20)
    text = ("solution: /submissions/accepted/sum.py\ndata:\n  secret:\n    data:\n"
            "      big:\n        generate: mb.py {seed}\n        count: 12\n")
    root = tiny_kattis(tmp_path / "heavy", {
        **GENERATED, "generators/generators.yaml": text,
        "generators/mb.py": ("import sys\nsys.stdout.write(('1 2' + ' ' * 1000 + '\\n') * 1040"
                             " + sys.argv[1] + ' 0\\n')\n")})
    package = load_package(root, tmp_path / "build")
    made = sum(p.stat().st_size for p in (tmp_path / "build" / "bapctools-cases").glob("*/*")
               if p.is_file())
    assert 3 << 20 < made <= (3 << 20) + 3 * (1 << 20)  # (cases being made when it was passed)
    over = [e for e in package.rejects if e.rule == "too-large"]
    assert over and len(over) + len(package.cases) == 12  # (the committed data/ is not read)
    assert {(e.file, text.splitlines()[e.line - 1].strip()) for e in over} == {
        ("generators/generators.yaml", "big:")}
    assert "more than the 3,145,728 one generators/generators.yaml may make" in over[0].message


# -- what a program writes in the folders it keeps ----------------------------------------------

needs_sandbox = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root")

# Writes 3 x 100 MB in its working folder (sparse where it can: the cap counts blocks).
FILLER = ("import os, sys\n"
          "def fill(folder):\n"
          "    for i in range(3):\n"
          "        with open(os.path.join(folder, f'big{i}'), 'wb') as out:\n"
          "            for _ in range(100):\n"
          "                out.write(b'x' * (1 << 20))\n")


def _bytes_under(folder: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


@needs_sandbox
def test_a_generator_writing_300_mb_in_its_folder_stops_at_the_cap(tmp_path, sandbox_on):
    """A generator wrote 5 x 200 MB into its folder, which was written through uncapped: its
    folder is now capped like every program's (`GENERATOR_FILE_MB` in all), the case is a
    reject at its line saying so, and nothing of it is left in the build folder."""
    from pipeline.packages.generators_yaml import GENERATOR_FILE_MB

    text = ("solution: /submissions/accepted/sum.py\ndata:\n  secret:\n    data:\n"
            "      fine:\n        in: \"1 2\"\n"
            "      heavy: filler.py {seed}\n")
    root = tiny_kattis(tmp_path / "filler", {
        **GENERATED, "generators/generators.yaml": text,
        "generators/filler.py": FILLER + ("fill('.')\nopen('testcase.in', 'w').write('1 2\\n')\n")})
    package = load_package(root, tmp_path / "build")
    [reject] = package.rejects
    assert (reject.file, text.splitlines()[reject.line - 1].strip()) == (
        "generators/generators.yaml", "heavy: filler.py {seed}")
    assert "filled its folder and /tmp" in reject.message
    assert [case.name for case in package.cases] == ["secret/fine"]
    assert _bytes_under(tmp_path / "build") < (GENERATOR_FILE_MB + 8) << 20
    assert not list((tmp_path / "build").rglob("big*"))


@needs_sandbox
def test_an_output_validator_writing_300_mb_of_feedback_is_capped_and_a_judge_error(
        tmp_path, sandbox_on):
    """An output validator wrote 480 MB a case into its feedback folder (in /dev/shm, memory):
    the folder is capped like its working folder (64 MB), and a validator that filled it is
    the judge's error, not an accepted answer."""
    from pipeline.programs.checkers import run_output_validator
    from pipeline.programs.languages import build_program, detect_language
    from pipeline.programs.program import Program

    source = tmp_path / "fat.py"
    source.write_text(FILLER + "try:\n    fill(sys.argv[3])\nexcept OSError:\n    pass\n"
                      "sys.exit(42)\n")
    build = build_program(Program(name="fat", role="validator", path=source, files=(source,),
                                  language=detect_language([source])), tmp_path / "cache")
    assert build.ok, build.message
    paths = [tmp_path / name for name in ("case.in", "case.ans", "team.out")]
    for path in paths:
        path.write_text("3\n")
    feedback = tmp_path / "feedback"
    feedback.mkdir()
    result = run_output_validator(build, *paths, (), time_s=20, workdir=tmp_path,
                                  feedback_dir=feedback)
    assert result.verdict == "JE"
    assert "filled its folder" in result.message
    assert _bytes_under(feedback) <= 64 << 20


@needs_sandbox
def test_an_interactor_writing_300_mb_of_feedback_is_capped(tmp_path, sandbox_on):
    """The output validator of an interactive problem (run beside the submission) keeps its
    feedback folder within the same cap, and its run says it filled it."""
    import sys

    from pipeline.packages.interactive import run_exchange

    feedback = tmp_path / "scratch" / "feedback"
    feedback.mkdir(parents=True)
    interactor = (FILLER + "print(5, flush=True)\ninput()\ntry:\n    fill(sys.argv[1])\n"
                  "except OSError:\n    pass\nsys.exit(42)\n")
    exchange = run_exchange(
        [sys.executable, "-c", "print(2 * int(input()), flush=True)"],
        [sys.executable, "-c", interactor, str(feedback) + "/"],
        workdir=tmp_path / "scratch" / "run", submission_cpu_s=5,
        submission_memory_mb=None, output_mb=8, validator_cpu_s=20, validator_memory_mb=None,
        kept=(feedback,))
    assert "filled its folder" in (exchange.validator.error or "")
    assert _bytes_under(tmp_path / "scratch") <= 64 << 20


def test_a_zipped_package_whose_members_together_inflate_like_a_bomb_is_refused(tmp_path):
    """Members just under 1 MB each escape the check of one member's ratio; together, 150 MB
    from a zip of a few hundred KB, the package is refused before anything is inflated."""
    import zipfile

    from pipeline.packages import PackageError

    archive_path = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive_path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zipped/problem.yaml", "name: Zipped\n")
        for k in range(150):
            archive.writestr(f"zipped/data/secret/{k:03}.in", "1 2\n" * 262_000)
    with pytest.raises(PackageError) as raised:
        load_package(archive_path, tmp_path / "build")
    assert raised.value.rule == "too-large" and raised.value.file == "zipped.zip"
    assert "151 members would inflate" in raised.value.message  # (and problem.yaml)
    assert not list((tmp_path / "build").rglob("*.in"))
