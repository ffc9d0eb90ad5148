"""A new source kind is one module plus one line of registration (issue 29, What to build 4).

The test does what a kind's author would: in a copy of the package it writes one module,
generator/config/kinds/bibjson.py (a JSON list of works at an address), and adds one line to
``config.kinds.REGISTERED``; nothing else of generator/ is edited, and the test checks that the copy
differs from the package by exactly that. Then the real ``python -m generator`` of the copy fetches a
site whose author uses the kind over real HTTP from 127.0.0.1, builds it, refuses its bad
config with the file, line, key and what to do, keeps the cache through a bad answer, and writes
the kind's keys into docs/configuration.md and the author JSON Schema.

A static test then holds the same for every registered kind: its keys are in the generated
docs and schema, and config/docs.py and config/json_schema.py name no kind.
"""

from __future__ import annotations

import ast
import difflib
import filecmp
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from fakearxiv import FakeArxiv, Reply, Responder, Script
from fetchkit import write_site

from generator.config.docs import generated_files
from generator.config.sources import kinds

from test_import_cycles import ORDER, _imports, _stage   # the stages, written once (tests/ is on the path)

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "generator"

# The kind's whole module, as its author writes it.
KIND_MODULE = '''\
"""The ``bibjson:`` source kind: a JSON list of works at an address, cached as ``bibjson-<sha1(url)>.json``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from generator.core import ids
from generator.config.kind import SourceKind, source_class
from generator.config.schema import HTTP_PATTERN, HTTP_URL, Key, Table
from generator.core.model import Person, Record, record_key

if TYPE_CHECKING:
    from generator.sources.registry import FetchContext

BIBJSON = Table("bibjson", (
    Key("url", "text", "the address of the JSON list of works", required=True, check=ids.safe_url,
        expect=HTTP_URL, pattern=HTTP_PATTERN),
    Key("label", "text", "the source name shown with its records", default="Lab list"),
    Key("since", "int", "keep only works of this year or later", default=1900, lo=1900, hi=2100),
), help="A JSON list of works ({works: [{title, year, doi, authors}]}) fetched by 'authorsite fetch'. "
        "A lone text is the address.", shorthand="url")

BibJsonSource = source_class("BibJsonSource", BIBJSON, __name__)


def parse(document: Any, label: str, since: int) -> tuple[Record, ...]:
    """The works of one answer; ValueError when it is not such a list (the fetch retries it)."""
    works = document.get("works") if isinstance(document, dict) else None
    if not isinstance(works, list):
        raise ValueError("no list of works")
    out = []
    for order, work in enumerate(works):
        title, year, doi = work.get("title"), work.get("year"), work.get("doi")
        if not isinstance(title, str) or not isinstance(year, int):
            raise ValueError(f"work {order} has no title or year")
        if year >= since:
            out.append(Record(key=record_key(None, doi, title, year), title=title, year=year, source=label,
                              doi=doi, order=order, authors=tuple(Person(n) for n in work.get("authors", ()))))
    return tuple(out)


def fetch(source: BibJsonSource, context: FetchContext, cached: Sequence[Record]) -> tuple[Record, ...]:
    return context.get_json(source.url, lambda document: parse(document, source.label, source.since))


class BibJsonKind(SourceKind):
    schema = BIBJSON
    config_type = BibJsonSource
    name = "JSON list"
    heading = "a JSON list of works"
    example = "{url: 'https://example.org/lab/works.json', label: Lab list}"
    fetcher = f"{__name__}:fetch"      # in this module: it needs nothing of the fetch stage's but the context

    def rule(self, values: dict[str, Any]) -> str | None:
        if values["label"] and values["label"].lower() == "arxiv":
            return "has the label 'arXiv', which names arXiv's own records: give another 'label'"
        return None


KIND = BibJsonKind()
'''

