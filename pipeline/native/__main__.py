"""`python -m pipeline.native` (run by `make venv`): build every registered native source into
the cache, one line per artifact, and remove the artifacts of its earlier versions. Exits 0
unless `--strict` and something failed: a machine without a compiler still gets a working
installation (the fallbacks). A source built only by its own compilers (the launcher's musl
build) is skipped, not failed, where none of them is installed or `$CC`/`$CXX` names another.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pipeline import native
from pipeline.problems import all_problems
from pipeline.programs import launcher  # noqa: F401 (declares the launcher's native code)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.native",
                                     description="Build the pipeline's native code.")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when anything cannot be built")
    args = parser.parse_args(argv)
    all_problems()  # importing the problems and the launcher registers their native code
    print(f"native code in {native.cache_dir()}:")
    failed = False
    for source in native.registered():
        name = f"{source.name} ({source.kind}, {source.source.name})"
        started = time.perf_counter()
        try:
            existed = native.artifact(source).exists()
            path = native.build(source)
        except (native.BuildError, OSError) as error:
            if source.compilers and native.own_compiler(source) is None:
                print(f"  {name}: skipped: {error} (optional: its other builds serve)")
                continue
            print(f"  {name}: NOT BUILT: {error}; its fallback runs instead")
            failed = True
            continue
        done = "up to date" if existed else f"built in {time.perf_counter() - started:.1f} s"
        print(f"  {name}: {done} -> {path.name}")
        _prune(source, path)
    return 1 if failed and args.strict else 0


def _prune(source: native.Native, current: Path) -> None:
    """Remove the artifacts (and their lock files) of earlier versions of `source`."""
    for pattern in (f"{source.name}-*", f".{source.name}-*.lock"):
        for old in current.parent.glob(pattern):
            name = old.name.removeprefix(".").removesuffix(".lock")
            stem = name[len(source.name) + 1:].removesuffix(".so")
            if name != current.name and len(stem) == 16 \
                    and all(c in "0123456789abcdef" for c in stem):
                old.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
