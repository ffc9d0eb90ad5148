"""A rebuild in place equals a clean build, byte for byte, after any edit (issue 29, acceptance 1);
so does the preview's (generator.serve.live), which keeps its model in memory between edits.

The site (tests/fixtures/incremental-site) is small and has a site-level override of
``base.html`` that prints every author's affiliation from ``site.authors`` in the footer: a
template reading a global, which no job's plan names. Hypothesis draws sequences of edits of
every kind a user makes (each key of site.yaml, ``groups:`` reordered, author fields, typed-in
record titles, cached record titles, free pages, static files, the override template, the site's
message catalogue, authors added and removed); after each one the site is rebuilt in place (its
own ``output/`` and ``.authorsite/``, reuse on) and a copy of its inputs is built clean
(``reuse=False``, into a fresh folder): the two output trees must be the same, file for file and
byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path
from typing import Callable

import jinja2
import jinja2.nodes
import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from generator.render import reads
from generator.build import build
from generator.serve.live import LiveSite
from generator.core.model import SiteModel
from generator.core.paths import builtin_theme_dir
from tests.helpers import TESTS

SITE = TESTS / "fixtures" / "incremental-site"
INPUTS = ("site.yaml", "content", "templates", "static", "locale")
WORDS = ("alpha", "beta", "gamma", "delta", "omega", "sigma")


def _yaml_edit(path: Path, change: Callable[[dict], None]) -> None:
    data = yaml.safe_load(path.read_text("utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")


def _site(key: str, values: Callable[[random.Random], object]) -> Callable[[Path, random.Random], None]:
    def edit(root: Path, rnd: random.Random) -> None:
        _yaml_edit(root / "site.yaml", lambda d: d.__setitem__(key, values(rnd)))
    return edit


def _authors(root: Path) -> list[Path]:
    return sorted((root / "content" / "authors").glob("*.yaml"))


def _author(field: str, values: Callable[[random.Random], object]) -> Callable[[Path, random.Random], None]:
    def edit(root: Path, rnd: random.Random) -> None:
        _yaml_edit(rnd.choice(_authors(root)), lambda d: d.__setitem__(field, values(rnd)))
    return edit


def _word(rnd: random.Random) -> str:
    return f"{rnd.choice(WORDS)} {rnd.randrange(100)}"


def reorder_groups(root: Path, rnd: random.Random) -> None:
    def change(d: dict) -> None:
        groups = list(d.get("groups") or ["Group A", "Group B", "Example profiles"])
        rnd.shuffle(groups)
        d["groups"] = groups
    _yaml_edit(root / "site.yaml", change)


def typed_record_title(root: Path, rnd: random.Random) -> None:
    def change(d: dict) -> None:
        for source in d.get("sources", []):
            if "records" in source:
                rnd.choice(source["records"])["title"] = f"A typed-in title, {_word(rnd)}"
    _yaml_edit(rnd.choice(_authors(root)), change)


def cache_record_title(root: Path, rnd: random.Random) -> None:
    path = root / "content" / "cache" / "jane-doe" / "arxiv-b928bdfbd3.json"
    doc = json.loads(path.read_text("utf-8"))
    doc["records"][0]["title"] = f"Learned Indexes, {_word(rnd)}"
    path.write_text(json.dumps(doc, indent=1), "utf-8")


def edit_page(root: Path, rnd: random.Random) -> None:
    pages = root / "content" / "pages"
    name = rnd.choice(["about.md", "news.md"])
    (pages / name).write_text(f"---\ntitle: {name[:-3].title()} {_word(rnd)}\n---\nText: {_word(rnd)}.\n", "utf-8")


def edit_static(root: Path, rnd: random.Random) -> None:
    name = rnd.choice(["site.css", "extra.txt"])
    (root / "static" / name).write_text(f"/* {_word(rnd)} */\n", "utf-8")


def edit_override(root: Path, rnd: random.Random) -> None:
    path = root / "templates" / "base.html"
    text = path.read_text("utf-8")
    start = text.index("<p>Records link")
    end = text.index("</p>", start)
    path.write_text(text[:start] + f"<p>Records link to their sources ({_word(rnd)})." + text[end:], "utf-8")


def edit_catalogue(root: Path, rnd: random.Random) -> None:
    """The site's own catalogue for its language (generator.render.i18n): a string changed, one added."""
    language = yaml.safe_load((root / "site.yaml").read_text("utf-8")).get("language") or "en"
    po = root / "locale" / language / "messages.po"
    po.parent.mkdir(parents=True, exist_ok=True)
    po.write_text(f'msgid "Search"\nmsgstr "Look up {_word(rnd)}"\n\nmsgid "At least %(num)s record"\n'
                  f'msgid_plural "At least %(num)s records"\nmsgstr[0] "{_word(rnd)} %(num)s"\n'
                  f'msgstr[1] "{_word(rnd)} %(num)s"\n', "utf-8")


