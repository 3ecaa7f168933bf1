"""Test data made by BAPCtools' generator framework: `generators/generators.yaml`, run at ingest.

`data/` is made as `bt generate` makes it (what is read: docs/packages.md), each case cached by
content, so loading the package again runs nothing. A case that cannot be made is a
`PackageError` naming the entry's line; a committed copy of it is judged instead
(`generated_data`). Generator files are never opened through links; what one file may ask for
is capped (`MAX_CASES`, `MAX_GENERATED_BYTES`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import os
import re
import shlex
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from pipeline.errors import PackageError
from pipeline.fsutil import file_sha256, scratch_folder
from pipeline.packages.model import ProblemType, Program
from pipeline.packages.tree import leads_outside
from pipeline.packages.yamlfile import line_of, load_yaml
from pipeline.programs.languages import Launch, build_program, detect_language, launch
from pipeline.programs.procs import ProcessResult, describe_failure, on_cores, run_limited
from pipeline.untrusted import (
    READ,
    WRITTEN,
    LeftBehind,
    copy_regular,
    is_regular,
    kind_of,
    write_regular,
)

YAML_FILE = "generators/generators.yaml"
GENERATOR_TIME_S = 60.0
GENERATOR_MEMORY_MB = 2048
GENERATOR_FILE_MB = 256          # as ingest's --max-file-mb: a max test may be large
SEED_REGEX = re.compile(r"\{seed(:[0-9]+)?\}")
NAME_REGEX = re.compile(r"\{name\}")
CONSTANT_REGEX = re.compile(r"\{\{([a-zA-Z_][a-zA-Z0-9_]*(?:\.[a-zA-Z_][a-zA-Z0-9_]*)?)\}\}")
FILE_NAME = re.compile(r"[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,254}")
COUNT_RANGE = re.compile(r"^(-?\d+)\.\.=(-?\d+)$")
# BAPCtools' config.KNOWN_TEXT_DATA_EXTENSIONS and KNOWN_VISUALIZER_EXTENSIONS
TEXT_EXTENSIONS = (".in", ".ans", ".out", ".in.statement", ".ans.statement", ".in.download",
                   ".ans.download", ".interaction", ".yaml")
DATA_EXTENSIONS = (*TEXT_EXTENSIONS, ".png", ".jpg", ".svg", ".pdf")
CASE_KEYS = ("copy", "generate", "count", "match", *(e[1:] for e in TEXT_EXTENSIONS))
LINK_KEYS = ("in.statement", "ans.statement", "in.download", "ans.download")
# The root folders, in the order BAPCtools makes them; the old plural names still read.
ROOT_FOLDERS = ("sample", "secret", "invalid_output", "invalid_answer", "invalid_input",
                "valid_output", "testing_tool_test", "fuzz")
OLD_ROOT_FOLDERS = {"invalid_outputs": "invalid_output", "invalid_answers": "invalid_answer",
                    "invalid_inputs": "invalid_input", "valid_outputs": "valid_output"}
INVALID_FOLDERS = ("invalid_input", "invalid_answer", "invalid_output")
JUDGED_FOLDERS = ("sample", "secret")  # the folders whose cases submissions are judged on
GROUP_YAML_KEYS = ("test_group.yaml", "testdata.yaml")
VISUALIZER_KEYS = ("visualizer",)
FOLDER_KEYS = ("data", "include", "solution", "random_salt", "retries", *GROUP_YAML_KEYS)
ROOT_KEYS = ("generators", "version", *VISUALIZER_KEYS, "gitignore_generated", "parallel")
# a case's keys that make nothing here: its inherited settings, and older files' notes to
# the setter (`desc`, `hint`: the statement's business, not the data's)
READ_PAST_KEYS = ("solution", "random_salt", "retries", "desc", "hint", "description")
CACHE_FORMAT = 2
TREE_FORMAT = 2                  # of a made tree's report.json (each reject's case)
MAX_CASES = 10_000               # test cases one generators.yaml may place in its data tree
MAX_GENERATED_BYTES = 4 << 30    # bytes it may make, and place, in all


@dataclass(frozen=True)
class GeneratedData:
    """The data tree made from generators.yaml, and what could not be made or was read past."""

    data_dir: Path                              # the generated `data/` folder
    rejects: tuple[PackageError, ...] = ()
    notes: tuple[str, ...] = ()


# -- constants, seeds, counts -------------------------------------------------------------------

def problem_constants(config: dict) -> dict[str, str]:
    """problem.yaml's `constants` as BAPCtools reads them: `NAME` (its value) and `NAME.sub`."""
    found: dict[str, str] = {}
    raw = config.get("constants") or {}
    if not isinstance(raw, dict):
        return found
    for key, value in raw.items():
        value = value if isinstance(value, dict) else {"value": value}
        if not isinstance(key, str) or "value" not in value:
            continue
        for sub, variant in value.items():
            if (sub == "value" and isinstance(variant, (int, float))
                    and not isinstance(variant, bool)):
                variant = str(variant)
            if isinstance(sub, str) and isinstance(variant, str):
                found[f"{key}.{sub}"] = variant
                if sub == "value":
                    found[key] = variant
    return found


def substitute_constants(text: str, constants: dict[str, str]) -> str:
    return CONSTANT_REGEX.sub(lambda m: constants.get(m.group(1), m.group(0)), text)


