"""Native code is built once into a cache keyed by its sources, safely, and is loaded with
ctypes; where it cannot be built, the caller is told in one line on stderr and gets None.

Every test builds real sources with the machine's real compiler into a temporary cache
(`PIPELINE_NATIVE_DIR`); the races and the kill use real processes.
"""

from __future__ import annotations

import ctypes
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pipeline import native
from pipeline.native import BuildError, Native

ADD_SOURCE = "#include <stdint.h>\nint64_t add(int64_t a, int64_t b) { return a + b; }\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(native.CACHE_VARIABLE, str(folder))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.delenv(native.SWITCH_VARIABLE, raising=False)
    return folder


def adder(folder: Path, name: str = "adder", source: str = ADD_SOURCE) -> Native:
    path = folder / f"{name}.c"
    path.write_text(source)
    return Native(name, path)


def child_env(cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "CXX")}
    env[native.CACHE_VARIABLE] = str(cache)
    env.update(extra)
    return env


def test_a_library_is_built_once_into_the_cache_and_loads(cache, tmp_path):
    source = adder(tmp_path)
    path = native.build(source)
    assert path.parent == cache and path.name.startswith("adder-") and path.suffix == ".so"
    built_at = path.stat().st_mtime_ns
    assert native.build(source) == path and path.stat().st_mtime_ns == built_at
    library = ctypes.CDLL(str(path))
    library.add.restype = ctypes.c_int64
    library.add.argtypes = [ctypes.c_int64, ctypes.c_int64]
    assert library.add(2**40, 5) == 2**40 + 5
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == []


def test_the_key_follows_the_sources_the_flags_and_the_compiler(cache, tmp_path, monkeypatch):
    source = adder(tmp_path)
    first = native.artifact(source)
    (tmp_path / "adder.c").write_text(ADD_SOURCE + "int64_t one(void) { return 1; }\n")
    edited = native.artifact(source)
    assert edited != first
    assert native.artifact(Native("adder", source.source, flags=("-O3",))) != edited
    monkeypatch.setenv("CC", "gcc")
    assert native.artifact(source) != edited


def test_an_included_header_is_part_of_the_key(cache, tmp_path):
    header = tmp_path / "value.h"
    header.write_text("#define VALUE 7\n")
    source = tmp_path / "reader.c"
    source.write_text('#include "value.h"\nint value(void) { return VALUE; }\n')
    declared = Native("reader", source, headers=(header,))
    before = native.artifact(declared)
    library = ctypes.CDLL(str(native.build(declared)))
    assert library.value() == 7
    header.write_text("#define VALUE 8\n")
    assert native.artifact(declared) != before
    assert ctypes.CDLL(str(native.build(declared))).value() == 8


def test_the_shared_uints_header_reads_what_the_quick_paths_vouch_for(cache, tmp_path):
    source = tmp_path / "scan.c"
    source.write_text('#include "uints.h"\n'
                      "int64_t scan(const unsigned char *t, int64_t n, uint64_t *out,"
                      " int64_t cap) { return gb_scan_uints(t, n, out, cap); }\n")
    library = ctypes.CDLL(str(native.build(Native("scan", source))))
    library.scan.restype = ctypes.c_int64
    out = (ctypes.c_uint64 * 8)()

    def scan(text: bytes, cap: int = 8):
        count = library.scan(text, len(text), out, cap)
        return None if count < 0 else list(out[:count])

    assert scan(b" 12\r\n0 9223372036854775806 \n") == [12, 0, 2**63 - 2]
    assert scan(b"") == [] and scan(b" \n") == []
    for declined in (b"007", b"1 -2", b"+3", b"1.5", b"9223372036854775807",
                     b"123456789012345678901", b"1\x0b2", b"1\t2", b"1\x1c2", b"\xc3\xa9",
                     b"\xc2\xa0", b"1 2 3", b"4x"):
        assert scan(declined, cap=2) is None, declined
    rng = random.Random(5)
    for _ in range(2000):  # every length up to 19 digits, against Python's own reading
        values = [rng.randrange(10 ** (length - 1) if length > 1 else 0, 10 ** length)
                  for length in (rng.randint(1, 19) for _ in range(8))]
        text = " ".join(map(str, values)).encode()
        assert scan(text) == (values if max(values) < 2**63 - 1 else None), text


