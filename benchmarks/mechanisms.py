"""What running an external program costs per case, mechanism by mechanism, and how exact the
measured peak memory is: `python -m benchmarks.mechanisms [--cases N] [--rounds R]`; `make
bench` runs the same `measure` (docs/benchmarks.md, `overhead`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from pipeline.programs import external
from pipeline.programs.jobs import Job, SolverSpec
from pipeline.programs.launcher import launcher_path, sandbox_template
from pipeline.programs.processes import NextChildNamespace
from pipeline.untrusted import excerpt

SUM = "#include <cstdio>\nint main(){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;" \
      "printf(\"%ld\\n\",a+b);}\n"
TOUCH = "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\nint main(int c,char**v)" \
        "{size_t n=(size_t)atol(v[1])<<20;char*p=(char*)malloc(n);memset(p,1,n);" \
        "printf(\"%d\\n\",p[n-1]);}\n"
LIMITS = ["-a", str(512 << 20), "-s", str(512 << 20), "-f", str(64 << 20), "-c", "2000",
          "-w", "5000"]
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def _compile(folder: Path, name: str, source: str) -> str:
    (folder / f"{name}.cpp").write_text(source)
    subprocess.run(["g++", "-O2", "-o", str(folder / name), str(folder / f"{name}.cpp")],
                   check=True)
    return str(folder / name)


_namespace = NextChildNamespace()


@contextlib.contextmanager
def _case(case: Path, program: str) -> Iterator[None]:
    """A case folder with its input, checked for the answer and removed after the block."""
    (case / "work").mkdir(parents=True)
    (case / "input").write_text("1 2\n")
    yield
    if (case / "stdout").read_text() != "3\n":
        raise RuntimeError(f"{program} did not answer: "
                           f"{excerpt((case / 'stderr').read_text(), 300)}")
    shutil.rmtree(case)


def _spawn(argv: list[str], case: Path, fds: tuple[int, ...] = (), as_init: bool = False
           ) -> None:
    with _case(case, argv[0]), open(case / "input", "rb") as stdin, \
            open(case / "stdout", "wb") as stdout, \
            open(case / "stderr", "wb") as stderr:
        if as_init:
            _namespace.enter()
        try:
            process = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=stderr,
                                       env=ENV, start_new_session=True, close_fds=True,
                                       pass_fds=fds)
        finally:
            if as_init:
                _namespace.leave()
        os.wait4(process.pid, 0)
        process.returncode = 0


def _bare(program: str, case: Path) -> None:
    """The program started with posix_spawn and reaped with wait4, with `_spawn`'s files."""
    with _case(case, program):
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
        fds = (os.open(case / "input", os.O_RDONLY | os.O_CLOEXEC),
               os.open(case / "stdout", flags, 0o644), os.open(case / "stderr", flags, 0o644))
        try:
            os.wait4(os.posix_spawn(program, [program], ENV, file_actions=[
                (os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)]), 0)
        finally:
            for fd in fds:
                os.close(fd)


def mechanisms(program: str, shared: Path) -> dict[str, Callable[[Path], object]]:
    """name -> a function running one case (given a fresh case folder)."""
    launcher = str(launcher_path())
    fds = sandbox_template(Path(launcher), ())
    sandbox = ["-M", str(fds[0]), "-N", str(fds[1]), *(["-b", program] if program.startswith(
        "/tmp/") else [])]

    def launch(extra: list[str], pass_fds: tuple[int, ...] = (), as_init: bool = False):
        return lambda case: _spawn([launcher, "-o", str(case / "result"), "-d",
                                    str(case / "work"), *LIMITS, *extra, "--", program],
                                   case, pass_fds, as_init)

    spec = SolverSpec(name="cpp", kind="external", problem="-", timeout_s=2.0, memory_mb=512,
                      argv=(program,))
    boxed = SolverSpec(**{**spec.__dict__, "sandbox": True})
    found = {
        "bare": lambda case: _bare(program, case),
        "plain": lambda case: _spawn([program], case),
        "prlimit": lambda case: _spawn([shutil.which("prlimit") or "prlimit",
                                        f"--as={512 << 20}", f"--fsize={64 << 20}",
                                        "--cpu=3:4", "--core=0", "--", program], case),
        "launcher, subreaper": launch(["-n"]),
        "launcher + its own init": launch([]),
        "launcher as init": launch([], as_init=True),
        "launcher as init, sandbox": launch(sandbox, fds, as_init=True),
        "run_external, no sandbox": lambda case: _check(external.run_external(
            Job(0, spec, "c", "1 2\n"))),
        "run_external, sandbox": lambda case: _check(external.run_external(
            Job(0, boxed, "c", "1 2\n"))),
    }
    bwrap = shutil.which("bwrap")
    if bwrap:
        found["bubblewrap"] = lambda case: _spawn([
            bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr",
            "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc",
            "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", program, program,
            "--bind", str(case / "work"), str(case / "work"), "--chdir", str(case / "work"),
            "--", program], case)
    return found