def default_sources_dir() -> Path:
    """Where generated data and substituted sources go when the caller gives no build folder."""
    return Path(tempfile.gettempdir()) / f"gamebench-packages-{os.getuid()}"


def with_constants(program: Program, constants: dict[str, str], build_dir: Path) -> Program:
    """The program with `{{CONSTANT}}` filled into its sources (BAPCtools fills generators and
    validators, never submissions), made once under `build_dir/bapctools-sources/`."""
    if not constants or not any(
            CONSTANT_REGEX.search(f.read_bytes().decode("utf-8", "replace"))
            for f in program.files):
        return program
    own = program.path
    assert own is not None  # a program of files
    base = own if own.is_dir() else own.parent
    digest = digest_files([(str(f), f) for f in program.files]) + json.dumps(
        constants, sort_keys=True)
    folder = Path(build_dir) / "bapctools-sources" / hashlib.sha256(
        digest.encode()).hexdigest()[:32]
    mapped = []
    for source in program.files:
        target = folder / source.relative_to(base)
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            text = source.read_bytes().decode("utf-8", "replace")
            temporary = target.with_name(f".{target.name}.{os.getpid()}")
            temporary.write_text(substitute_constants(text, constants), encoding="utf-8")
            temporary.chmod(source.stat().st_mode & 0o777)
            os.replace(temporary, target)
        mapped.append(target)
    path = folder / own.relative_to(base) if own != base else folder
    return dataclasses.replace(program, path=path, files=tuple(mapped))


def bapctools_seed(random_salt: str, command: str, count_value: int = 1) -> int:
    """The `{seed}` BAPCtools gives a command (generate.py, TestCaseRule)."""
    value = random_salt + (f":{count_value - 1}" if count_value != 1 else "") + command.strip()
    return int(hashlib.sha512(value.encode()).hexdigest(), 16) % 2**31


def parse_count(entry: object) -> list[int]:
    """The values of an entry's `count` ([1] without one); ValueError when it is malformed."""
    if not (isinstance(entry, dict) and "count" in entry):
        return [1]
    count = entry["count"]
    if isinstance(count, bool):
        raise ValueError(f"invalid count {count!r}")
    if isinstance(count, int):
        if not 1 <= count <= 100:
            raise ValueError(f"invalid count {count}; must be between 1 and 100")
        return list(range(1, count + 1))
    if isinstance(count, list):
        if not count or any(not isinstance(v, int) or isinstance(v, bool) for v in count):
            raise ValueError(f"invalid count list {count!r}; expected integers")
        if len(set(count)) != len(count):
            raise ValueError(f"invalid count list {count!r}; duplicate element")
        if len(count) > 100:
            raise ValueError("count list too long (more than 100)")
        return list(count)
    if isinstance(count, str):
        match = COUNT_RANGE.match(count)
        if not match:
            raise ValueError(f"invalid count expression {count!r}; expected format is '-4..=5'")
        low, high = int(match[1]), int(match[2])
        if low > high or high - low + 1 > 100:
            raise ValueError(f"invalid count range {count!r}")
        return list(range(low, high + 1))
    raise ValueError(f"invalid count {count!r}")


def case_of(path: str) -> str | None:
    """`path` (under data/: `secret/03-max`) when it names a test case of a judged folder
    (`JUDGED_FOLDERS`), else None: what a reject about it costs the package's judging."""
    top, _, rest = path.partition("/")
    return path if top in JUDGED_FOLDERS and rest else None


def is_test_case(entry: object) -> bool:
    return entry is None or isinstance(entry, str) or (
        isinstance(entry, dict) and any(key in entry for key in CASE_KEYS))


def is_directory(entry: object) -> bool:
    return isinstance(entry, dict) and not is_test_case(entry)


# -- the rules: what generators.yaml asks for ---------------------------------------------------

@dataclass(frozen=True)
class Settings:
    """What a folder or case inherits: the solution, the salt, the retries."""

    solution: str | None = None        # "/submissions/accepted/x.py"; None: none
    default_solution: bool = True      # no `solution` given anywhere above
    random_salt: str = ""
    retries: int = 1


# What a folder or case may set for all it holds: (key, whether a value is right, what it must be)
SETTING_RULES: tuple[tuple[str, Callable[[object], bool], str], ...] = (
    ("solution", lambda value: value is None or value == "" or (
        isinstance(value, str) and value.startswith("/") and len(shlex.split(value)) == 1),
     "one absolute path from the problem root without arguments"),
    ("random_salt", lambda value: isinstance(value, str), "a string"),
    ("retries", lambda value: isinstance(value, int) and not isinstance(value, bool)
     and value > 0, "an integer > 0"))


@dataclass
class CaseRule:
    """One test case to make (one value of a `count`)."""

    path: str                          # under data/: "secret/group/03-name"
    line: int | None
    entry: dict
    settings: Settings
    count_value: int                   # 1 without a `count`


@dataclass
class FolderRule:
    path: str
    group_yaml: tuple[str, object] | None = None  # (file name, content)
    cases: list[CaseRule] = field(default_factory=list)
    folders: list[FolderRule] = field(default_factory=list)
    included: dict[str, CaseRule] = field(default_factory=dict)


