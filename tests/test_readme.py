"""The README's examples run as written, and what it says about the code matches the code.

Every ```sh block of README.md is parsed and its command lines run, exactly as written, as real
`bash` processes (so `.venv/bin/pipeline` and a bare `pipeline` are the installed console
script) in a workspace that looks like a clone of this repository: its tracked files linked in,
`.venv` the environment running the tests, a data folder of its own (`PIPELINE_DATA_DIR`), and
the problem folder that "Adding a problem" builds from the README's own text in `problems/`.

- Blocks run in the README's order, in that one workspace, as a reader following the README
  would run them; exported variables and the working directory carry from one line to the next.
  Each command must exit 0, or the status its comment gives (`cmd   # exits 1: why`).
- A block that cannot run in a test is marked on the line before its fence with
  `<!-- example: not run (why) -->`; every other sh block must have run, so a new example
  cannot escape, and every shell block is fenced as `sh`.
- "The everyday flow" is the first block to run, command by command, exactly as written.
- Every `pipeline query "SQL"` the README shows, in a block or in the text, runs against a data
  folder that holds a finished run, and succeeds.
- The README names what exists: every table with all its columns, every command, every
  package folder in the layout, every file path and environment variable it mentions.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

REPO = Path(__file__).resolve().parents[1]
README_PATH = REPO / "README.md"
README = README_PATH.read_text()
VENV = Path(sys.executable).parent.parent
PIPELINE_WORDS = ("pipeline", ".venv/bin/pipeline")
GLOBAL_OPTIONS_WITH_VALUES = ("--data-dir", "--problems-dir")
SHELL_LANGUAGES = ("bash", "shell", "console", "zsh", "shell-session")
FENCE = re.compile(r"^(\s*)```([\w-]*)\s*$")
MARK = re.compile(r"^<!--\s*example:\s*(.*?)\s*-->$")
NOT_RUN = re.compile(r"^not run \((.+)\)$")
EXPECTED_STATUS = re.compile(r"\s#\s*exits (\d+)\b")
QUERY_IN_TEXT = re.compile(r"pipeline query \"((?:SELECT|WITH)\b[^\"]*)\"", re.I)  # not "SQL"
COMMAND_TIMEOUT_S = 300
SOURCE_SUFFIXES = (".py", ".c", ".cpp", ".h", ".toml", ".md", ".in", ".out", ".json")


# -- reading the README -------------------------------------------------------------------------

@dataclass(frozen=True)
class Block:
    line: int          # 1-based line of the opening fence
    language: str
    text: str
    section: str       # the `## ` heading the block is under
    mark: str | None   # the `<!-- example: ... -->` comment on the line before the fence


@dataclass(frozen=True)
class Command:
    line: int          # 1-based line of the README it starts on
    text: str          # as written (continued lines joined by their backslash-newlines)
    expected: int      # the exit status it must end with

    @property
    def words(self) -> list[str]:
        return shlex.split(self.text, comments=True)

    @property
    def subcommand(self) -> str | None:
        """`query` for `pipeline --data-dir D query ...`; None for any other program."""
        words = self.words
        if not words or words[0] not in PIPELINE_WORDS:
            return None
        rest = iter(words[1:])
        for word in rest:
            if word in GLOBAL_OPTIONS_WITH_VALUES:
                next(rest, None)
            elif not word.startswith("-"):
                return word
        return None


def read_blocks(text: str) -> list[Block]:
    blocks, section, previous = [], "", ""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = FENCE.match(line)
        if line.startswith("## "):
            section = line[3:].strip()
        if fence:
            indent, start = fence.group(1), index
            index += 1
            body = []
            while not lines[index].strip().startswith("```"):
                body.append(lines[index].removeprefix(indent))
                index += 1
            mark = MARK.match(previous)
            blocks.append(Block(start + 1, fence.group(2), "\n".join(body) + "\n", section,
                                mark.group(1) if mark else None))
        if line.strip():
            previous = line.strip()
        index += 1
    return blocks


def commands_of(block: Block) -> list[Command]:
    commands, pending, first = [], [], 0
    for offset, line in enumerate(block.text.splitlines()):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            first = block.line + 1 + offset
        pending.append(line)
        if line.endswith("\\"):
            continue
        text = "\n".join(pending)
        expected = EXPECTED_STATUS.search(text)
        commands.append(Command(first, text, int(expected.group(1)) if expected else 0))
        pending = []
    assert not pending, f"README.md:{first}: a command ends in a backslash"
    return commands


def section(title: str) -> str:
    """The text of the `## title` section, up to the next `## ` heading."""
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else len(README)]


BLOCKS = read_blocks(README)
SH_BLOCKS = [b for b in BLOCKS if b.language == "sh"]
RUNNABLE = [b for b in SH_BLOCKS if b.mark is None]


# -- running it ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ran:
    block: Block
    command: Command
    status: int
    stdout: str
    stderr: str
    finished_runs: int  # finished runs in the data folder when the command started

    def describe(self) -> str:
        return (f"README.md:{self.command.line}: {self.command.text!r} exited {self.status} "
                f"(expected {self.command.expected})\n--- stdout\n{self.stdout[-3000:]}\n"
                f"--- stderr\n{self.stderr[-3000:]}")


@dataclass(frozen=True)
class Workspace:
    root: Path
    data: Path
    env: dict[str, str]
    state: Path  # the shell's exported variables between commands (`export -p`)

    def finished_runs(self) -> int:
        files = list((self.data / "tables" / "runs").glob("*.parquet"))
        if not files:
            return 0
        return pl.read_parquet(files, columns=["status"])["status"].eq("finished").sum()

    def shell(self, command: str) -> subprocess.CompletedProcess:
        """`command` in bash, in the folder and with the variables the previous one left."""
        state = shlex.quote(str(self.state))
        script = (f". {state} 2>/dev/null\ncd \"$(cat {state}.cwd)\"\n{command}\n"
                  f"__status=$?\nexport -p > {state}\npwd > {state}.cwd\nexit $__status\n")
        return subprocess.run(["bash", "-c", script], cwd=self.root, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S)

    def run(self, block: Block, command: Command) -> Ran:
        finished = self.finished_runs() if command.subcommand == "query" else -1
        done = self.shell(command.text)
        return Ran(block, command, done.returncode, done.stdout, done.stderr, finished)


def tracked_top_level() -> list[str]:
    """The repository's top-level entries a clone has (git's tracked files)."""
    done = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if done.returncode == 0 and done.stdout:
        return sorted({line.split("/", 1)[0] for line in done.stdout.splitlines()})
    return sorted(p.name for p in REPO.iterdir() if not p.name.startswith(".") and p.name != "data")


def make_workspace(root: Path) -> Workspace:
    from test_adding_a_problem import build_problem_folder

    root.mkdir(parents=True)
    for name in tracked_top_level():
        (root / name).symlink_to(REPO / name)
    (root / ".venv").symlink_to(VENV)
    build_problem_folder(root / "problems")  # the folder "Adding a problem" shows, file by file
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    env.update(PATH=f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
               PIPELINE_DATA_DIR=str(root / "data"),
               PIPELINE_BUILD_DIR=str(root.parent / "worker-builds"))
    state = root.parent / "shell-state"
    state.write_text("")
    state.with_name(state.name + ".cwd").write_text(str(root))
    return Workspace(root, root / "data", env, state)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Workspace:
    return make_workspace(tmp_path_factory.mktemp("readme") / "gamebench")


@pytest.fixture(scope="module")
def ran(workspace) -> list[Ran]:
    """Every command of every runnable sh block, in the README's order."""
    return [workspace.run(block, command) for block in RUNNABLE for command in commands_of(block)]