def test_a_program_is_built_as_an_executable(cache, tmp_path):
    source = tmp_path / "hello.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("hello"); return 3; }\n')
    path = native.build(Native("hello", source, kind="program"))
    done = subprocess.run([str(path)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (3, "hello\n")


def test_executable_gives_the_program_or_none_with_a_note(cache, tmp_path):
    source = tmp_path / "seven.c"
    source.write_text("int main(void) { return 7; }\n")
    program = Native("seven", source, kind="program")
    assert subprocess.run([str(native.executable(program, "the slow way"))]).returncode == 7
    script = (f"from pathlib import Path\nfrom pipeline import native\n"
              f"p = native.Native('seven2', Path({str(source)!r}), kind='program')\n"
              f"print(native.executable(p, 'a shell loop'))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=child_env(cache, PATH=""), timeout=60)
    assert done.stdout.strip() == "None"
    assert done.stderr.strip().endswith("using a shell loop")


def test_a_source_with_its_own_compilers_is_built_by_the_first_there_unless_cc_is_set(
        cache, tmp_path, monkeypatch):
    """(The launcher's musl build: musl-gcc only; a user's $CC names the compiler to use.)"""
    source = tmp_path / "hello.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("hello"); return 3; }\n')
    own = Native("hello", source, kind="program", compilers=("no-such-cc", "cc"))
    done = subprocess.run([str(native.build(own))], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (3, "hello\n")
    assert native.artifact(own) != native.artifact(Native("hello", source, kind="program"))
    with pytest.raises(BuildError, match="^no no-such-cc or other-cc on PATH$"):
        native.build(Native("hello", source, kind="program",
                            compilers=("no-such-cc", "other-cc")))
    monkeypatch.setenv("CC", "cc")
    again = Native("hello", source, kind="program", flags=("-O1",), compilers=("cc",))
    with pytest.raises(BuildError, match="^\\$CC names the compiler to use$"):
        native.build(again)
    assert not native.artifact(again).exists()


def test_a_cpp_source_is_built_by_the_cpp_compiler(cache, tmp_path):
    source = tmp_path / "sorter.cpp"
    source.write_text('#include <algorithm>\n#include <cstdint>\n'
                      'extern "C" void sort(int64_t *a, int64_t n) { std::sort(a, a + n); }\n')
    library = ctypes.CDLL(str(native.build(Native("sorter", source))))
    values = (ctypes.c_int64 * 4)(3, -1, 2, 0)
    library.sort(values, ctypes.c_int64(4))
    assert list(values) == [-1, 0, 2, 3]


def test_a_compile_error_is_a_build_error_naming_the_source(cache, tmp_path):
    broken = adder(tmp_path, "broken", "int broken( { return 1; }\n")
    with pytest.raises(BuildError) as info:
        native.build(broken)
    assert "broken.c" in str(info.value) and "error" in str(info.value)
    assert not native.artifact(broken).exists()
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == []


def test_two_processes_building_at_once_compile_once_and_load_the_same_file(cache, tmp_path):
    adder(tmp_path)
    script = textwrap.dedent(f"""
        import ctypes, sys, time
        from pathlib import Path
        from pipeline import native
        source = native.Native("adder", Path({str(tmp_path / 'adder.c')!r}))
        while time.time() < {time.time() + 1.0}:  # start together
            pass
        path = native.build(source)
        library = ctypes.CDLL(str(path))
        print(path, library.add(ctypes.c_int64(2), ctypes.c_int64(3)))
    """)
    children = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                 text=True, env=child_env(cache)) for _ in range(2)]
    outputs = [child.communicate(timeout=120)[0].split() for child in children]
    assert [child.returncode for child in children] == [0, 0]
    assert outputs[0] == outputs[1] and outputs[0][1] == "5"
    artifacts = [p.name for p in cache.iterdir() if not p.name.startswith(".")]
    assert artifacts == [Path(outputs[0][0]).name]
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == []


def test_a_build_killed_midway_leaves_no_artifact_and_the_next_build_cleans_up(cache, tmp_path):
    # A compiler that writes half its output, then hangs until killed, while `hang` exists.
    hang = tmp_path / "hang"
    hang.touch()
    compiler = tmp_path / "slowcc"
    compiler.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        if [ -e {hang} ]; then
            out=""; prev=""
            for arg in "$@"; do [ "$prev" = "-o" ] && out="$arg"; prev="$arg"; done
            printf 'half an ELF' > "$out"
            exec sleep 60
        fi
        exec cc "$@"
    """))
    compiler.chmod(0o755)
    adder(tmp_path)
    script = (f"from pathlib import Path\nfrom pipeline import native\n"
              f"native.build(native.Native('adder', Path({str(tmp_path / 'adder.c')!r})))\n")
    env = child_env(cache, CC=str(compiler))
    child = subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".tmp") for p in cache.glob(".*")):
        assert time.monotonic() < deadline and child.poll() is None
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    visible = [p for p in cache.iterdir() if not p.name.startswith(".")]
    assert visible == []  # no artifact, half-written or not
    hang.unlink()
    done = subprocess.run([sys.executable, "-c", script], env=env, timeout=120)
    assert done.returncode == 0
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == []
    [artifact] = [p for p in cache.iterdir() if not p.name.startswith(".")]
    assert ctypes.CDLL(str(artifact)).add(2, 2) == 4


def test_without_a_compiler_load_says_why_in_one_line_and_returns_none(cache, tmp_path):
    adder(tmp_path)
    script = textwrap.dedent(f"""
        from pathlib import Path
        from pipeline import native
        source = native.Native("adder", Path({str(tmp_path / 'adder.c')!r}))
        print(native.load(source, "the slow way"), native.load(source, "the slow way"))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=child_env(cache, PATH=""), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "None"]
    assert done.stderr.count("\n") == 1, done.stderr
    assert "native code 'adder' unavailable (no C compiler on PATH" in done.stderr
    assert done.stderr.rstrip().endswith("using the slow way")
    assert not cache.exists() or [p for p in cache.iterdir()] == []


def test_switched_off_load_returns_none_silently(cache, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(native.SWITCH_VARIABLE, "0")
    source = adder(tmp_path, "switched")
    assert native.load(source, "the slow way") is None
    assert capsys.readouterr().err == ""
    assert not native.artifact(source).exists()


def test_an_unloadable_artifact_is_built_again(cache, tmp_path):
    source = adder(tmp_path, "damaged")
    path = native.artifact(source)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a shared library")
    library = native.load(source, "the slow way")
    assert library is not None and library.add(1, 1) == 2


def test_make_venv_step_builds_every_registered_source(cache):
    done = subprocess.run([sys.executable, "-m", "pipeline.native", "--strict"],
                          capture_output=True, text=True, env=child_env(cache), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    built = sorted(p.name.split("-")[0] for p in cache.iterdir() if p.suffix == ".so")
    assert built == ["bipartitebattle", "cf103119g", "insq15g", "movcoin2"]
    programs = sorted(p.name.rsplit("-", 1)[0] for p in cache.iterdir()
                      if not p.suffix and not p.name.startswith("."))
    musl = ["launcher-musl"] if shutil.which("musl-gcc") else []
    assert programs == ["launcher", *musl, "launcher-static"]  # the external programs' launcher
    again = subprocess.run([sys.executable, "-m", "pipeline.native"], capture_output=True,
                           text=True, env=child_env(cache), timeout=600)
    assert again.stdout.count("up to date") == 6 + len(musl), again.stdout


def test_make_venv_step_without_a_compiler_says_so_and_succeeds(cache):
    done = subprocess.run([sys.executable, "-m", "pipeline.native"], capture_output=True,
                          text=True, env=child_env(cache, PATH=""), timeout=600)
    assert done.returncode == 0
    assert done.stdout.count("NOT BUILT: no C compiler on PATH") == 5, done.stdout
    assert done.stdout.count("NOT BUILT: no C++ compiler on PATH") == 1, done.stdout
    assert "launcher-musl (program, launcher.c): skipped: no musl-gcc on PATH (optional: its " \
        "other builds serve)" in done.stdout, done.stdout
    strict = subprocess.run([sys.executable, "-m", "pipeline.native", "--strict"],
                            capture_output=True, text=True, env=child_env(cache, PATH=""),
                            timeout=600)
    assert strict.returncode == 1
