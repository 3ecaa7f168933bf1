"""The layer contract of `pipeline/`: raw files -> cases -> results -> reports, each layer
importing only itself and the layers below it, and no module importing itself back.

Imports are read from the source (`ast`), everywhere in a module: at the top, inside
functions and under `if TYPE_CHECKING:` alike, since an import inside a function is still a
dependency and one read only by type checkers still ties the two modules together. The
layers, top first, are `LAYERS`; a module belongs to the layer of its longest listed prefix.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "pipeline"

# Top first. A module may import modules of its own layer and of every layer below it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("commands", ("pipeline.cli", "pipeline.commands", "pipeline.entry", "pipeline.__main__",
                  "pipeline.native.__main__")),
    ("nightly", ("pipeline.nightly",)),
    ("stress", ("pipeline.stress",)),
    ("report", ("pipeline.report",)),
    ("run", ("pipeline.run",)),
    ("corpus", ("pipeline.corpus",)),
    # the one place problem sources are listed: the problem folders and registered packages
    ("registry", ("pipeline.problems",)),
    # the sources of problems: built-in problem folders (`pipeline.problems.<id>`, built with
    # `base.define_problem`) and judge packages
    ("problem sources", ("pipeline.problems.", "pipeline.packages")),
    # what a problem is: the model, its settings files, case identity and text edits
    ("problem model", ("pipeline.problems.model", "pipeline.problems.tokens",
                       "pipeline.problems.identity",
                       "pipeline.problems.edits", "pipeline.config")),
    ("programs", ("pipeline.programs",)),
    ("storage", ("pipeline.tables",)),
    ("kernels", ("pipeline.native", "pipeline.games")),
    ("foundations", ("pipeline.errors", "pipeline.fsutil", "pipeline.verdicts",
                     "pipeline.progress", "pipeline.untrusted", "pipeline")),
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The module `name` is, or is inside (`pipeline.x.y.Thing` -> `pipeline.x.y`)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> set[str]:
    """The modules of `pipeline` that `module` imports anywhere in its code."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            # `from package import submodule` imports the submodule; names of the package
            # itself import the package
            submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES]
            targets = submodules if len(submodules) == len(node.names) else [base, *submodules]
        else:
            continue
        for target in targets:
            owner = _owner(target) if target.startswith("pipeline") else None
            if owner is not None and owner != module:
                found.add(owner)
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def layer_of(module: str) -> int:
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = (module.startswith(prefix) if prefix.endswith(".")
                       else module == prefix or module.startswith(prefix + "."))
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    assert best is not None, f"{module} is in no layer of LAYERS"
    return best


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(GRAPH[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    return found


def test_the_contract_reads_the_real_imports():
    # a known edge of each kind: a top import, an import inside a function, a relative one
    assert "pipeline.run.runner" in GRAPH["pipeline.commands.running"]
    assert "pipeline.programs.contained" in GRAPH["pipeline.programs.external"]
    assert "pipeline.packages.problem" in GRAPH["pipeline.problems"]
    assert len(MODULES) > 100


def test_no_module_imports_itself_back():
    cycles = _cycles()
    assert not cycles, ("import cycles (imports inside functions and TYPE_CHECKING count):\n"
                        + "\n".join(" <-> ".join(c) for c in cycles))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_its_layer_and_those_below(module):
    own = layer_of(module)
    upward = sorted(f"{target} ({LAYERS[layer_of(target)][0]})"
                    for target in GRAPH[module] if layer_of(target) < own)
    assert not upward, (f"{module} ({LAYERS[own][0]}) imports a layer above it: "
                        + ", ".join(upward))


def test_storage_knows_no_problem_code():
    offenders = {m: sorted(t for t in GRAPH[m]
                           if t.startswith(("pipeline.problems", "pipeline.packages",
                                            "pipeline.config")))
                 for m in MODULES if m.startswith("pipeline.tables")}
    assert not {m: t for m, t in offenders.items() if t}


def test_built_in_problems_and_packages_do_not_know_each_other():
    built_in = [m for m in MODULES if m.startswith("pipeline.problems.")
                and layer_of(m) == layer_of("pipeline.problems.arc087e")]
    assert "pipeline.problems.arc087e.case" in built_in
    crossing = defaultdict(list)
    for module in built_in:
        crossing[module] += [t for t in GRAPH[module] if t.startswith("pipeline.packages")]
    for module in (m for m in MODULES if m.startswith("pipeline.packages")):
        crossing[module] += [t for t in GRAPH[module] if t in built_in
                             and t != "pipeline.problems.base"]
    assert not {m: t for m, t in crossing.items() if t}


def test_one_place_outside_the_packages_names_them():
    # imports that run, and also those only a type checker reads and the names in docstrings:
    # the rest of the pipeline knows a package's types only through the hooks' protocols
    naming = sorted(m for m in MODULES if not m.startswith("pipeline.packages")
                    and any(t.startswith("pipeline.packages") for t in GRAPH[m]))
    assert naming == ["pipeline.problems"], naming
    mentioning = sorted(m for m, path in MODULES.items() if not m.startswith("pipeline.packages")
                        and ("pipeline.packages" in path.read_text()
                             or "pipeline/packages" in path.read_text()))
    assert mentioning == ["pipeline.problems"], mentioning


def test_nothing_asks_what_kind_of_problem_it_holds():
    # a problem source answers through its hooks and its one optional capability
    # (`Problem.package_judge`); no code outside the package source tests for one
    asking = []
    for module, path in MODULES.items():
        if module.startswith("pipeline.packages") or module == "pipeline.problems":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "isinstance" and \
                    "PackageProblem" in ast.unparse(node.args[1]):
                asking.append(f"{module}:{node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr == "kind" and \
                    "problem" in ast.unparse(node.value).lower():
                asking.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    assert not asking
