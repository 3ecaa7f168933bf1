"""Native code: C and C++ sources compiled once, ahead of time, and loaded with ctypes (why:
docs/architecture.md). `library`/`program` declare a source; `load`/`executable` build it on
first use when the cache lacks it (`make venv` builds all: `python -m pipeline.native`).
Artifacts are `<name>-<key>[.so]` in `cache_dir()`, the key a hash of sources, flags, compiler
and machine, renamed into place under an `flock`, so a killed build leaves nothing. Where
building fails, one stderr line names the fallback; `PIPELINE_NATIVE=0` switches it all off.
A stage with no fallback refuses where its library is unavailable (`refuses_without`).
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

CACHE_VARIABLE = "PIPELINE_NATIVE_DIR"
SWITCH_VARIABLE = "PIPELINE_NATIVE"
SWITCHED_OFF = f"native code is switched off ({SWITCH_VARIABLE}=0)"
INCLUDE_DIR = Path(__file__).resolve().parent  # shared headers (uints.h) live here

Kind = Literal["library", "program"]

C_COMPILERS = ("cc", "gcc", "clang")
CXX_COMPILERS = ("c++", "g++", "clang++")
CXX_SUFFIXES = (".cc", ".cpp", ".cxx")


class BuildError(RuntimeError):
    """A native source could not be built here (no compiler, or the compiler failed)."""


@dataclass(frozen=True)
class Native:
    """One native source: a shared library or an executable; `headers`: files it includes;
    `compilers`: the only compilers to build it with (the first on PATH), for a source that
    needs one toolchain: it is not built where `$CC`/`$CXX` names the compiler to use."""

    name: str
    source: Path
    kind: Kind = "library"
    headers: tuple[Path, ...] = ()
    flags: tuple[str, ...] = ("-O2",)
    compilers: tuple[str, ...] = ()

    @property
    def language(self) -> Literal["c", "c++"]:
        return "c++" if self.source.suffix in CXX_SUFFIXES else "c"


_REGISTERED: dict[str, Native] = {}
_NOTED: set[str] = set()
_WHY_NOT: dict[str, str] = {}  # name -> why `load` returned None


def _declare(native: Native) -> Native:
    known = _REGISTERED.get(native.name)
    if known is not None and known != native:
        raise ValueError(f"native code {native.name!r} is declared twice: {known.source} and "
                         f"{native.source}")
    _REGISTERED[native.name] = native
    return native


def library(name: str, source: Path) -> Native:
    """Declare (and register) a shared library built from `source`."""
    return _declare(Native(name, Path(source).resolve()))


def program(name: str, source: Path, flags: tuple[str, ...] = ("-O2",),
            compilers: tuple[str, ...] = ()) -> Native:
    """Declare (and register) an executable built from `source` (by one of `compilers`
    only, when given)."""
    return _declare(Native(name, Path(source).resolve(), "program", (), tuple(flags),
                           tuple(compilers)))


def registered() -> tuple[Native, ...]:
    return tuple(_REGISTERED.values())


def enabled() -> bool:
    switch = os.environ.get(SWITCH_VARIABLE, "1").strip().lower()
    return switch not in ("0", "off", "no", "false")


# -- the cache --------------------------------------------------------------------------------
def cache_dir() -> Path:
    configured = os.environ.get(CACHE_VARIABLE, "").strip()
    if configured:
        return Path(configured).expanduser()
    if sys.prefix != sys.base_prefix:  # a virtual environment: artifacts belong to it
        return Path(sys.prefix) / "var" / "gamebench-native"
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "gamebench" / "native"


def _compiler_variable(native: Native) -> str:
    return "CXX" if native.language == "c++" else "CC"


def cache_key(native: Native) -> str:
    """SHA-256 (hex, 16 digits) of everything the artifact depends on."""
    from hashlib import sha256

    parts = (native.kind, native.language, " ".join(native.flags), " ".join(native.compilers),
             os.environ.get(_compiler_variable(native), ""), os.uname().machine)
    digest = sha256(b"".join(part.encode() + b"\0" for part in parts))
    text = native.source.read_bytes()
    shared = [h for h in sorted(INCLUDE_DIR.glob("*.h")) if f'"{h.name}"'.encode() in text]
    for path in (native.source, *native.headers, *shared):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def artifact(native: Native) -> Path:
    """Where the built artifact of `native`'s current sources lives (built or not)."""
    suffix = ".so" if native.kind == "library" else ""
    return cache_dir() / f"{native.name}-{cache_key(native)}{suffix}"


# -- building ---------------------------------------------------------------------------------
def compiler(native: Native) -> list[str]:
    """The compiler command for `native`: the first of its own `compilers` on PATH if it names
    some (none where `$CC`/`$CXX` is set); else `$CC`/`$CXX` if set, else the first usual one on
    PATH."""
    import shlex
    import shutil

    variable = _compiler_variable(native)
    configured = os.environ.get(variable, "").strip()
    if native.compilers:
        found = own_compiler(native)
        if found is None:
            raise BuildError(f"${variable} names the compiler to use" if configured else
                             f"no {' or '.join(native.compilers)} on PATH")
        return [found]
    if configured:
        command = shlex.split(configured)
        if shutil.which(command[0]) is None:
            raise BuildError(f"${variable} names {command[0]!r}, which is not on PATH")
        return command
    names = CXX_COMPILERS if native.language == "c++" else C_COMPILERS
    found = next(filter(None, map(shutil.which, names)), None)
    if found:
        return [found]
    raise BuildError(f"no {native.language.upper()} compiler on PATH (looked for "
                     f"{', '.join(names)}; ${variable} may name one)")