class _Parser:
    """generators.yaml read into folder and case rules (BAPCtools' GeneratorConfig)."""

    def __init__(self, document: dict) -> None:
        self.errors: list[PackageError] = []
        self.notes: list[str] = []
        self.known_keys: dict[str, list[CaseRule | FolderRule]] = {}
        self.case_counter = itertools.count(1)
        self.total_numbered = self._count(document)
        self.placed = 0  # test cases placed in the tree so far (`MAX_CASES`)
        self.generators: dict[str, list[str]] = {}
        raw = document.get("generators") or {}
        if isinstance(raw, dict):
            for name, deps in raw.items():
                if isinstance(name, str) and isinstance(deps, list) and deps and all(
                        isinstance(d, str) for d in deps) and FILE_NAME.fullmatch(name):
                    self.generators[name] = deps
                else:
                    self.note(line_of(raw, name), f"generators: entry {name!r} is not a name "
                              "with a list of files (skipped)")
        for key in VISUALIZER_KEYS:
            if key in document:
                self.note(line_of(document, key), f"{key}: visualizers are not run (ignored)")
        self.root = self._folder("", "", document, Settings(), root=True)

    def error(self, line: int | None, path: str, message: str,
              rule: str = "generators-yaml", costs_case: bool = False) -> None:
        """An error at `line` about `path`; `costs_case`: the entry at `path` is a test case
        that is not made (a judged one of the package's: `case_of`)."""
        where = f"{path}: " if path else ""
        self.errors.append(PackageError(YAML_FILE, rule, where + message, line=line,
                                        case=case_of(path) if costs_case else None))

    def over_cap(self, line: int | None, path: str, adding: int,
                 costs_case: bool = False) -> bool:
        """Whether `adding` more cases would pass `MAX_CASES` (an error); else they are counted."""
        if self.placed + adding > MAX_CASES:
            self.error(line, path, f"{YAML_FILE} asks for more than {MAX_CASES:,} test cases "
                       f"({self.placed:,} before this entry, which adds {adding:,}): this "
                       "entry is not made", rule="too-large", costs_case=costs_case)
            return True
        self.placed += adding
        return False

    def note(self, line: int | None, message: str) -> None:
        self.notes.append(f"{YAML_FILE}{f':{line}' if line else ''}: {message}")

    def _count(self, entry: dict) -> int:
        """The numbered test cases under `entry` (BAPCtools numbers them across the file)."""
        data: Any = entry.get("data")
        total = 0
        for item in data if isinstance(data, list) else [data]:
            for child in item.values() if isinstance(item, dict) else ():
                if is_directory(child):
                    total += self._count(child)
                elif is_test_case(child) and isinstance(data, list):
                    try:
                        total += len(parse_count(child))
                    except ValueError:
                        total += 1
        return total

    def _settings(self, entry: dict, inherited: Settings, path: str) -> Settings:
        settings = inherited
        for key, valid, what in SETTING_RULES:
            if key not in entry:
                continue
            value = entry[key]
            if not valid(value):
                self.error(line_of(entry, key), path, f"{key} must be {what}, got {value!r}")
            elif key == "solution":
                settings = replace(settings, solution=value or None, default_solution=False)
            else:
                settings = replace(settings, **{key: value})
        return settings

    def _folder(self, key: str, path: str, entry: dict, inherited: Settings,
                root: bool = False) -> FolderRule:
        settings = self._settings(entry, inherited, path)
        folder = FolderRule(path, next(((name, entry[name]) for name in reversed(GROUP_YAML_KEYS)
                                        if entry.get(name)), None))  # the last given
        for other in entry:
            if other not in FOLDER_KEYS and not (root and other in ROOT_KEYS):
                self.note(line_of(entry, other), f"{path or 'root'}: unknown key {other!r} "
                          "(ignored)")
        if not root:
            self.known_keys.setdefault(key, []).append(folder)
        included: dict[str, CaseRule] = {}  # by name: the first included case of each
        includes = entry.get("include") or []
        if not isinstance(includes, list):
            includes = [includes]
        for item in includes:
            target = self.known_keys.get(item, []) if isinstance(item, str) else []
            if len(target) != 1:
                self.error(line_of(entry, "include"), path, f"include {item!r} is ambiguous"
                           if target else f"include {item!r} does not name exactly one earlier "
                           "test case or group")
                continue
            rule = target[0]
            for case in [rule] if isinstance(rule, CaseRule) else _all_cases(rule):
                included.setdefault(case.path.rsplit("/", 1)[-1], case)
        data: Any = entry.get("data")
        data_line = line_of(entry, "data")
        numbered = isinstance(data, list) and not root
        if root and isinstance(data, list):
            self.error(data_line, path, "the root data must not be numbered")
        elif data is not None and not isinstance(data, (dict, list)):
            self.error(data_line, path, "data must be a mapping or a list")
        items = data if numbered else [data] if isinstance(data, dict) else []
        groups_total = sum(1 for item in items if isinstance(item, dict)
                           for child in item.values() if is_directory(child))
        group_counter = itertools.count(1)
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                self.error(data_line, path, f"data[{index}] must be a mapping")
                continue
            if numbered and len(item) != 1:
                self.error(line_of(item, next(iter(item), None)) or data_line, path,
                           f"numbered data[{index}] must have exactly one entry")
                continue
            if root:
                tops = {k: OLD_ROOT_FOLDERS.get(k, k) for k in item}
                for child_key, top in tops.items():
                    if top not in ROOT_FOLDERS:
                        self.note(line_of(item, child_key), f"unknown top folder "
                                  f"{child_key!r} (ignored)")
                ordered: list[tuple[str | None, str | None]] = sorted(
                    ((k, top) for k, top in tops.items() if top in ROOT_FOLDERS),
                    key=lambda pair: (ROOT_FOLDERS.index(pair[1]), pair[0]))
            else:
                ordered = sorted(((k, k) for k in item if k is None or isinstance(k, str)),
                                 key=lambda pair: pair[0] or "")
            for child_key, base in ordered:
                child = item[child_key]
                child_line = line_of(item, child_key)
                base = base or ""
                if numbered:
                    width = len(str(groups_total if is_directory(child) else self.total_numbered))
                    counter = group_counter if is_directory(child) else self.case_counter
                    names: Iterator[str] = (f"{next(counter):0{width}}"
                                            + (f"-{base}" if base else "")
                                            for _ in itertools.count())
                else:
                    if not base:
                        self.error(child_line, path, "an unnumbered test case or group must "
                                   "not have an empty key")
                        continue
                    names = itertools.repeat(base)
                if is_directory(child):
                    name = next(names)
                    child_path = f"{path}/{name}" if path else name
                    if not FILE_NAME.fullmatch(name):
                        self.error(child_line, child_path, "not a valid folder name")
                        continue
                    folder.folders.append(self._folder(base, child_path, child, settings))
                elif is_test_case(child):
                    if root:
                        self.error(child_line, base, "a top folder must be a group, not a "
                                   "test case")
                        continue
                    folder.cases.extend(self._cases(base, names, child, child_line, path,
                                                    settings))
                else:
                    self.error(child_line, path, f"{child_key!r} is neither a test case nor a "
                               "group")
        if included and not self.over_cap(line_of(entry, "include"), path or "root",
                                          len(included)):
            folder.included.update(included)
        return folder

    def _cases(self, key: str, names, entry: object, line: int | None, parent: str,
               inherited: Settings) -> list[CaseRule]:
        where = f"{parent}/{key}"
        if isinstance(entry, str):
            entry = {"copy": entry[:-3]} if entry.endswith(".in") else {"generate": entry}
        elif entry is None:
            self.error(line, where, "an empty entry makes no test case (give generate, copy "
                       "or in)", costs_case=True)
            next(names)
            return []
        assert isinstance(entry, dict)  # a test case (`is_test_case`): a mapping by now
        count_line = line_of(entry, "count") or line
        try:
            values = parse_count(entry)
        except ValueError as error:
            self.error(count_line, where, str(error), costs_case=True)
            return []
        if self.over_cap(count_line, where, len(values), costs_case=True):
            return []
        settings = self._settings(entry, inherited, where)
        consecutive = max(values) - min(values) == len(values) - 1
        padding = max(len(str(v)) for v in values) if consecutive else 0
        rules = []
        for value in values:
            name = next(names)
            if "count" in entry:  # (a valid one: int, list or range text)
                name += f"-{value:0{padding}}"
            rule = CaseRule(f"{parent}/{name}", line, entry, settings, value)
            if not FILE_NAME.fullmatch(name + ".in") or name == "test_group":
                self.error(line, rule.path, "not a valid test case name", costs_case=True)
                continue
            for other in entry:
                if other not in (*CASE_KEYS, *READ_PAST_KEYS):
                    self.note(line_of(entry, other), f"{rule.path}: unknown key {other!r} "
                              "(ignored)")
            if "match" in entry and value == values[0]:
                self.note(line_of(entry, "match"), f"{rule.path}: match patterns are not "
                          "checked (ignored)")
            rules.append(rule)
        self.known_keys.setdefault(key, []).extend(rules)
        return rules