def jane(field: str, values: Callable[[random.Random], object]) -> Callable[[Path, random.Random], None]:
    """An edit of a field of jane-doe.yaml, the author whose arXiv query finds a record her DBLP
    record confirms (2401.99999): listing it under ``include`` matches it by that id instead."""
    def edit(root: Path, rnd: random.Random) -> None:
        _yaml_edit(root / "content" / "authors" / "jane-doe.yaml", lambda d: d.__setitem__(field, values(rnd)))
    return edit


def add_author(root: Path, rnd: random.Random) -> None:
    slug = rnd.choice(["carol-diaz", "dan-wu"])
    name = slug.replace("-", " ").title()
    doc = {"name": name, "affiliation": f"Lab {_word(rnd)}", "group": rnd.choice(["Group A", "Group B"]),
           "sources": [{"records": [{"title": f"A paper by {name}", "year": 2020 + rnd.randrange(5),
                                     "authors": [name, "Ann Lee"], "subjects": ["cs.DB"]}]}]}
    (root / "content" / "authors" / f"{slug}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")


def remove_author(root: Path, rnd: random.Random) -> None:
    authors = _authors(root)
    if len(authors) > 1:
        rnd.choice(authors).unlink()


EDITS: dict[str, Callable[[Path, random.Random], None]] = {
    "site title": _site("title", lambda r: f"Site {_word(r)}"),
    "site description": _site("description", lambda r: f"About {_word(r)}."),
    "site base_url": _site("base_url", lambda r: r.choice(["/", "https://example.org/lab/", "https://example.com/"])),
    "site language": _site("language", lambda r: r.choice(["en", "fr", "de"])),
    "site contact": _site("contact", lambda r: r.choice(["a@example.org", "b@example.org"])),
    "site cname": _site("cname", lambda r: r.choice(["a.example.org", "b.example.org"])),
    "site paginate": _site("paginate", lambda r: r.choice([5, 6, 50])),
    "site venues": _site("venues", lambda r: r.choice([True, False])),
    "site papers": _site("papers", lambda r: r.choice([True, False])),
    "site feed_size": _site("feed_size", lambda r: r.choice([1, 2, 5])),
    "site authors_shown": _site("authors_shown", lambda r: r.choice([1, 2, 3])),
    "site citations": _site("citations", lambda r: "openalex"),
    "site fetch": _site("fetch", lambda r: {"delay_seconds": r.choice([3, 4])}),
    "site extra": _site("extra", lambda r: {"motto": _word(r)}),
    "site accent": _site("accent", lambda r: r.choice(["#6b3fa0", "#1f5f8b"])),
    "site groups reordered": reorder_groups,
    "author affiliation": _author("affiliation", lambda r: f"University of {_word(r)}"),
    "author bio": _author("bio", lambda r: f"Works on {_word(r)}."),
    "author role": _author("role", lambda r: f"Fellow {_word(r)}"),
    "author group": _author("group", lambda r: r.choice(["Group A", "Group B", "Example profiles"])),
    "author links": _author("links", lambda r: {"homepage": f"https://example.org/{r.randrange(9)}"}),
    "author member years": _author("member", lambda r: r.choice([{"from": 2020}, {"from": 2019, "until": 2023},
                                                                {"until": 2024}])),
    "site publications": _site("publications", lambda r: r.choice([True, False])),
    "author include": jane("include", lambda r: r.choice([[], ["2401.99999"]])),
    "author pinned": jane("pinned", lambda r: r.choice([[], ["2401.99999"], ["10.5555/example.2024.1"]])),
    "author name_native": _author("name_native", lambda r: r.choice(["李娜", "김철수", "Ἀριστοτέλης"])),
    "site catalogue": edit_catalogue,
    "typed-in record title": typed_record_title,
    "cached record title": cache_record_title,
    "free page": edit_page,
    "static file": edit_static,
    "override template": edit_override,
    "author added": add_author,
    "author removed": remove_author,
}


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def copy_inputs(root: Path, dest: Path) -> Path:
    """A fresh copy of the site's inputs (``INPUTS``) at ``dest``, as a clean clone has them."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for name in INPUTS:
        src = root / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        elif src.is_file():
            shutil.copy2(src, dest / name)
    return dest


# What a template's compiled code can depend on, of a site's inputs: its templates, its catalogues and
# site.yaml (the language, the theme). Not content/ or static/, which reach the pages when they render.
TEMPLATE_INPUTS = ("site.yaml", "templates", "locale")


def files_digest(root: Path, names: tuple[str, ...]) -> str:
    """A digest of the files and folders ``names`` of ``root``: each file's path and bytes."""
    h = hashlib.sha256()
    for name in names:
        top = root / name
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file()) if top.is_dir() else []
        for path in files:
            data = path.read_bytes()
            h.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