# -- the examples -------------------------------------------------------------------------------

def test_every_shell_block_is_fenced_as_sh_and_every_mark_says_why_it_is_not_run():
    assert not [b.line for b in BLOCKS if b.language in SHELL_LANGUAGES]
    for block in BLOCKS:
        if block.mark is not None:
            assert block.language == "sh", f"README.md:{block.line}: a mark before a non-sh block"
            assert NOT_RUN.match(block.mark), f"README.md:{block.line - 1}: {block.mark!r}"
    marks = [line for line in README.splitlines() if MARK.match(line.strip())]
    assert len(marks) == sum(b.mark is not None for b in BLOCKS), "a mark before no block"
    for block in SH_BLOCKS:
        assert commands_of(block), f"README.md:{block.line}: an sh block with no command"


def test_the_everyday_flow_runs_first_exactly_as_written(ran):
    [flow] = [b for b in RUNNABLE if b.section == "The everyday flow"][:1]
    assert RUNNABLE[0] == flow, "the everyday flow is the first example to run"
    ran_flow = [r for r in ran if r.block == flow]
    assert [r.command for r in ran_flow] == commands_of(flow)
    lines = [line for line in flow.text.splitlines() if line.strip()]
    assert [r.command.text for r in ran_flow] == lines  # every line is a command, run as is
    for result in ran_flow:
        assert result.status == 0, result.describe()
    subcommands = [r.command.subcommand for r in ran_flow]
    assert {"generate", "ingest", "run", "query"} <= set(subcommands)


