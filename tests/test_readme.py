"""The docs' examples run as written, and what they say about the code matches the code.

The docs are README.md and the pages of `docs/`, read in one fixed order, README first (PAGES).
Every ```sh block of every page is parsed and its command lines run, exactly as written, as real
`bash` processes (so `.venv/bin/pipeline` and a bare `pipeline` are the installed console
script) in a workspace that looks like a clone of this repository: its tracked files linked in,
`.venv` the environment running the tests, a data folder of its own (`PIPELINE_DATA_DIR`), and
the problem folder that "Adding a problem" builds from the docs' own text in `problems/`.

- Blocks run in the pages' order, in that one workspace, as a reader following the docs would
  run them; exported variables and the working directory carry from one line to the next.
  Each command must exit 0, or the status its comment gives (`cmd   # exits 1: why`).
- A block that cannot run in a test is marked on the line before its fence with
  `<!-- example: not run (why) -->`; every other sh block must have run, so a new example
  cannot escape, and every shell block is fenced as `sh`.
- "The everyday flow" of the README is the first block to run, command by command, exactly as
  written.
- Every `pipeline query "SQL"` the docs show, in a block or in the text, runs against a data
  folder that holds a finished run, and succeeds.
- The docs together name what exists: every table with all its columns, every command, every
  package folder in the layout, every file path and environment variable they mention.
- Every page of `docs/` is in PAGES and linked from the README, and every link between pages
  names a page and a heading that exist.
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
PAGES = ("README.md", "docs/commands.md", "docs/packages.md", "docs/stress.md",
         "docs/cluster.md", "docs/tables.md", "docs/faults.md", "docs/architecture.md",
         "docs/benchmarks.md")  # the order their examples run in, README first
TEXTS = {page: (REPO / page).read_text() for page in PAGES}
ALL_TEXT = "\n".join(TEXTS.values())
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


# -- reading the pages ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Block:
    page: str          # the page's path from the repository's root, e.g. `docs/commands.md`
    line: int          # 1-based line of the opening fence
    language: str
    text: str
    section: str       # the `## ` heading the block is under
    mark: str | None   # the `<!-- example: ... -->` comment on the line before the fence

    @property
    def place(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass(frozen=True)
class Command:
    page: str
    line: int          # 1-based line of the page it starts on
    text: str          # as written (continued lines joined by their backslash-newlines)
    expected: int      # the exit status it must end with

    @property
    def place(self) -> str:
        return f"{self.page}:{self.line}"

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


def read_blocks(text: str, page: str) -> list[Block]:
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
            blocks.append(Block(page, start + 1, fence.group(2), "\n".join(body) + "\n", section,
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
        commands.append(Command(block.page, first, text,
                                int(expected.group(1)) if expected else 0))
        pending = []
    assert not pending, f"{block.page}:{first}: a command ends in a backslash"
    return commands


def section(title: str) -> str:
    """The text of the one `## title` section of the pages, up to the next `## ` heading."""
    [text] = [text for text in TEXTS.values() if f"\n## {title}\n" in text]
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


BLOCKS = [block for page in PAGES for block in read_blocks(TEXTS[page], page)]
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
        return (f"{self.command.place}: {self.command.text!r} exited {self.status} "
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
    """Every command of every runnable sh block, in the pages' order."""
    return [workspace.run(block, command) for block in RUNNABLE for command in commands_of(block)]


# -- the examples -------------------------------------------------------------------------------