def clean_build(root: Path, scratch: Path, compiled: dict[str, dict[str, bytes]] | None = None,
                **options: object) -> Path:
    """A clean build (``reuse=False``, one worker) of a fresh copy of ``root``'s inputs at
    ``scratch / "clean"``; returns the copy.

    ``compiled`` (the memory of one test's sequence of edits): the clean builds' compiled templates
    (the files of ``.authorsite/jinja``, the build's cache of them) by the digest of
    ``TEMPLATE_INPUTS`` and the options, each made by clean builds of byte-identical templates,
    catalogues and site.yaml, and only by them (never an in-place build's, whose cache is part of
    what is under test). A clean build of the same template inputs starts with them; one of new
    template inputs compiles every template afresh. Compiling was about 3/4 of a clean build of
    SITE (0.8 of 1.1 s)."""
    clean = copy_inputs(root, scratch / "clean")
    key = files_digest(clean, TEMPLATE_INPUTS) + repr(sorted(options.items()))
    cache = clean / ".authorsite" / "jinja"
    for rel, data in (compiled or {}).get(key, {}).items():
        (cache / rel).parent.mkdir(parents=True, exist_ok=True)
        (cache / rel).write_bytes(data)
    build(clean, workers=1, reuse=False, **options)  # type: ignore[arg-type]
    if compiled is not None:
        compiled[key] = _tree(cache)
    return clean


def differences(root: Path, scratch: Path, compiled: dict[str, dict[str, bytes]] | None = None) -> list[str]:
    """The output files where the in-place rebuild of ``root`` and a clean build of a copy of
    its inputs differ (empty: the same trees, byte for byte); ``compiled``: see ``clean_build``."""
    build(root, workers=1, search=False)
    clean = clean_build(root, scratch, compiled, search=False)
    mine, theirs = _tree(root / "output"), _tree(clean / "output")
    return sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))


def run_edits(tmp: Path, names: list[str], seed: int, site: Path = SITE) -> list[tuple[str, list[str]]]:
    """Apply the edits ``names`` one after another to a fresh copy of the site (``site``: a copy
    of SITE set otherwise), rebuilding after each; returns (edit, the files that differ from a
    clean build) for each edit that left any."""
    root = tmp / "site"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(site, root)
    rnd = random.Random(seed)
    build(root, workers=1, search=False)
    stale = []
    compiled: dict[str, dict[str, bytes]] = {}
    for name in names:
        EDITS[name](root, rnd)
        diff = differences(root, tmp, compiled)
        if diff:
            stale.append((name, diff))
    return stale


def test_every_kind_of_edit_once(tmp_path: Path) -> None:
    """Each kind of edit, in turn, on one site: none leaves a page different from a clean build."""
    assert run_edits(tmp_path / "once", list(EDITS), seed=29) == []