def _all_cases(folder: FolderRule, included: bool = True) -> list[CaseRule]:
    """Every case of a folder and its subfolders, with what they include (BAPCtools' walk)."""
    return [*(folder.included.values() if included else ()), *folder.cases,
            *(case for sub in folder.folders for case in _all_cases(sub, included))]


# -- making one test case -----------------------------------------------------------------------

def digest_files(pairs: list[tuple[str, Path]], header: bytes = b"") -> str:
    """A digest of `header` and each (name, file)'s name and bytes, in the order of the names."""
    digest = hashlib.sha256(header)
    for name, path in sorted(pairs):
        digest.update(os.fsencode(name) + b"\0" + file_sha256(path).digest())
    return digest.hexdigest()


@dataclass(frozen=True)
class _Tool:
    """A generator or the solution: the program and the digest of its sources."""

    program: Program
    digest: str


@dataclass
class _Maker:
    """Runs the rules of one package, each case through the content cache."""

    root: Path
    build_dir: Path
    parser: _Parser
    constants: dict[str, str]
    type: ProblemType
    tools: dict[str, _Tool | str] = field(default_factory=dict)  # word -> tool, or why none
    builds: dict[str, Launch | str] = field(default_factory=dict)
    default_solution: str | None | Literal[False] = False  # False: not looked for yet
    # Cases are made on several threads (`_make_tree`); finding and building a program
    # and looking for the default solution are done by one thread at a time.
    _programs_lock: threading.RLock = field(default_factory=threading.RLock)

    # programs

    def _generator_program(self, word: str) -> Program | str:
        """The generator `word` names (its sources with the constants filled in), or why none."""
        generators = self.root / "generators"
        if word in self.parser.generators:
            files = [generators / dep for dep in self.parser.generators[word]]
            outside = [dep for dep, f in zip(self.parser.generators[word], files)
                       if not _inside(f.resolve(), generators.resolve())]
            if outside:  # a file of its list must not be read from elsewhere (`../`, `/etc`)
                return f"generator {word}: {outside[0]!r} is not in generators/"
            missing = [str(f.relative_to(self.root)) for f in files if not f.is_file()]
            if missing:
                return f"generator {word}: {', '.join(missing)} not found"
            program = Program(name=word, role="generator", path=files[0], files=tuple(files),
                              language=detect_language(files), entrypoint=files[0].name)
        else:
            path = (generators / word).resolve()
            if not _inside(path, generators.resolve()):
                return f"generator {word} is not in generators/"
            if not (path.is_file() or path.is_dir()):
                return f"generator {word!r} is neither a name under generators: nor a file " \
                       "or folder in generators/"
            program = source_program(word, path, skip_cache=True)
        return with_constants(program, self.constants, self.build_dir)

    def tool(self, word: str, solution: bool = False) -> _Tool | str:
        """The generator or solution `word` names with the digest of its sources, or why none."""
        with self._programs_lock:
            key = ("solution:" if solution else "generator:") + word
            if key not in self.tools:
                if not solution:
                    program = self._generator_program(word)
                elif (path := (self.root / word.lstrip("/")).resolve()).exists() \
                        and _inside(path, self.root):
                    program = source_program(word, path)
                else:
                    program = f"solution {word} is not in the package"
                if isinstance(program, str):
                    self.tools[key] = program
                else:
                    own = program.path
                    pairs = [(str(f.relative_to(own)) if own is not None and own.is_dir()
                              else f.name, f) for f in program.files]
                    self.tools[key] = _Tool(program,
                                            digest_files(pairs) + (program.language or ""))
            return self.tools[key]

    def argv(self, tool: _Tool) -> Launch | str:
        """How the tool runs (built once), or why it cannot. It runs from a folder named as
        the program, as BAPCtools runs `generators/<name>/`: a generator may read its path."""
        with self._programs_lock:
            key = f"{tool.digest}:{tool.program.name}"
            if key not in self.builds:
                build = build_program(tool.program, self.build_dir)
                if not build.ok:
                    first = _first_line(build.message) or str(build.verdict)
                    self.builds[key] = (f"{tool.program.name} did not build ({build.verdict}): "
                                        f"{first}")
                else:
                    run = launch(build, GENERATOR_MEMORY_MB)
                    if build.directory is not None:
                        named = (self.build_dir / "bapctools-programs"
                                 / hashlib.sha256(key.encode()).hexdigest()[:24]
                                 / Path(tool.program.name.strip("/")).name)
                        if not named.is_symlink():
                            named.parent.mkdir(parents=True, exist_ok=True)
                            # (made by another process meanwhile: FileExistsError)
                            with contextlib.suppress(FileExistsError):
                                named.symlink_to(build.directory, target_is_directory=True)
                        run = replace(run, argv=tuple(
                            part.replace(str(build.directory), str(named)) for part in run.argv))
                    self.builds[key] = run
            return self.builds[key]

    def solution_of(self, settings: Settings) -> str | None:
        with self._programs_lock:
            if not settings.default_solution:
                return settings.solution
            if self.default_solution is False:
                accepted = self.root / "submissions" / "accepted"
                found = sorted(p for p in accepted.iterdir() if not p.name.startswith(".")
                               and not p.name.endswith((".disabled", ".template", ".md", ".txt"))) \
                    if accepted.is_dir() else []
                self.default_solution = f"/{found[0].relative_to(self.root)}" if found else None
                if found:
                    self.parser.note(None, f"no solution given: answers come from "
                                     f"{self.default_solution} (BAPCtools picks an accepted one)")
            return self.default_solution or None

    # one case

    def make(self, rule: CaseRule) -> Path:
        """The cache folder holding the case's `testcase.<ext>` files; PackageError when the
        case cannot be made."""
        entry = rule.entry
        hashes: dict[str, object] = {"format": CACHE_FORMAT}
        generating: tuple[_Tool, str, int] | None = None  # the generator, its command, the seed
        if "generate" in entry:
            command = entry["generate"]
            if not isinstance(command, str) or not command.strip():
                raise self._error(rule, f"generate must be a non-empty string, got {command!r}")
            command = substitute_constants(command, self.constants)
            if "{count}" in command and "count" in entry:
                command = command.replace("{count}", str(rule.count_value))
            try:
                words = shlex.split(command)
            except ValueError as error:
                raise self._error(rule, f"cannot split {command!r} into words: {error}") from None
            if not words:
                raise self._error(rule, "generate must not be empty")
            if sum(len(SEED_REGEX.findall(w)) for w in words[1:]) > 1:
                raise self._error(rule, "{seed} may appear at most once")
            seed = bapctools_seed(rule.settings.random_salt, command, rule.count_value)
            generator = self.tool(words[0])
            if isinstance(generator, str):
                raise self._error(rule, generator)
            generating = (generator, command, seed)
            hashes.update(generator=generator.digest, command=SEED_REGEX.sub(str(seed), command),
                          retries=rule.settings.retries)
        copies: dict[str, Path] = {}  # ext -> the package's file
        if "copy" in entry:
            copy = entry["copy"]
            if not isinstance(copy, str) or copy.startswith("/"):
                raise self._error(rule, f"copy must be a path relative to generators/, got "
                                  f"{copy!r}")
            base = (self.root / "generators" / copy).resolve()
            if not _inside(base, self.root):
                raise self._error(rule, f"copy {copy!r} points outside the package")
            copies = {ext: path for ext in DATA_EXTENSIONS
                      if (path := Path(f"{base}{ext}")).is_file()}
            outside = [ext for ext, path in copies.items() if not _inside(path.resolve(),
                                                                         self.root)]
            if outside:
                raise self._error(rule, f"copy {copy!r}: generators/{copy}{outside[0]} links "
                                  "outside the package")
            if not copies:
                raise self._error(rule, f"copy {copy!r}: no generators/{copy}.<ext> file found")
            hashes["copy"] = {ext: hashlib.sha256(path.read_bytes()).hexdigest()
                              for ext, path in copies.items()}
        inline: dict[str, str] = {}
        links: dict[str, str] = {}
        for ext in TEXT_EXTENSIONS:
            value = entry.get(ext[1:])
            if value is None:
                continue
            if ext == ".yaml" and isinstance(value, dict):
                value = yaml.safe_dump(_plain(value), sort_keys=False)
            if isinstance(value, dict) and set(value) == {"link"} and ext[1:] in LINK_KEYS:
                links[ext] = "." + str(value["link"])
            elif isinstance(value, str):
                inline[ext] = value if not value or value.endswith("\n") else value + "\n"
            else:
                raise self._error(rule, f"{ext[1:]} must be a string, got {value!r}")
        hashes.update(inline=inline, links=links)
        if generating is None and not copies and ".in" not in inline and not (
                rule.path.startswith("sample/") and ".in.statement" in inline):
            raise self._error(rule, "the entry makes no input: give generate, copy or in")
        top = rule.path.split("/", 1)[0]
        makes_answer = top not in (*INVALID_FOLDERS, "valid_output", "testing_tool_test")
        solution: _Tool | str | None = None
        if makes_answer and not (self.type.interactive or self.type.multi_pass):
            if (word := self.solution_of(rule.settings)) is not None:
                solution = self.tool(word, solution=True)
                hashes["solution"] = solution if isinstance(solution, str) else solution.digest
        hashes["empty_answer"] = makes_answer and (self.type.interactive or self.type.multi_pass)
        key = hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest()
        final = self.build_dir / "bapctools-cases" / key[:32]
        if (final / ".complete").is_file():
            return final
        try:  # the case is made in `cwd`; `work` holds what the pipeline writes beside it
            with building(final, complete=False) as cwd, \
                    scratch_folder(prefix=".tmp-", dir=final.parent) as work:
                self._fill(rule, cwd, work, generating, copies, inline, links, makes_answer,
                           solution)
        except LeftBehind as error:  # the generator's folder is the only one it writes
            raise self._error(rule, error.left_by("the generator", cwd)) from None
        return final

    def _fill(self, rule: CaseRule, cwd: Path, work: Path,
              generating: tuple[_Tool, str, int] | None, copies: dict[str, Path],
              inline: dict[str, str], links: dict[str, str], makes_answer: bool,
              solution: _Tool | str | None) -> None:
        """Make the case's `testcase.<ext>` files and `.complete` in `cwd`, never following a
        link the generator left there (the pipeline is not contained as the generator is)."""
        infile = cwd / "testcase.in"
        if generating is not None:
            self._generate(rule, *generating, cwd, work)
            _refuse_left(cwd)
        for ext, source in copies.items():  # the package's own files (checked to lie inside it)
            copy_regular(source, infile.with_suffix(ext), follow_source=True)
        for ext, text in inline.items():
            write_regular(infile.with_suffix(ext), text.encode("utf-8"))
        for ext, target in links.items():
            source = infile.with_suffix(target)
            if is_regular(source):
                copy_regular(source, infile.with_suffix(ext))
        if not is_regular(infile) and not is_regular(infile.with_suffix(".in.statement")):
            raise self._error(rule, "no testcase.in was made")
        answer = infile.with_suffix(".ans")
        if makes_answer and is_regular(infile) and kind_of(answer) is None:
            if self.type.interactive or self.type.multi_pass:
                write_regular(answer, b"")
            elif solution is None:
                raise self._error(rule, "no .ans was made and no solution is given to "
                                  "make one")
            elif isinstance(solution, str):
                raise self._error(rule, solution)
            else:
                self._solve(rule, solution, cwd, work)
        write_regular(cwd / ".complete", b"\n")

    def _error(self, rule: CaseRule, message: str) -> PackageError:
        return PackageError(YAML_FILE, "generator-failed", f"{rule.path}: {message}",
                            line=rule.line, case=case_of(rule.path))

    def _generate(self, rule: CaseRule, generator: _Tool, command: str, seed: int, cwd: Path,
                  work: Path) -> None:
        run = self.argv(generator)
        if isinstance(run, str):
            raise self._error(rule, run)
        words = shlex.split(command)
        stdout = work / "stdout"
        failure = ""
        for retry in range(rule.settings.retries):
            value = str((seed + retry) % 2**31)
            args = [SEED_REGEX.sub(value, NAME_REGEX.sub("testcase", w)) for w in words[1:]]
            shutil.rmtree(cwd)  # what an earlier try left (never through a link)
            cwd.mkdir()
            # The generator writes testcase.in (.ans, .yaml, ...) into its folder: that folder
            # is kept (copied back here when it ends), within the cap on all it writes.
            done = run_limited([*run.argv, *args], cwd=cwd, stdout=stdout,
                               time_s=GENERATOR_TIME_S, memory_mb=run.memory_mb,
                               file_mb=GENERATOR_FILE_MB,
                               kept=(cwd,))
            if done.exit_code == 0 and not done.timed_out and not done.error:
                break
            failure = f"`{command}` failed: {_failure(done, 'the generator')}"
            if done.timed_out:  # not tried again, and what it wrote is no case
                raise self._error(rule, failure)
        else:
            raise self._error(rule, failure)
        infile = cwd / "testcase.in"
        if stdout.stat().st_size and kind_of(infile) is None:
            os.replace(stdout, infile)
        elif kind_of(infile) is None:
            raise self._error(rule, f"`{command}` wrote no testcase.in and nothing on its "
                              "standard output")

    def _solve(self, rule: CaseRule, solution: _Tool, cwd: Path, work: Path) -> None:
        run = self.argv(solution)
        if isinstance(run, str):
            raise self._error(rule, f"solution {run}")
        answer = work / "testcase.ans"  # written where no program writes, then moved in
        done = run_limited(list(run.argv), cwd=work / "solve", stdin=cwd / "testcase.in",
                           stdout=answer, time_s=GENERATOR_TIME_S, memory_mb=run.memory_mb,
                           file_mb=GENERATOR_FILE_MB)
        if done.exit_code != 0 or done.timed_out:
            answer.unlink(missing_ok=True)
            raise self._error(rule, f"solution {solution.program.name} failed: "
                              f"{_failure(done, 'it')}")
        os.replace(answer, cwd / "testcase.ans")  # (a rename never follows a link there)


