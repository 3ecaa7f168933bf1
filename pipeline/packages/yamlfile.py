"""Reading a package's YAML files with the line of every key, so errors can point at it.

`load_yaml(path, root)` returns the data (a mapping for the files a package uses) and a `Lines`
lookup from a key path (`("limits", "memory")`) to its 1-based line. Syntax errors and a
top-level value that is not a mapping become `PackageError`s naming the file and the line.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from pipeline.packages.errors import PackageError

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader


class Lines:
    """Line numbers of the keys of one YAML document."""

    def __init__(self, lines: dict[tuple[str, ...], int]) -> None:
        self._lines = lines

    def __call__(self, *path: str) -> int | None:
        while path:
            if path in self._lines:
                return self._lines[path]
            path = path[:-1]
        return None


def _walk(node, prefix: tuple[str, ...], out: dict[tuple[str, ...], int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = (*prefix, str(key.value))
            out[name] = key.start_mark.line + 1
            _walk(value, name, out)


def relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def load_yaml(path: Path, root: Path, *, mapping: bool = True) -> tuple[object, Lines]:
    name = relative(path, root)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise PackageError(name, "utf-8", f"the file is not UTF-8 text ({error.reason} at byte "
                           f"{error.start})") from None
    try:
        data = yaml.load(text, Loader=_Loader)
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        raise PackageError(name, "yaml-syntax", f"not valid YAML: {problem}",
                           line=mark.line + 1 if mark is not None else None) from None
    lines: dict[tuple[str, ...], int] = {}
    _walk(node, (), lines)
    if data is None and mapping:
        data = {}
    if mapping and not isinstance(data, dict):
        raise PackageError(name, "yaml-mapping", f"the file must hold a mapping of keys, "
                           f"not a {type(data).__name__}", line=1)
    return data, Lines(lines)