def test_every_kind_of_edit_once_without_templates_of_its_own(tmp_path: Path) -> None:
    """The same, on the site without its override of ``base.html``: a site with templates of its
    own keys every job on the whole model (jobs.common_digest), so there an edit re-renders every
    page and only here does a job that misses one of its reads show (data.json read each author's
    count, not how its records were matched: "author include" left it stale)."""
    site = shutil.copytree(SITE, tmp_path / "template")
    shutil.rmtree(site / "templates")
    names = [n for n in EDITS if n != "override template"]
    assert run_edits(tmp_path / "once", names, seed=43, site=site) == []


@settings(max_examples=2, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.sampled_from(sorted(EDITS)), min_size=20, max_size=22), seed=st.integers(0, 2**16))
def test_random_edit_sequences(tmp_path: Path, names: list[str], seed: int) -> None:
    """Random sequences of at least 20 edits: after each, the rebuild in place equals a clean build."""
    assert run_edits(tmp_path / "seq", names, seed) == []


URL = "http://127.0.0.1:8765/"


def _inputs(root: Path) -> dict[str, bytes]:
    return {k: v for name in INPUTS for k, v in ({name: (root / name).read_bytes()} if (root / name).is_file() else
            {f"{name}/{rel}": data for rel, data in _tree(root / name).items()}).items()}


@pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "no-reuse"])
def test_the_preview_after_every_kind_of_edit(tmp_path: Path, reuse: bool) -> None:
    """serve's model kept in memory (``LiveSite.update`` with the paths an edit changed, then
    ``catch_up``): after each kind of edit its folder equals a clean build's; and so does
    ``serve --no-reuse``'s, which keeps nothing (generator.incremental.memory)."""
    root = tmp_path / "site"
    shutil.copytree(SITE, root)
    live = LiveSite(root, URL, tmp_path / "preview", search=False, reuse=reuse)
    live.update(None)
    rnd = random.Random(29)
    stale = []
    for name in EDITS:
        before = _inputs(root)
        EDITS[name](root, rnd)
        after = _inputs(root)
        live.update(sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k)), later=True)
        while live.catch_up() is not None:
            pass
        live.index_pending()
        clean = tmp_path / "clean"
        shutil.rmtree(clean, ignore_errors=True)
        build(root, base_url=URL, out_dir=clean, search=False, workers=1, reuse=False)
        got, want = _tree(live.out_dir), _tree(clean)
        diff = sorted(k for k in got.keys() | want.keys() if got.get(k) != want.get(k))
        if diff:
            stale.append((name, diff))
    assert stale == []


def _global_reads(source: str) -> set[str]:
    """What a template reads of the globals ``site`` and ``authors_by_slug``: 'site.NAME' and
    'authors_by_slug[].NAME', from Jinja's syntax tree."""
    found = set()
    for node in jinja2.Environment().parse(source).find_all(jinja2.nodes.Getattr):
        target = node.node
        if isinstance(target, jinja2.nodes.Name) and target.name == "site":
            found.add(f"site.{node.attr}")
        elif isinstance(target, jinja2.nodes.Getitem) and isinstance(target.node, jinja2.nodes.Name) \
                and target.node.name == "authors_by_slug":
            found.add(f"authors_by_slug[].{node.attr}")
    return found


def test_the_built_in_theme_reads_of_the_globals_only_what_every_digest_covers() -> None:
    """No job of a site without overrides is keyed on the whole model: the built-in theme's
    templates may read of ``site`` only what ``reads.site_values`` digests into every job, and of
    ``authors_by_slug`` only names."""
    covered = {f"site.{name}" for name, _ in reads.site_values(_tiny_model()) if name != "authors"}
    covered |= {"authors_by_slug[].name", "authors_by_slug[].slug", "authors_by_slug[].name_native",
                "authors_by_slug[].name_native_lang"}
    top = builtin_theme_dir() / "templates"
    found = {p.relative_to(top).as_posix(): _global_reads(p.read_text("utf-8")) - covered
             for p in sorted(top.rglob("*")) if p.is_file()}
    assert {k: v for k, v in found.items() if v} == {}


def _tiny_model() -> SiteModel:
    return SiteModel(title="t", description="", base_url="/", language="en", authors=(), subjects=(), pages=(),
                     record_authors={}, paginate=50, cname=None)
