"""Reading a package's YAML files with the line of every key, so errors can point at it.

`load_yaml(path, root)` returns the data and a `Lines` lookup from a key path to its line (with
`line_dicts`, each mapping a `LineDict` knowing its keys' lines); bad syntax or a non-mapping is
a `PackageError`. Before loading, a file is checked event by event so a few bytes cannot stand
for an unbounded document: `MAX_ALIAS_NODES` repeated by aliases in all ("billion laughs"), no
alias inside what it names, `MAX_DEPTH`, `MAX_YAML_BYTES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from pipeline.errors import PackageError

_Loader: type[yaml.CSafeLoader] | type[yaml.SafeLoader]
try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader

# Nodes that aliases may add to a document, counting each alias as the whole node it names.
MAX_ALIAS_NODES = 10_000
# How deep sequences and mappings may nest.
MAX_DEPTH = 100
MAX_YAML_BYTES = 16 << 20


@dataclass(frozen=True)
class Lines:
    """Line numbers of the keys of one YAML document (a key path's, else its nearest parent's)."""

    lines: dict[tuple[str, ...], int]

    def __call__(self, *path: str) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None


class LineDict(dict):
    """A mapping read by `load_yaml(..., line_dicts=True)`: its own line and each key's."""

    line: int = 0
    lines: dict


class _LineLoader(yaml.SafeLoader):
    def construct_line_dict(self, node: yaml.MappingNode) -> LineDict:
        self.flatten_mapping(node)
        mapping = LineDict()
        mapping.line = node.start_mark.line + 1
        mapping.lines = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (int, float)) and not isinstance(key, bool):
                key = str(key)
            mapping[key] = self.construct_object(value_node, deep=True)
            mapping.lines[key] = key_node.start_mark.line + 1
        return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                            _LineLoader.construct_line_dict)


def line_of(mapping: object, key: object) -> int | None:
    """The line of `key` in a `LineDict` (its own line when it lacks the key), else None."""
    if isinstance(mapping, LineDict):
        return mapping.lines.get(key, mapping.line)
    return None


def _walk(node, prefix: tuple[str, ...], out: dict[tuple[str, ...], int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = (*prefix, str(key.value))
            out[name] = key.start_mark.line + 1
            _walk(value, name, out)


def _check_size(text: str, name: str) -> None:
    """Refuse a document that aliases blow up, that contains itself, or that nests too deep."""
    finished: dict[str, int] = {}        # anchor -> expanded node count of its node
    open_anchors: list[str | None] = []  # anchors of the collections being read
    sizes: list[int] = []                # expanded node count so far of each of them
    added = 0

    def done(anchor: str | None, size: int) -> None:
        if anchor:
            finished[anchor] = size
        if sizes:
            sizes[-1] += size

    try:
        for event in yaml.parse(text, Loader=_Loader):
            line = event.start_mark.line + 1 if event.start_mark else None
            if isinstance(event, yaml.CollectionStartEvent):
                if len(sizes) >= MAX_DEPTH:
                    raise PackageError(name, "yaml-depth", f"sequences and mappings nest more "
                                       f"than {MAX_DEPTH} deep", line=line)
                if event.anchor:
                    finished.pop(event.anchor, None)
                open_anchors.append(event.anchor)
                sizes.append(1)
            elif isinstance(event, yaml.CollectionEndEvent):
                done(open_anchors.pop(), sizes.pop())
            elif isinstance(event, yaml.ScalarEvent):
                done(event.anchor, 1)
            elif isinstance(event, yaml.AliasEvent):
                size = finished.get(event.anchor or "")  # (an alias names its anchor)
                if size is None:
                    if event.anchor in open_anchors:
                        raise PackageError(name, "yaml-alias", f"alias *{event.anchor} names a "
                                           "node it is inside (the document would contain "
                                           "itself)", line=line)
                    continue  # an undefined alias: the loader says so
                added += size
                if added > MAX_ALIAS_NODES:
                    raise PackageError(name, "yaml-alias", f"aliases repeat more than "
                                       f"{MAX_ALIAS_NODES:,} nodes (*{event.anchor} alone "
                                       f"stands for {size:,}): refused as an alias bomb",
                                       line=line)
                done(None, size)
    except yaml.YAMLError:
        return


def relative(path: Path, root: Path) -> str:
    return str(path.relative_to(root) if path.is_relative_to(root) else path)


def load_yaml(path: Path, root: Path, *, mapping: bool = True,
              line_dicts: bool = False) -> tuple[Any, Lines]:
    """The YAML document in `path` (a dict when `mapping`) and the line of each key."""
    name = relative(path, root)
    size = path.stat().st_size
    if size > MAX_YAML_BYTES:
        raise PackageError(name, "too-large", f"{size:,} bytes, more than the "
                           f"{MAX_YAML_BYTES:,} a YAML file of a package may have")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise PackageError(name, "utf-8", f"the file is not UTF-8 text ({error.reason} at byte "
                           f"{error.start})") from None
    _check_size(text, name)
    try:
        node = yaml.compose(text, Loader=_Loader)
        data = yaml.load(text, Loader=_LineLoader if line_dicts else _Loader)
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
