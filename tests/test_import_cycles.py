"""The import graph of generator/ and the plainness of model.py (issue 29, acceptance 3).

Static checks on the source (Python's ``ast``; nothing is imported):

1. No import cycle among generator's modules. Every import made at run time counts, at the
   top of a module or inside a function (a function's import is a dependency all the same);
   imports under ``if TYPE_CHECKING:`` do not. Importing ``a.b.c`` imports the package ``a.b``
   first, so that counts too (but a module's own parent packages, which run before it, unless
   it names them).
2. model.py defines no ``__getattr__`` or ``__reduce__`` and holds no module-level mutable
   registry (a dict, list or set bound at module level).

Both failed on the code of 82603f8. The first holds since cache.Incomplete moved to model.py and
fetch.SourceResult to sources/outcome.py (the two circles: cache -> sources.registry -> ... ->
sources.outcome -> cache, and fetch <-> refresh). The second is still marked
``xfail(strict=True)`` with what is left, so the run shows it and the marker must go the day it
is fixed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "generator"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, package: str) -> set[str]:
    """The modules of generator/ that ``tree`` imports at run time (not under TYPE_CHECKING)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module of generator/ -> the modules of generator/ it imports."""
    paths = sorted(p for p in GENERATOR.rglob("*.py") if "__pycache__" not in p.parts)
    modules = {_module_name(p): p for p in paths}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        named = _imports(ast.parse(path.read_text("utf-8")), package)
        # importing a.b.c runs a/__init__ and a/b/__init__ first (a module's own, before it)
        implied = {".".join(m.split(".")[:i]) for m in named for i in range(2, m.count(".") + 1)}
        implied = {m for m in implied if not name.startswith(m + ".")}
        graph[name] = {m for m in named | implied if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(out)


def test_the_cycle_finder_finds_a_cycle_and_only_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_among_generator_modules() -> None:
    found = cycles(import_graph())
    assert found == [], "\n".join(f"a cycle of {len(c)} modules: {', '.join(c)}" for c in found)


# The pipeline's stages in order: a module may import from its own stage and earlier ones,
# never from a later one. A module's stage is its folder's (the first package under generator/,
# FOLDERS); the modules at the top of generator/ are the commands (its __init__ is base). An
# accelerator (generator/incremental/, one package behind one switch) is staged with the step it
# serves (snapshot keeps each author with its plan's digests: plan), in INCREMENTAL. A new module is
# staged by the folder it is put in; a new folder or accelerator must be put in FOLDERS or INCREMENTAL.
ORDER = ["base", "load", "fetch", "assemble", "plan", "write", "deploy", "commands"]
FOLDERS = {
    "core": "base",
    "config": "load",
    "sources": "fetch",
    "fetch": "fetch",
    "assemble": "assemble",
    "render": "plan",
    "write": "write",
    "deploy": "deploy",
    "serve": "commands",
    "intake": "commands",
}
INCREMENTAL = {
    "base": "values",
    "load": "__init__ inputs parsed",
    "assemble": "hollow subject_order feed_kept memory",
    "plan": "canonical snapshot subject_jobs search_kept search_patch",
    "write": "prelink",
}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    if module == "generator":
        return "base"
    if parts[1] == "incremental":
        names = {m: s for s, ms in INCREMENTAL.items() for m in ms.split()}
        return names.get(parts[2] if len(parts) > 2 else "__init__")
    if len(parts) == 2 and not (GENERATOR / parts[1]).is_dir():
        return "commands"
    return FOLDERS.get(parts[1])


def _stage_of() -> dict[str, int]:
    stages = {m: _stage(m) for m in import_graph()}
    return {m: ORDER.index(s) for m, s in stages.items() if s is not None}


def test_every_module_has_a_stage() -> None:
    unstaged = sorted(set(import_graph()) - set(_stage_of()))
    assert unstaged == [], f"put each in a folder of FOLDERS, or an accelerator in INCREMENTAL ({', '.join(ORDER)}): {unstaged}"


def test_no_module_imports_from_a_later_stage() -> None:
    rank = _stage_of()
    later = [f"{m} ({ORDER[rank[m]]}) imports {d} ({ORDER[rank[d]]})"
             for m, deps in sorted(import_graph().items()) for d in sorted(deps) if rank.get(d, 0) > rank.get(m, 0)]
    assert later == [], "\n".join(later)


def _model_offences() -> list[str]:
    tree = ast.parse((GENERATOR / "core" / "model.py").read_text("utf-8"))
    found = [f"model.py:{n.lineno}: defines {n.name}" for n in ast.walk(tree)
             if isinstance(n, ast.FunctionDef) and n.name in ("__getattr__", "__reduce__")]
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id in ("dict", "list", "set", "defaultdict", "WeakValueDictionary")):
            found.append(f"model.py:{node.lineno}: a module-level mutable value")
    return found


def test_model_holds_plain_frozen_values_only() -> None:
    assert _model_offences() == []