def test_every_page_of_the_docs_is_read_and_linked_from_the_readme():
    pages = {str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md")}
    assert pages == set(PAGES[1:]), "a page of docs/ missing from PAGES, or one that is gone"
    linked = {target for _, target in links_of("README.md")}
    assert not pages - linked, sorted(pages - linked)


def test_every_shell_block_is_fenced_as_sh_and_every_mark_says_why_it_is_not_run():
    assert not [b.place for b in BLOCKS if b.language in SHELL_LANGUAGES]
    for block in BLOCKS:
        if block.mark is not None:
            assert block.language == "sh", f"{block.place}: a mark before a non-sh block"
            assert NOT_RUN.match(block.mark), f"{block.page}:{block.line - 1}: {block.mark!r}"
    for page, text in TEXTS.items():
        marks = [line for line in text.splitlines() if MARK.match(line.strip())]
        assert len(marks) == sum(b.mark is not None for b in BLOCKS if b.page == page), \
            f"{page}: a mark before no block"
    for block in SH_BLOCKS:
        assert commands_of(block), f"{block.place}: an sh block with no command"


def test_the_everyday_flow_runs_first_exactly_as_written(ran):
    [flow] = [b for b in RUNNABLE if b.page == "README.md"
              and b.section == "The everyday flow"][:1]
    assert RUNNABLE[0] == flow, "the everyday flow is the first example to run"
    ran_flow = [r for r in ran if r.block == flow]
    assert [r.command for r in ran_flow] == commands_of(flow)
    lines = [line for line in flow.text.splitlines() if line.strip()]
    assert [r.command.text for r in ran_flow] == lines  # every line is a command, run as is
    for result in ran_flow:
        assert result.status == 0, result.describe()
    subcommands = [r.command.subcommand for r in ran_flow]
    assert {"generate", "ingest", "run", "query"} <= set(subcommands)


def test_every_example_exits_as_the_docs_say(ran):
    failed = [r.describe() for r in ran if r.status != r.command.expected]
    assert not failed, "\n\n".join(failed)
    crashed = [r.describe() for r in ran if "Traceback" in r.stderr]
    assert not crashed, "\n\n".join(crashed)


def test_every_unmarked_sh_block_ran(ran):
    for page, text in TEXTS.items():
        fences = re.findall(r"^\s*```(\S*)", text, re.M)
        blocks = [b for b in BLOCKS if b.page == page]
        assert len(fences) == 2 * len(blocks), page  # every fence opens or closes a block read
        assert fences.count("sh") == sum(b.language == "sh" for b in blocks), page
    assert {r.block.place for r in ran} == {b.place for b in RUNNABLE}
    for block in RUNNABLE:
        assert [r.command for r in ran if r.block == block] == commands_of(block)
    assert any(r.command.subcommand for r in ran), "no pipeline command ran"


def test_every_query_the_docs_show_succeeds_on_a_data_folder_with_a_finished_run(
        ran, workspace):
    queries = [r for r in ran if r.command.subcommand == "query"]
    for result in queries:
        assert result.finished_runs > 0, f"{result.command.place}: no finished run yet"
        assert result.status == 0 and "error" not in result.stderr, result.describe()
    shown = set(QUERY_IN_TEXT.findall(ALL_TEXT))
    run_in_blocks = {r.command.words[r.command.words.index("query") + 1] for r in queries}
    assert workspace.finished_runs() > 0
    for sql in sorted(shown - run_in_blocks):  # queries in the text or in blocks not run
        done = workspace.shell(f"pipeline query {shlex.quote(sql)}")
        assert done.returncode == 0 and not done.stderr, (sql, done.stdout, done.stderr)


# -- what the docs name exists -------------------------------------------------------------------

def test_the_tables_page_lists_every_table_with_every_column():
    from pipeline.tables.schemas import CASES_BASE, TABLES, schema_of

    text = TEXTS["docs/tables.md"]
    headings = re.findall(r"^## `(\w+)`", text, re.M)
    assert headings == list(TABLES)
    parts = re.split(r"^## `", text, flags=re.M)[1:]
    for table, part in zip(TABLES, parts):
        columns = CASES_BASE if table == "cases" else schema_of(table)
        named = set(re.findall(r"`(\w+)`", part))
        assert not set(columns) - named, (table, sorted(set(columns) - named))


def test_every_command_has_a_heading_and_a_row_in_the_readmes_table():
    import typer

    from pipeline.cli import app

    commands = set(typer.main.get_command(app).commands)
    headings = [line for text in TEXTS.values() for line in headings_of(text)]
    documented = {name for line in headings for name in re.findall(r"`pipeline (\w+)", line)}
    assert documented <= commands, sorted(documented - commands)  # no heading of a lost command
    assert not commands - documented, sorted(commands - documented)
    table = section("Commands")
    in_table = set(re.findall(r"^\| \[`pipeline (\w+)`\]", table, re.M))
    assert in_table == documented, sorted(in_table ^ documented)


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


def test_every_file_and_variable_the_docs_name_exists():
    named = re.findall(r"`((?:pipeline|tests|benchmarks|configs|docs)/[\w./-]+)`", ALL_TEXT)
    files = [p for p in named if p.endswith("/") or Path(p).suffix in SOURCE_SUFFIXES]
    assert files
    for path in files:  # (`tests/01` and `tests/01.a` are Polygon's layout, not ours)
        assert (REPO / path.rstrip("/")).exists(), path
    code = "\n".join(p.read_text() for folder in ("pipeline", "benchmarks")
                     for p in REPO.glob(f"{folder}/**/*.py"))
    for variable in set(re.findall(r"\bPIPELINE_[A-Z_]+\b", ALL_TEXT)):
        assert variable in code, variable


# -- links between the pages ----------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+?)\s*$")


def headings_of(text: str) -> list[str]:
    """The Markdown headings of a page, not counting `#` lines inside fenced blocks."""
    headings, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line) or (fenced and line.strip().startswith("```")):
            fenced = not fenced
        elif not fenced and (heading := HEADING.match(line)):
            headings.append(heading.group(1))
    return headings


def anchor_of(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def links_of(page: str) -> list[tuple[str, str]]:
    """(anchor, target page from the repository's root) of every relative link of a page."""
    links = []
    for target in LINK.findall(TEXTS[page]):
        if re.match(r"^[a-z]+:", target):
            continue  # https://..., mailto:
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(Path(page).parent / path) if path else page
        links.append((anchor, resolved))
    return links


def test_every_link_between_the_pages_names_a_page_and_a_heading_that_exist():
    assert anchor_of("`pipeline run`") == "pipeline-run"
    assert anchor_of("Data made by `generators.yaml`") == "data-made-by-generatorsyaml"
    checked = 0
    for page in PAGES:
        for anchor, target in links_of(page):
            assert (REPO / target).exists(), f"{page}: a link to {target}, which does not exist"
            if anchor:
                assert target in TEXTS, f"{page}: a link into {target}, not a page of the docs"
                anchors = {anchor_of(h) for h in headings_of(TEXTS[target])}
                assert anchor in anchors, f"{page}: no heading {anchor!r} in {target}"
            checked += 1
    assert checked > len(PAGES)
