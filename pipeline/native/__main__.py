"""`python -m pipeline.native` (run by `make venv`): build every registered native source into
the cache, one line per artifact. Exits 0 unless `--strict` and something failed: a machine
without a compiler still gets a working installation (the fallbacks).
"""

from __future__ import annotations

import argparse
import sys

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
    results = native.build_all(native.registered())
    print(f"native code in {native.cache_dir()}:")
    for result in results:
        name = f"{result.native.name} ({result.native.kind}, {result.native.source.name})"
        if result.error is not None or result.path is None:  # (no path: an error)
            print(f"  {name}: NOT BUILT: {result.error}; its fallback runs instead")
        elif result.built:
            print(f"  {name}: built in {result.seconds:.1f} s -> {result.path.name}")
        else:
            print(f"  {name}: up to date -> {result.path.name}")
    failed = [r for r in results if r.error is not None]
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
