"""Guards over the source tree: the team's layout rules, checked on every run so they stay true.

Static checks only (the AST of generator/, the Jinja token stream of the default theme, the
AST of tests/); nothing is built or imported except the source kinds' registry. Each test lists every
offender as ``path:line`` so one run shows all that is left to fix.

1. Size: no function or method in generator/ over 60 lines (``def`` line to last line, the
   docstring included, decorators not), no module over 400 lines.
2. Routes own the output paths: outside generator/core/routes.py no Python string constant in
   generator/ and no string in a default-theme template (a quoted string inside ``{{ }}`` or
   ``{% %}``, or a literal ``href``/``src``/``action`` attribute value) is an *output path
   literal* (see ``is_output_path``).
3. The source registry owns the kinds: outside generator/config/sources.py no
   ``isinstance``/``issubclass``, ``type(x) is K`` or ``case K():`` names a source kind class.
4. Tests are self-contained: see ``test_tests_read_nothing_outside_the_repository`` and
   ``test_no_test_skips_on_a_missing_artifact``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import jinja2

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "generator"
TEMPLATES = REPO / "themes" / "default" / "templates"
TESTS = REPO / "tests"

MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400


@dataclass(frozen=True, slots=True)
class Offence:
    path: Path
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}: {self.what}"


def _report(offences: list[Offence], rule: str) -> str:
    lines = sorted({(str(o.path), o.line, str(o)) for o in offences})
    return f"{len(lines)} offence(s) of the rule: {rule}\n" + "\n".join(line for *_, line in lines)


def _python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text("utf-8"), filename=str(path))


# --- 1. function and module size -------------------------------------------------------------

def size_offences(path: Path) -> list[Offence]:
    """Every function/method over MAX_FUNCTION_LINES and the module if over MAX_MODULE_LINES."""
    source = path.read_text("utf-8")
    found = []
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES:
        found.append(Offence(path, 1, f"module is {lines} lines (max {MAX_MODULE_LINES})"))
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(Offence(path, node.lineno,
                                     f"function {node.name} is {length} lines (max {MAX_FUNCTION_LINES})"))
    return found


def test_no_long_function_or_module_in_generator() -> None:
    offences = [o for path in _python_files(GENERATOR) for o in size_offences(path)]
    assert not offences, _report(offences, f"functions <= {MAX_FUNCTION_LINES} lines, "
                                           f"modules <= {MAX_MODULE_LINES} lines")


# --- 2. output path literals -----------------------------------------------------------------

ROUTES = GENERATOR / "core" / "routes.py"
OUTPUT_DIRS = ("authors/", "subjects/", "pages/", "search/")
OUTPUT_FILES = ("feed.xml", "publications.bib", "publications.json", "data.json", "sitemap.xml",
                "robots.txt", "404.html")
# Template *names* are not output paths: "404.html" and "sitemap.xml" are also the names of
# templates, and naming a template is the renderer's business, not a route. So a constant is
# exempt only where it is plainly a template name: the first argument of one of these Jinja
# loader calls, or the value of a keyword argument named like a template.
TEMPLATE_CALLS = frozenset({"get_template", "select_template", "get_or_select_template"})
TEMPLATE_KEYWORDS = frozenset({"template", "template_name"})
# Jinja tags whose string operands are template names ({% extends "base.html" %} ...).
TEMPLATE_TAGS = frozenset({"extends", "include", "import", "from"})


def is_output_path(text: str) -> bool:
    """A string that spells where an output file goes (or its URL below the site root).

    It starts with an output folder (``authors/``, ``subjects/``, ``pages/``, ``search/``,
    the search index's ``search/index/`` too), or it is an output file name or ends in one after a ``/`` (``feed.xml``,
    ``authors/x/publications.bib``; not ``atom-feed.xml``). One leading ``/`` is ignored (the
    URL form of the same fact). Input paths (``content/authors``, ``content/pages/``) start
    with ``content/`` and are not output paths; a bare word (``authors``) is not one either.
    """
    text = text.removeprefix("/")
    return text.startswith(OUTPUT_DIRS) or any(text == f or text.endswith("/" + f) for f in OUTPUT_FILES)


def _docstrings(tree: ast.Module) -> set[int]:
    """id() of every docstring constant: prose about paths does not write one."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _field_names(tree: ast.Module) -> dict[str, list[str]]:
    """Class name -> its annotated fields in order (a dataclass's positional parameters)."""
    return {node.name: [s.target.id for s in node.body
                        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}


def _template_names(tree: ast.Module) -> set[int]:
    """id() of every constant used as a template name: the first argument of TEMPLATE_CALLS, a
    keyword in TEMPLATE_KEYWORDS, or the positional argument that fills such a field of a
    dataclass of the same module (``PagePlan("404.html", "404.html", ...)``: the second)."""
    fields = _field_names(tree)
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in TEMPLATE_CALLS and node.args:
            found.add(id(node.args[0]))
        found.update(id(k.value) for k in node.keywords if k.arg in TEMPLATE_KEYWORDS)
        found.update(id(arg) for arg, field in zip(node.args, fields.get(name, ())) if field in TEMPLATE_KEYWORDS)
    return found


def python_path_literals(path: Path) -> list[Offence]:
    """Output path literals among the string constants of one Python file (f-string parts too)."""
    tree = _parse(path)
    exempt = _docstrings(tree) | _template_names(tree)
    return [Offence(path, node.lineno, f"output path literal {node.value!r}")
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in exempt and is_output_path(node.value)]


_ATTRIBUTE = re.compile(r"""\b(?:href|src|action)\s*=\s*(["'])([^"']*)""")


def template_path_literals(path: Path) -> list[Offence]:
    """Output path literals in one template: strings in Jinja expressions and tags (except
    template names in extends/include/import/from) and literal href/src/action values."""
    source = path.read_text("utf-8")
    found = []
    tag = None
    for token in jinja2.Environment().lexer.tokenize(source, name=path.name):
        if token.type == "block_begin":
            tag = ""
        elif token.type == "name" and tag == "":
            tag = token.value
        elif token.type in ("block_end", "variable_begin"):
            tag = None
        if token.type == "string" and tag not in TEMPLATE_TAGS and is_output_path(token.value):
            found.append(Offence(path, token.lineno, f"output path literal {token.value!r}"))
        elif token.type == "data":
            for m in _ATTRIBUTE.finditer(token.value):
                if is_output_path(m.group(2)):
                    line = token.lineno + token.value.count("\n", 0, m.start())
                    found.append(Offence(path, line, f"output path literal in an attribute {m.group(2)!r}"))
    return found


def test_is_output_path_is_precise() -> None:
    for text in ("authors/", "authors/jane/", "/subjects/cs.LG/", "search/index/", "search/",
                 "feed.xml", "authors/x/publications.bib", "data.json", "/robots.txt", "404.html"):
        assert is_output_path(text), text
    for text in ("content/authors", "content/pages/", "authors", "atom-feed.xml", "partials/record.html",
                 "base.html", "https://example.org/feed", "my-data.json.bak", ""):
        assert not is_output_path(text), text


def test_the_path_guard_tells_paths_from_template_names_and_prose(tmp_path: Path) -> None:
    code = tmp_path / "m.py"
    code.write_text('''"""Writes authors/<slug>/ (a docstring: prose)."""
from dataclasses import dataclass
@dataclass
class Plan:
    rel_path: str
    template: str
Plan("404.html", "404.html")
env.get_template("sitemap.xml")
render(template="feed.xml")
x = f"authors/{slug}/" + "feed.xml"
y = "content/authors"
''', encoding="utf-8")
    found = [(o.line, o.what.split()[-1]) for o in python_path_literals(code)]
    assert sorted(found) == [(7, "'404.html'"), (10, "'authors/'"), (10, "'feed.xml'")], found
    page = tmp_path / "t.html"
    page.write_text('''{% extends "404.html" %}{% include 'partials/record.html' %}
<a href="/subjects/">x</a> <a href="{{ url('authors/' ~ slug) }}">y</a>
{% set p = 'search/' %}{# 'pages/' in a comment #}<img src="static/x.png">
''', encoding="utf-8")
    found = [(o.line, o.what.split()[-1]) for o in template_path_literals(page)]
    assert found == [(2, "'/subjects/'"), (2, "'authors/'"), (3, "'search/'")], found


def test_only_routes_write_output_paths() -> None:
    offences = [o for path in _python_files(GENERATOR) if path != ROUTES for o in python_path_literals(path)]
    offences += [o for path in sorted(TEMPLATES.rglob("*")) if path.is_file() for o in template_path_literals(path)]
    assert not offences, _report(offences, "outside generator/core/routes.py, generator/ and the default "
                                           "theme's templates ask the routes for output paths")


# --- 3. isinstance over source kinds ---------------------------------------------------------

REGISTRY = GENERATOR / "config" / "sources.py"
FALLBACK_KINDS = frozenset({"ArxivSource", "FeedSource", "RecordsSource"})


def source_kind_names() -> frozenset[str]:
    """The names of the source kind classes: the three of today, plus the config type and the
    class of every kind the registry holds (``registry.kinds()``)."""
    names = set(FALLBACK_KINDS)
    registry = importlib.import_module("generator.config.sources")
    for kind in registry.kinds():
        names.update({kind.config_type.__name__, type(kind).__name__})
    return frozenset(names)


def _class_names(node: ast.expr) -> list[str]:
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    return [p.attr if isinstance(p, ast.Attribute) else p.id for p in parts
            if isinstance(p, (ast.Attribute, ast.Name))]


def _is_type_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


def kind_switches(path: Path, kinds: frozenset[str]) -> list[Offence]:
    """isinstance/issubclass(x, K), type(x) is/== K and ``case K():`` over a source kind K."""
    found = []
    for node in ast.walk(_parse(path)):
        named: list[str] = []
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
            named = _class_names(node.args[1])
        elif isinstance(node, ast.Compare) and (_is_type_call(node.left)
                                                or any(_is_type_call(c) for c in node.comparators)):
            named = [n for c in (node.left, *node.comparators) for n in _class_names(c)]
        elif isinstance(node, ast.MatchClass):
            named = _class_names(node.cls)
        hits = sorted(set(named) & kinds)
        if hits:
            found.append(Offence(path, node.lineno, f"switch over source kind {', '.join(hits)}"))
    return found


def test_the_kind_guard_catches_every_form_of_switch(tmp_path: Path) -> None:
    code = tmp_path / "m.py"
    code.write_text('''isinstance(s, ArxivSource)
isinstance(s, (config.FeedSource, Other))
type(s) is RecordsSource
match s:
    case FeedSource(): pass
isinstance(s, Other)
''', encoding="utf-8")
    assert [o.line for o in kind_switches(code, FALLBACK_KINDS)] == [1, 2, 3, 5]


def test_no_switch_over_source_kinds_outside_the_registry() -> None:
    kinds = source_kind_names()
    offences = [o for path in _python_files(GENERATOR) if path != REGISTRY for o in kind_switches(path, kinds)]
    assert not offences, _report(offences, f"outside generator/config/sources.py no isinstance over "
                                           f"the source kinds {sorted(kinds)}")


# --- 4. tests are self-contained --------------------------------------------------------------

# Top folders of a Linux file system: a string starting with one of them is an absolute path.
_SYSTEM_ROOTS = ("work", "home", "root", "opt", "usr", "etc", "var", "srv", "mnt", "media", "tmp",
                 "proc", "sys", "dev", "bin", "sbin", "lib", "lib64", "run", "boot", "nix", "snap")
_ABSOLUTE = re.compile(rf"^/(?:{'|'.join(_SYSTEM_ROOTS)})(?:/|$)")
# Absolute paths a test may name, each for a reason that is not reading project data.
ALLOWED_ABSOLUTE = {
    "/usr/bin/chromium": "the browser executable (Debian's chromium), run, not read",
    "/tmp": "scratch space for the test's own files",
    "/proc/": "the kernel's view of processes the test started (state, open sockets)",
    "/dev/full": "a device that fails every write, to provoke ENOSPC",
    "/dev/null": "a device that discards output",
    "/bin": "a system folder that a refused `build --output /` must leave standing (checked, not read)",
}


def _allowed_absolute(text: str) -> bool:
    return any(text == a or text.startswith(a if a.endswith("/") else a + "/") for a in ALLOWED_ABSOLUTE)


def _file_depth(path: Path) -> int:
    """How many ``parents[...]`` steps lead from a file to the repository root."""
    return len(path.relative_to(REPO).parts) - 1


def outside_reads(path: Path) -> list[Offence]:
    """Absolute path literals (outside ALLOWED_ABSOLUTE), ``Path.home()``/``expanduser`` and
    ``parents[N]`` climbing above the repository root (unless it continues to ``shared``)."""
    tree = _parse(path)
    parent_of = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _ABSOLUTE.match(node.value) and not _allowed_absolute(node.value):
                found.append(Offence(path, node.lineno, f"absolute path {node.value!r}"))
        elif isinstance(node, ast.Attribute) and node.attr in ("home", "expanduser"):
            found.append(Offence(path, node.lineno, f"{node.attr}(): the user's home is outside the repository"))
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
              and node.value.attr == "parents" and isinstance(node.slice, ast.Constant)
              and isinstance(node.slice.value, int) and node.slice.value > _file_depth(path)):
            up = parent_of.get(id(node))
            to_shared = (isinstance(up, ast.BinOp) and isinstance(up.right, ast.Constant)
                         and str(up.right.value).startswith("shared"))
            if not to_shared:
                found.append(Offence(path, node.lineno, f"parents[{node.slice.value}] leaves the repository"))
    return found