def test_every_example_exits_as_the_readme_says(ran):
    failed = [r.describe() for r in ran if r.status != r.command.expected]
    assert not failed, "\n\n".join(failed)
    crashed = [r.describe() for r in ran if "Traceback" in r.stderr]
    assert not crashed, "\n\n".join(crashed)


def test_every_unmarked_sh_block_ran(ran):
    fences = re.findall(r"^\s*```(\S*)", README, re.M)
    assert len(fences) == 2 * len(BLOCKS)  # every fence opens or closes a block read here
    assert fences.count("sh") == len(SH_BLOCKS)
    assert {r.block.line for r in ran} == {b.line for b in RUNNABLE}
    for block in RUNNABLE:
        assert [r.command for r in ran if r.block == block] == commands_of(block)
    assert any(r.command.subcommand for r in ran), "no pipeline command ran"


def test_every_query_the_readme_shows_succeeds_on_a_data_folder_with_a_finished_run(
        ran, workspace):
    queries = [r for r in ran if r.command.subcommand == "query"]
    for result in queries:
        assert result.finished_runs > 0, f"README.md:{result.command.line}: no finished run yet"
        assert result.status == 0 and "error" not in result.stderr, result.describe()
    shown = set(QUERY_IN_TEXT.findall(README))
    run_in_blocks = {r.command.words[r.command.words.index("query") + 1] for r in queries}
    assert workspace.finished_runs() > 0
    for sql in sorted(shown - run_in_blocks):  # queries in the text or in blocks not run
        done = workspace.shell(f"pipeline query {shlex.quote(sql)}")
        assert done.returncode == 0 and not done.stderr, (sql, done.stdout, done.stderr)


# -- what the README names exists -----------------------------------------------------------------

def test_the_tables_section_lists_every_table_with_every_column():
    from pipeline.tables.schemas import CASES_BASE, TABLES, schema_of

    text = section("Tables")
    headings = re.findall(r"^### `(\w+)`", text, re.M)
    assert headings == list(TABLES)
    parts = re.split(r"^### ", text, flags=re.M)[1:]
    for table, part in zip(TABLES, parts):
        columns = CASES_BASE if table == "cases" else schema_of(table)
        named = set(re.findall(r"`(\w+)`", part))
        assert not set(columns) - named, (table, sorted(set(columns) - named))


def test_every_command_has_a_heading_in_the_commands():
    import typer

    from pipeline.cli import app

    headings = "\n".join(re.findall(r"^###+ .*$", README, re.M))
    for name in typer.main.get_command(app).commands:
        assert f"`pipeline {name}" in headings, name


def test_the_layout_names_every_package_of_the_code():
    [layout] = [b for b in BLOCKS if b.section == "Layout" and b.language == ""]
    listed = {line.split()[0].rstrip("/") for line in layout.text.splitlines()
              if line and not line[0].isspace()}
    packages = {str(p.parent.relative_to(REPO)) for p in REPO.glob("pipeline/*/__init__.py")}
    missing = [package for package in sorted(packages)
               if not any(path == package or path.startswith(package + "/") for path in listed)]
    assert not missing, missing
    assert "benchmarks" in listed and "pipeline/native" in listed
    for path in listed:
        assert "<" in path or (REPO / path).exists(), path


def test_every_file_and_variable_the_readme_names_exists():
    named = re.findall(r"`((?:pipeline|tests|benchmarks|configs)/[\w./-]+)`", README)
    files = [p for p in named if p.endswith("/") or Path(p).suffix in SOURCE_SUFFIXES]
    assert files
    for path in files:  # (`tests/01` and `tests/01.a` are Polygon's layout, not ours)
        assert (REPO / path.rstrip("/")).exists(), path
    code = "\n".join(p.read_text() for p in REPO.glob("pipeline/**/*.py"))
    for variable in set(re.findall(r"\bPIPELINE_[A-Z_]+\b", README)):
        assert variable in code, variable