def _inside(path: Path, folder: Path) -> bool:
    return str(path).startswith(str(folder) + os.sep)


def source_program(name: str, path: Path, skip_cache: bool = False) -> Program:
    """The program of a file, or of a folder's files (`skip_cache`: none under `__pycache__`)."""
    files = (path,) if path.is_file() else tuple(sorted(
        p for p in path.rglob("*") if p.is_file()
        and not (skip_cache and "__pycache__" in p.parts)))
    return Program(name=name, role="generator", path=path, files=files,
                   language=detect_language(list(files)))


def _refuse_left(cwd: Path) -> None:
    """LeftBehind for the first file the pipeline reads or writes in the generator's folder
    that is not a regular file (a link is never followed)."""
    for name in (*(f"testcase{ext}" for ext in DATA_EXTENSIONS), ".complete"):
        kind = kind_of(cwd / name)
        if kind not in (None, "a regular file"):
            raise LeftBehind(cwd / name, kind, WRITTEN if name == ".complete" else READ)


def _failure(done: ProcessResult, who: str) -> str:
    first = _first_line(done.stderr)
    return describe_failure(done, who) + (f": {first}" if first else "")


def _first_line(text: str) -> str:
    """The first line of a program's complaint that says something (a traceback's last)."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return ""
    return (lines[-1] if lines[0].startswith("Traceback") else lines[0])[:200]


# -- the whole tree -----------------------------------------------------------------------------

def tree_digest(root: Path, header: bytes = b"",
                skip: Callable[[Path], bool] = lambda relative: False) -> str:
    """A digest of the names and bytes of the files under `root` (those `skip` names left out)."""
    return digest_files([(str(relative), path) for path in root.rglob("*")
                         if path.is_file() and not skip(relative := path.relative_to(root))],
                        header)


def generated_data(root: Path, build_dir: Path | None, problem_config: dict,
                   problem_type: ProblemType) -> GeneratedData | None:
    """The package's data tree made from its generators.yaml (cached; see the module), each
    judged case that could not be made taken from the committed `data/` when that holds its
    `.in` (with a note; made once, beside the generated tree). None: no generators.yaml."""
    root = Path(root).resolve()
    if not (root / YAML_FILE).is_file():
        return None
    build_dir = Path(build_dir or default_sources_dir())
    digest = tree_digest(root, f"format {CACHE_FORMAT} {TREE_FORMAT}\n".encode(), lambda rel:
                         rel.parts[0] == "data" or any(p.startswith(".") for p in rel.parts))
    made = build_dir / "bapctools-data" / f"{root.name}-{digest[:24]}"
    if not (made / ".complete").is_file():
        with building(made) as work:
            _make_tree(root, build_dir, problem_config, problem_type, work)
    report = json.loads((made / "report.json").read_text(encoding="utf-8"))
    rejects = [PackageError(file, rule, message, line=line, case=case)
               for file, rule, message, line, case in report["rejects"]]
    committed = {e.case: files for e in rejects
                 if e.case and (files := _committed_files(root, e.case))}
    if not committed:
        return GeneratedData(made / "data", tuple(rejects), tuple(report["notes"]))
    digest = digest_files([(f"{case}{ext}", path) for case, files in committed.items()
                           for ext, path in files], str(made / "data").encode())
    final = made.with_name(f"{made.name}-committed-{digest[:16]}")
    if not (final / ".complete").is_file():
        with building(final) as work:
            shutil.copytree(made / "data", work / "data", copy_function=_link_or_copy)
            for case, files in committed.items():
                for ext, path in files:
                    target = work / "data" / f"{case}{ext}"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    copy_regular(path, target, follow_source=True)  # the package's own file
    notes = [f"{YAML_FILE}{f':{e.line}' if e.line else ''}: {e.message}; the committed "
             f"data/{e.case}.in is judged instead" for e in rejects if e.case in committed]
    return GeneratedData(final / "data", tuple(e for e in rejects if e.case not in committed),
                         (*report["notes"], *notes))


def _make_tree(root: Path, build_dir: Path, problem_config: dict, problem_type: ProblemType,
               work: Path) -> None:
    """Make the data tree in `work/data`, with what could not be made in `work/report.json`."""
    document, _ = load_yaml(root / YAML_FILE, root, line_dicts=True)
    parser = _Parser(document)
    maker = _Maker(root, build_dir, parser, problem_constants(problem_config), problem_type)
    rejects = list(parser.errors)
    if problem_type.interactive or problem_type.multi_pass:
        parser.note(None, "sample .interaction files are not made (bt generate makes them by "
                    "running the solution against the output validator)")
    data = work / "data"
    data.mkdir()
    made_bytes, placed_bytes = [0], [0]   # `MAX_GENERATED_BYTES` of each
    budget = threading.Lock()

    def over_bytes(rule: CaseRule, total: list[int], what: str,
                   placement: str) -> PackageError | None:
        if total[0] <= MAX_GENERATED_BYTES:
            return None
        return PackageError(YAML_FILE, "too-large", f"{placement}: not {what}: the test "
                            f"cases {what} before it hold {total[0]:,} bytes, more than "
                            f"the {MAX_GENERATED_BYTES:,} one {YAML_FILE} may make",
                            line=rule.line, case=case_of(placement))

    def place(rule: CaseRule, folder: str) -> None:
        name = rule.path.rsplit("/", 1)[-1]
        placement = f"{folder}/{name}"
        source = outcomes[id(rule)]  # (an included case was made before: it comes first)
        if isinstance(source, PackageError):  # not made: an include is not placed either
            rejects.append(source if placement == rule.path else PackageError(
                YAML_FILE, source.rule, f"{placement}: included from {source.message}",
                line=source.line, case=case_of(placement)))
            return
        if (over := over_bytes(rule, placed_bytes, "placed", placement)) is not None:
            rejects.append(over)
            return
        for ext in DATA_EXTENSIONS:
            cached = source / f"testcase{ext}"
            if kind_of(cached) is not None:
                target = data / folder / f"{name}{ext}"  # (`walk` made its folder)
                try:  # (a case cached before links were refused may hold one)
                    copy_regular(cached, target)
                except LeftBehind as error:
                    rejects.append(PackageError(
                        YAML_FILE, "generator-failed",
                        f"{placement}: {error.left_by('the generator')}", line=rule.line,
                        case=case_of(placement)))
                    continue
                placed_bytes[0] += target.stat().st_size

    def make(rule: CaseRule) -> Path | PackageError:
        with budget:
            over = over_bytes(rule, made_bytes, "made", rule.path)
        if over is not None:
            return over
        try:
            folder = maker.make(rule)
        except PackageError as error:
            return error
        with budget:
            made_bytes[0] += sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
        return folder

    # Every case is made first, a case per core at once (a generator and a solution are
    # programs that mostly wait to start); then the tree is put together in file order.
    rules = _all_cases(parser.root, included=False)
    outcomes = dict(zip(map(id, rules), on_cores(make, rules)))

    def walk(folder: FolderRule) -> None:
        if folder.path:
            (data / folder.path).mkdir(parents=True, exist_ok=True)
        if folder.group_yaml is not None:
            file_name, content = folder.group_yaml
            (data / folder.path / file_name).write_text(
                yaml.safe_dump(_plain(content), sort_keys=False), encoding="utf-8")
        for rule in folder.cases:
            place(rule, folder.path)
        for sub in folder.folders:
            walk(sub)
        for rule in folder.included.values():
            place(rule, folder.path)

    walk(parser.root)
    result = {"rejects": [[e.file, e.rule, e.message, e.line, e.case] for e in rejects],
              "notes": parser.notes}
    (work / "report.json").write_text(json.dumps(result), encoding="utf-8")


def _plain(value: object) -> object:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value

@contextlib.contextmanager
def building(final: Path, complete: bool = True) -> Iterator[Path]:
    """A temporary folder beside `final` to build a tree in, marked `.complete` (`complete`)
    and renamed to `final` when the block ends without an error (unless another was first)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
    try:
        yield work
        if complete:
            (work / ".complete").write_text("\n", encoding="utf-8")
        with contextlib.suppress(OSError):  # another process made the same tree first
            os.rename(work, final)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _committed_files(root: Path, case: str) -> list[tuple[str, Path]]:
    """(ext, file) of the committed `data/<case>.<ext>` files in the package, when `.in` is one."""
    base = root / "data" / case
    found = [(ext, path) for ext in DATA_EXTENSIONS
             if (path := base.with_name(base.name + ext)).is_file()
             and leads_outside(path, root) is None]
    return found if found and found[0][0] == ".in" else []


def _link_or_copy(source: str, target: str) -> None:
    """A hard link (cache files are never written again), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