def test_tests_read_nothing_outside_the_repository() -> None:
    """A test reads files inside the repository, plus ``../shared/`` next to it, nothing else.

    So it runs the same on a fresh clone in CI as on a developer's machine, and never
    depends on (or skips for) a file someone happens to have. Checked over tests/**/*.py:
    no string constant is an absolute path under a system folder (``/work``, ``/home``,
    ``/root``, ``/opt``, ``/usr/share`` ...), no ``Path.home()``/``expanduser``, no
    ``Path(__file__).parents[N]`` above the repository root except on the way to
    ``shared``. Allowed, each with its reason, in ALLOWED_ABSOLUTE: the browser executable
    /usr/bin/chromium, tmp paths, /proc/ (processes the test started), /dev/full and
    /dev/null. URL paths (``/authors/x/``) and attack payloads (``/../../etc/passwd``) do
    not start with a system folder and are not flagged.
    """
    offences = [o for path in _python_files(TESTS) for o in outside_reads(path)]
    assert not offences, _report(offences, "tests read only the repository and ../shared/")


# Every skip in tests/, by file and test (or fixture) name, with why it is not "an artifact is
# missing". A skip not listed here fails the test; so does a listed one that is gone.
ALLOWED_SKIPS = {
    ("tests/commands/test_build.py", "test_build_succeeds_in_a_namespace_with_no_network"):
        "a kernel capability (unprivileged user and network namespaces), not a build artifact; "
        "the same build without network is covered by the loopback guard in conftest.py",
}
_SKIP_NAMES = frozenset({"skip", "skipif", "importorskip", "skipTest", "skipUnless", "skipIf"})