def _cpu_s() -> float:
    """CPU seconds (user + system) of this process and of every process it has reaped (which
    includes what those reaped: the launcher's program)."""
    mine, children = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def _check(outcome) -> None:
    if outcome.verdict is not None:
        raise RuntimeError(f"run_external: {outcome.verdict}: {outcome.error}")


def measure(root: Path, cases: int, rounds: int, names: tuple[str, ...] | None = None
            ) -> dict[str, tuple[list[float], list[float]]]:
    """Per-case cost of each mechanism (all, or `names`) in `root` (mode 0711) on the tiny
    program: {name: (wall ms a case per round, CPU ms a case per round)}, the mechanisms
    interleaved round by round so a change of load touches all alike."""
    program = _compile(root, "sum", SUM)
    folder = root / "cases"
    folder.mkdir()
    found = mechanisms(program, folder)
    if names is not None:
        found = {name: found[name] for name in names if name in found}
    samples: dict[str, list[float]] = {name: [] for name in found}
    cpu: dict[str, list[float]] = {name: [] for name in found}
    count = 0
    for one in found.values():  # once each first: templates built, caches warm
        count += 1
        one(folder / f"c{count}")
    for _ in range(rounds):
        for name, one in found.items():
            started, used = time.perf_counter(), _cpu_s()
            for _ in range(cases):
                count += 1
                one(folder / f"c{count}")
            samples[name].append((time.perf_counter() - started) / cases * 1000)
            cpu[name].append((_cpu_s() - used) / cases * 1000)
    return {name: (samples[name], cpu[name]) for name in found}


def scratch_folder() -> tempfile.TemporaryDirectory:
    """A folder for `measure`, where workers keep their cases (tmpfs when there is one)."""
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    return tempfile.TemporaryDirectory(prefix="gamebench-overhead-", dir=shm)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mechanisms")
    parser.add_argument("--cases", type=int, default=50, help="cases per mechanism and round")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    if launcher_path() is None or shutil.which("g++") is None:
        print("needs the launcher (a C compiler) and g++", file=sys.stderr)
        return 1
    with scratch_folder() as folder:
        root = Path(folder)
        root.chmod(0o711)
        toucher = _compile(root, "touch", TOUCH)
        found = measure(root, args.cases, args.rounds)
        samples = {name: wall for name, (wall, _) in found.items()}
        cpu = {name: used for name, (_, used) in found.items()}
        load = os.getloadavg()[0]
        print(f"per-case cost, {args.rounds} rounds of {args.cases} cases "
              f"(load average {load:.2f}); CPU = this process and all it started:")
        plain = statistics.median(samples["bare"])
        fastest_plain, plain_cpu = min(samples["bare"]), statistics.median(cpu["bare"])
        print(f"  {'':<27} wall median (over bare)   fastest round (over bare)   "
              "CPU median (over bare)")
        for name, values in samples.items():
            value, fastest, used = statistics.median(values), min(values), \
                statistics.median(cpu[name])
            print(f"  {name:<27} {value:6.3f} ms ({value - plain:+6.3f})   "
                  f"{fastest:6.3f} ms ({fastest - fastest_plain:+6.3f})      "
                  f"{used:6.3f} ms ({used - plain_cpu:+6.3f})")
        ballast = bytearray(200 << 20)  # the worker grows to 200 MB, as a heavy import would
        ballast[::4096] = b"\1" * len(ballast[::4096])
        print("peak memory reported by run_external, from a 200 MB worker:")
        for megabytes in (10, 100, 300):
            spec = SolverSpec(name="touch", kind="external", problem="-", timeout_s=5.0,
                              memory_mb=1024, argv=(toucher, str(megabytes)))
            outcome = external.run_external(Job(0, spec, "c", ""))
            assert outcome.peak_rss_kb is not None  # it ran
            print(f"  touches {megabytes:>3} MB: reported {outcome.peak_rss_kb / 1024:7.1f} MB "
                  f"({outcome.peak_rss_kb / 1024 / megabytes - 1:+.1%})")
        del ballast
    external.cleanup_scratch()
    return 0


if __name__ == "__main__":
    sys.exit(main())