def own_compiler(native: Native) -> str | None:
    """The first of `native`'s own compilers on PATH; None where none is, or where `$CC`/`$CXX`
    names the compiler to use (such a source then stands aside)."""
    import shutil

    if os.environ.get(_compiler_variable(native), "").strip():
        return None
    return next(filter(None, map(shutil.which, native.compilers)), None)


def build_command(native: Native, output: Path) -> list[str]:
    command = compiler(native)
    standard = "-std=c++17" if native.language == "c++" else "-std=c11"
    shape = ["-shared", "-fPIC"] if native.kind == "library" else []
    folders = dict.fromkeys([INCLUDE_DIR, native.source.parent,
                             *(h.parent for h in native.headers)])
    includes = [part for folder in folders for part in ("-I", str(folder))]
    return [*command, standard, *native.flags, *shape, *includes, "-o", str(output),
            str(native.source)]


def build(native: Native) -> Path:
    """The artifact of `native`, compiled into the cache first when missing (else BuildError);
    safe from several processes at once."""
    target = artifact(native)
    if target.exists():
        return target
    import fcntl
    import subprocess

    build_command(native, target)  # no compiler: BuildError before anything is created
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists():  # another process built it while we waited
            return target
        for stale in target.parent.glob(f".{target.name}.*.tmp"):  # left by a killed build
            stale.unlink(missing_ok=True)
        temporary = target.parent / f".{target.name}.{os.getpid()}.tmp"
        command = build_command(native, temporary)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as error:
            temporary.unlink(missing_ok=True)
            raise BuildError(f"{Path(command[0]).name} could not run: {error}") from None
        if done.returncode != 0:
            temporary.unlink(missing_ok=True)
            first = next((line for line in done.stderr.splitlines() if "error" in line),
                         done.stderr.strip().splitlines()[0] if done.stderr.strip() else "")
            raise BuildError(f"{Path(command[0]).name} failed on {native.source.name} "
                             f"(exit {done.returncode}): {first.strip()}")
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    return target


def note(native: Native, reason: str, fallback: str) -> None:
    """The one stderr line saying that `native` is not used, why, and what runs instead."""
    if native.name in _NOTED:
        return
    _NOTED.add(native.name)
    sys.stderr.write(f"note: native code {native.name!r} unavailable ({reason}); "
                     f"using {fallback}\n")
    sys.stderr.flush()


def load(native: Native, fallback: str):
    """The library as a `ctypes.CDLL` (built first if needed), or None when native code is off
    or cannot be built here (then one stderr line names `fallback`); `functions` loads once."""
    if not enabled():
        _WHY_NOT[native.name] = SWITCHED_OFF
        return None
    import ctypes

    try:
        path = build(native)
        try:
            return ctypes.CDLL(str(path))
        except OSError:  # an unloadable file (e.g. damaged on disk): build it again
            path.unlink(missing_ok=True)
            return ctypes.CDLL(str(build(native)))
    except (BuildError, OSError) as error:
        _WHY_NOT[native.name] = str(error)
        note(native, str(error), fallback)
        return None


def refuses_without(native: Native, library):
    """A stage's `refuses` for a stage that runs only on `native`'s kernel (`library`: its
    `functions()`): None where the library loads, else why not, in `load`'s words."""
    def refuses(case: object) -> str | None:
        if library() is not None:
            return None
        return (f"needs its native kernel ({native.source.name}), which is unavailable here: "
                f"{_WHY_NOT.get(native.name, 'not loaded')}")

    return refuses


def functions(native: Native, fallback: str, signatures: dict[str, str]):
    """A function returning `native`'s library (None where there is none), loaded on first call
    with each function in `signatures` typed, a letter an argument (`p` pointer, `i` int64)."""
    @functools.cache
    def library():
        loaded = load(native, fallback)
        if loaded is not None:
            import ctypes

            kinds = {"p": ctypes.c_void_p, "i": ctypes.c_int64}
            for name, arguments in signatures.items():
                function = getattr(loaded, name)
                function.argtypes = [kinds[letter] for letter in arguments]
                function.restype = ctypes.c_int64
        return loaded

    return library


def token_reader(library, name: str, most: int):
    """A function: text -> every token of a valid input as an array 'Q' (at most `most`), read
    by the kernel `name` of `library` (text, length, tokens, capacity, count); None when it
    declines or native code is unavailable."""
    def read(text: str):
        from pipeline.native.bulk import address, text_buffer, token_capacity, zeroed

        loaded = library()
        where = None if loaded is None else text_buffer(text)
        if where is None:
            return None
        capacity = token_capacity(where[1], most)
        tokens = zeroed("Q", capacity)
        count = zeroed("q", 1)
        if getattr(loaded, name)(*where, address(tokens), capacity, address(count)) < 0:
            return None
        del tokens[count[0]:]
        return tokens

    return read


def executable(native: Native, fallback: str) -> Path | None:
    """The program's path (built first if needed), or None as `load`'s."""
    if not enabled():
        return None
    try:
        return build(native)
    except (BuildError, OSError) as error:
        note(native, str(error), fallback)
        return None