def _enclosing_functions(tree: ast.Module) -> dict[int, str]:
    """id() of each node -> the name of the outermost function it is in, decorators included
    (so a skip mark belongs to the test it marks); absent at module level."""
    owner: dict[int, str] = {}
    for top in ast.walk(tree):
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(top) not in owner:
            for node in ast.walk(top):
                owner.setdefault(id(node), top.name)
    return owner


def skips(path: Path) -> list[tuple[str, int, str]]:
    """(test or fixture name, line, call) of every skip: pytest.skip/importorskip calls,
    skip/skipif marks, unittest's skip decorators and self.skipTest."""
    tree = _parse(path)
    owner = _enclosing_functions(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _SKIP_NAMES:
            found.append((owner.get(id(node), ""), node.lineno, ast.unparse(node)))
    return found


def test_no_test_skips_on_a_missing_artifact() -> None:
    """No test skips because a build artifact, a fixture file or a tool is missing: the test
    builds what it needs or fails saying how to get it. The few skips left are listed in
    ALLOWED_SKIPS with a reason that is not a missing artifact."""
    found = {(str(path.relative_to(REPO)), name): (line, call)
             for path in _python_files(TESTS) if path != Path(__file__).resolve()
             for name, line, call in skips(path)}
    unexplained = [f"{file}:{line}: {call} in {name or 'module level'}"
                   for (file, name), (line, call) in sorted(found.items()) if (file, name) not in ALLOWED_SKIPS]
    assert not unexplained, "skips without an explained reason in ALLOWED_SKIPS:\n" + "\n".join(unexplained)
    stale = sorted(set(ALLOWED_SKIPS) - set(found))
    assert not stale, f"ALLOWED_SKIPS lists skips that are gone: {stale}"


def test_every_package_of_generator_is_in_the_wheel() -> None:
    """pyproject.toml lists the packages a wheel holds: a new folder of generator/ left out of it
    installs an authorsite that cannot import it (a site's `make site` fails, not this repo's tests)."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "generator").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found - listed == set()
