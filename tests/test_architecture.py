"""The import graph of ``src/``: layers import only downward, no cycles.

Why a test: the server grew as flat modules wired by reaching in, with import
circles dodged by ``Any`` and imports at the bottom of files (issue 27).  The
rules below are read from the source with :mod:`ast` (nothing is imported), so a
new upward import or a new cycle fails here with the edge that breaks the rule.

Imports under ``if TYPE_CHECKING:`` are for annotations only and are left out;
every other import counts, including one inside a function (a lazy import is
still a dependency, and a lazy import in a cycle is how cycles hide).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "svoi_kozyri"

LAYERS: dict[str, int] = {
    # the engine: pure, no I/O
    "core": 0,
    "_docs": 0,
    # text and pictures of positions; the compiled kernels that mirror the core
    "notation": 1,
    "svg": 1,
    "_native": 1,
    # games on paper, scenarios, the engine protocol's wire and client
    "records": 2,
    "scenarios": 2,
    "protocol": 2,
    "bots": 3,
    "arena": 4,
    # surfaces
    "envs": 5,
    "tui": 5,
    "server": 5,
    "engine_server": 5,
    "cli": 6,
}
"""The package's layers, lowest first: a module imports only from its own layer's
package or from lower layers (``svoi_kozyri/__init__.py`` is the facade over the
core and may import it)."""

SERVER_LAYERS = [
    "runtime",
    "wire",
    "storage",
    "table",
    "cluster",
    "edge",
    "platform",
    "features",
    "web",
]
"""The server's packages, lowest first (see ``docs/architecture.md``)."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in (SRC / PACKAGE).rglob("*.py")}


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:``."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for sub in node.body:
                    for inner in ast.walk(sub):
                        skip.add(id(inner))
    return skip


@cache
def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports at run time (read once per run;
    callers do not change it)."""
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_nodes(tree)
        is_pkg = path.name == "__init__.py"
        deps: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith(PACKAGE))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".")
                    if not is_pkg:
                        base = base[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith(PACKAGE):
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    deps.add(sub if sub in mods else target)
        graph[name] = {d for d in deps if d in mods and d != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _part(module: str, depth: int) -> str:
    parts = module.split(".")
    return parts[depth] if len(parts) > depth else ""


def test_the_graph_is_read_from_the_whole_package() -> None:
    graph = _graph()
    assert len(graph) > 100
    assert "svoi_kozyri.core.state" in graph["svoi_kozyri.core.game"]
    assert "svoi_kozyri.server.table.peer" in graph["svoi_kozyri.server.web.hub"]


def test_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_belongs_to_a_layer() -> None:
    unknown = {_part(m, 1) for m in _graph()} - set(LAYERS) - {""}
    assert unknown == set(), f"add {sorted(unknown)} to LAYERS"


def test_layers_import_only_downward() -> None:
    upward = []
    for module, deps in _graph().items():
        top = _part(module, 1)
        if not top:
            continue  # the package's facade
        for dep in deps:
            other = _part(dep, 1)
            if other and other != top and LAYERS[other] >= LAYERS[top]:
                upward.append(f"{module} -> {dep}")
    assert sorted(upward) == []


def test_the_core_imports_nothing_above_it() -> None:
    for module, deps in _graph().items():
        if _part(module, 1) == "core":
            assert all(_part(d, 1) == "core" for d in deps), module


def test_the_native_kernels_import_only_the_core() -> None:
    """``_native`` (the numba kernels) mirrors the core's rules and imports its
    constants, nothing else of the package: what the kernels compute is the core's
    rules and nothing above them."""
    for module, deps in _graph().items():
        if _part(module, 1) == "_native":
            assert all(_part(d, 1) in ("_native", "core") for d in deps), module


def test_only_native_facades_are_imported_from_outside() -> None:
    """Outside ``_native`` only its facades (``batch``, ``onehand``, ``encoder``,
    ``fixpoint``, ``layout``) are imported, never a kernel module (``_*``): the
    kernels' speed tricks (views without owners, unchecked entry points) stay
    behind typed functions."""
    reached = sorted(
        f"{module} -> {dep}"
        for module, deps in _graph().items()
        if _part(module, 1) != "_native"
        for dep in deps
        if _part(dep, 1) == "_native" and _part(dep, 2).startswith("_")
    )
    assert reached == []


def test_server_packages_import_only_downward() -> None:
    rank = {name: i for i, name in enumerate(SERVER_LAYERS)}
    found = set()
    upward = []
    for module, deps in _graph().items():
        if _part(module, 1) != "server" or not _part(module, 2):
            continue
        here = _part(module, 2)
        if here == "__main__":
            continue  # the entry point sits on top
        found.add(here)
        for dep in deps:
            if _part(dep, 1) != "server" or not _part(dep, 2):
                continue
            there = _part(dep, 2)
            if there != here and rank[there] > rank[here]:
                upward.append(f"{module} -> {dep}")
    assert found == set(SERVER_LAYERS), "a server package is missing from SERVER_LAYERS"
    assert sorted(upward) == []


def test_no_server_collaborator_is_typed_any() -> None:
    """The hub, the store, a table, a socket or the players are passed by their
    types or ports (``table/peer.py``, ``table/service.py``), never as ``Any``."""
    collaborators = {"hub", "store", "live", "conn", "players", "cluster", "peer", "engine"}
    found = defaultdict(list)
    for path in (SRC / PACKAGE / "server").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.arg) and node.arg in collaborators:
                ann = node.annotation
                if isinstance(ann, ast.Name) and ann.id == "Any":
                    found[path.name].append(node.arg)
    assert dict(found) == {}