WORKS = {"works": [
    {"title": "Lab Notes on Query Engines", "year": 2024, "doi": "10.5555/lab.2024", "authors": ["Ada Lovelace"]},
    {"title": "An Old Memo", "year": 2001, "authors": ["Ada Lovelace"]},
    {"title": "Joins, Revisited", "year": 2025, "authors": ["Ada Lovelace", "Charles Babbage"]},
]}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of generator/ with the new kind: its module and one line in config.kinds.REGISTERED."""
    root = tmp_path_factory.mktemp("pkg")
    shutil.copytree(GENERATOR, root / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "themes").symlink_to(REPO / "themes")      # the built-in theme sits beside the package in a checkout
    (root / "generator/config/kinds/bibjson.py").write_text(KIND_MODULE, "utf-8")
    registered = root / "generator/config/kinds/__init__.py"
    text = registered.read_text("utf-8")
    assert text.count('    "openalex",\n') == 1
    registered.write_text(text.replace('    "openalex",\n', '    "openalex",\n    "bibjson",\n'), "utf-8")
    return root


def _differences(a: Path, b: Path, rel: str = "") -> list[str]:
    """Files only in b, and files of both that differ, relative to the package (no caches)."""
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    out = [f"only in the copy: {rel}{n}" for n in cmp.right_only] + [f"only in generator/: {rel}{n}" for n in cmp.left_only]
    out += [f"changed: {rel}{n}" for n in filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)[1]]
    for sub in cmp.common_dirs:
        out += _differences(a / sub, b / sub, f"{rel}{sub}/")
    return sorted(out)


def test_the_copy_differs_by_one_module_and_one_line(package: Path) -> None:
    assert _differences(GENERATOR, package / "generator") == [
        "changed: config/kinds/__init__.py", "only in the copy: config/kinds/bibjson.py"]
    before = (GENERATOR / "config/kinds/__init__.py").read_text("utf-8").splitlines()
    after = (package / "generator/config/kinds/__init__.py").read_text("utf-8").splitlines()
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed == ['+    "bibjson",']


def test_the_kind_module_imports_nothing_of_a_later_stage_than_load(package: Path) -> None:
    """Its stage is config/'s (test_import_cycles: the folder's), so it may import the load
    stage and earlier ones only: its fetch code is named, not imported."""
    tree = ast.parse(KIND_MODULE)
    named = {m for m in _imports(tree, "generator.config.kinds") if m.startswith("generator")}
    modules = {m for m in named if (REPO / (m.replace(".", "/") + ".py")).is_file()
               or (REPO / m.replace(".", "/") / "__init__.py").is_file()}
    later = sorted(m for m in modules if _stage(m) not in ORDER[:ORDER.index("load") + 1])
    assert modules and later == [], later


def _cli(package: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m generator`` of the copy (PYTHONPATH comes before the installed package)."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["PYTHONPATH"] = str(package)
    return subprocess.run([sys.executable, "-m", "generator", "-C", str(root), *args], env=env, cwd=root,
                          capture_output=True, text=True, timeout=120)


def _site(root: Path, source_yaml: str) -> Path:
    return write_site(root, {"ada": f"name: Ada Lovelace\nsources:\n  - {source_yaml}\n"})


def _serve(arxiv_server: Callable[[Responder], FakeArxiv], *replies: Reply) -> FakeArxiv:
    return arxiv_server(Script(*replies))


def _json(document: object) -> Reply:
    return Reply(json.dumps(document).encode(), content_type="application/json")


def test_a_site_with_the_new_kind_fetches_over_http_and_builds(package: Path, tmp_path: Path,
                                                             arxiv_server: Callable[[Responder], FakeArxiv]) -> None:
    server = _serve(arxiv_server, _json(WORKS))
    url = f"http://127.0.0.1:{server.port}/lab/works.json"
    root = _site(tmp_path / "site", f"bibjson: {{url: '{url}', since: 2020}}")

    fetched = _cli(package, root, "fetch")
    assert fetched.returncode == 0, fetched.stderr
    assert [hit.path for hit in server.hits] == ["/lab/works.json"]
    cache_file = root / "content/cache/ada" / ("bibjson-" + hashlib.sha1(url.encode()).hexdigest()[:10] + ".json")
    cached = json.loads(cache_file.read_text("utf-8"))
    assert cached["source"] == {"type": "bibjson", "url": url, "label": "Lab list", "since": 2020}
    assert sorted(r["title"] for r in cached["records"]) == ["Joins, Revisited", "Lab Notes on Query Engines"]
    assert f"JSON list {url}" in fetched.stderr + fetched.stdout      # the kind's label in the progress lines

    built = _cli(package, root, "build")
    assert built.returncode == 0, built.stderr
    page = (root / "output/authors/ada/index.html").read_text("utf-8")
    assert "Lab Notes on Query Engines" in page and "Joins, Revisited" in page and "An Old Memo" not in page
    assert "Lab list" in page


def test_a_bad_answer_leaves_the_cache_as_it_was(package: Path, tmp_path: Path,
                                                arxiv_server: Callable[[Responder], FakeArxiv]) -> None:
    server = _serve(arxiv_server, _json(WORKS), _json({"works": [{"title": "No year"}]}))
    root = _site(tmp_path / "site", f"bibjson: 'http://127.0.0.1:{server.port}/w.json'")   # the shorthand
    assert _cli(package, root, "fetch").returncode == 0
    (cache_file,) = (root / "content/cache/ada").iterdir()
    before = cache_file.read_bytes()
    again = _cli(package, root, "fetch")
    assert again.returncode == 3, again.stderr          # an upstream failure: the cache was kept
    assert "not the answer expected: work 0 has no title or year" in again.stderr
    assert cache_file.read_bytes() == before


@pytest.mark.parametrize("source_yaml, message", [
    ("bibjson: {url: 'ftp://example.org/w.json'}",
     "content/authors/ada.yaml:3: 'sources[0].bibjson.url' must be an http(s) URL, found"),
    ("bibjson: {url: 'https://example.org/w.json', lable: Lab}",
     "content/authors/ada.yaml:3: unknown key 'sources[0].bibjson.lable' (did you mean 'label'?); "
     "allowed keys: url, label, since"),
    ("bibjson: {label: Lab}", "content/authors/ada.yaml:3: missing required key 'sources[0].bibjson.url' (text)"),
    ("bibjson: {url: 'https://example.org/w.json', since: 1066}",
     "content/authors/ada.yaml:3: 'sources[0].bibjson.since' must be"),
    ("bibjson: {url: 'https://example.org/w.json', label: arXiv}",
     "content/authors/ada.yaml:3: 'sources[0].bibjson' has the label 'arXiv', which names arXiv's own records: "
     "give another 'label'"),
    ("bibjsn: {url: 'https://example.org/w.json'}",
     "content/authors/ada.yaml:3: unknown key 'sources[0].bibjsn' (did you mean 'bibjson'?); "
     "allowed keys: arxiv, feed, records, orcid, dblp, openalex, bibjson"),
])
def test_bad_config_of_the_new_kind_names_file_line_key_and_fix(package: Path, tmp_path: Path, source_yaml: str,
                                                                message: str) -> None:
    checked = _cli(package, _site(tmp_path / "site", source_yaml), "check")
    assert checked.returncode != 0
    assert message in checked.stderr, checked.stderr


def test_the_new_kind_is_in_the_generated_docs_and_schema(package: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(package)}
    subprocess.run([sys.executable, "-m", "generator.config.docs", str(tmp_path)], env=env, check=True,
                   capture_output=True, timeout=120, cwd=tmp_path)    # (python -m puts its folder first)
    docs = (tmp_path / "docs/configuration.md").read_text("utf-8")
    assert "### bibjson: a JSON list of works" in docs and "  - bibjson: {url: " in docs
    assert "| `since` | whole number |" in docs
    schema = json.loads((tmp_path / "docs/schema/author.schema.json").read_text("utf-8"))
    one_of = schema["properties"]["sources"]["items"]["oneOf"]
    (entry,) = [e for e in one_of if "bibjson" in e["properties"]]
    assert set(entry["properties"]["bibjson"]["anyOf"][1]["properties"]) == {"url", "label", "since"}


# ----------------------------------------------------------------------------- every registered kind

def test_every_registered_kind_is_in_the_docs_and_the_schema_with_no_code_of_its_own() -> None:
    files = generated_files()
    docs, schema = files["docs/configuration.md"], json.loads(files["docs/schema/author.schema.json"])
    one_of = schema["properties"]["sources"]["items"]["oneOf"]
    assert [next(iter(e["properties"])) for e in one_of] == [kind.key for kind in kinds()]
    for kind, entry in zip(kinds(), one_of):
        assert f"### {kind.key}: {kind.heading}" in docs and f"  - {kind.key}: {kind.example}" in docs
        value = entry["properties"][kind.key]
        table = value["items"] if kind.schema.many else value["anyOf"][1] if kind.schema.shorthand else value
        assert set(table["properties"]) == set(kind.schema.names), kind.key
        for key in kind.schema.keys:
            assert f"| `{key.name}` |" in docs and key.help in docs, (kind.key, key.name)
    for module in ("config/docs.py", "config/json_schema.py"):   # derived from the registry, never by kind
        tree = ast.parse((GENERATOR / module).read_text("utf-8"))
        named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        assert named.isdisjoint(kind.key for kind in kinds()), (module, named & {k.key for k in kinds()})


def test_every_registered_kind_names_fetch_code_that_exists() -> None:
    """What ``sources.registry`` imports at fetch time is there (a typo would only show on a fetch)."""
    for kind in kinds():
        for path in (kind.fetcher, kind.checker):
            if path is not None:
                module, _, name = path.partition(":")
                assert callable(getattr(importlib.import_module(module), name, None)), (kind.key, path)
