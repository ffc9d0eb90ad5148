"""generator.render.pages with the record partials as the only markup: hostile records come out well
formed and escaped, a site's overridden partial is used and rendered once per record and
process, feeds hold the newest ``feed_size`` records, and no output path is written outside
generator.core.routes."""

from __future__ import annotations

import ast
import dataclasses
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import escape

from generator.core import routes
from generator.assemble.site import assemble
from generator.assemble.venue_badge import badge
from generator.store.cache import CacheEntry, cache_file, write_entry
from generator.config import load_site
from generator.core.latex import tex_to_text
from generator.core.model import Person, Record, SiteModel
from generator.render.pages import plan_tasks
from generator.store.reader import read_all
from generator.core.taxonomy import load_taxonomy
from generator.render.themes import make_environment
from helpers import scan_html

REPO = Path(__file__).resolve().parents[2]
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())


def _site(root: Path) -> SiteModel:
    config = load_site(root)
    return assemble(config, read_all(config), load_taxonomy())


def _render_all(root: Path, site: SiteModel) -> tuple[dict, dict[str, bytes]]:
    """Every file of the site made in this process; the template globals used."""
    env = make_environment(root, "default")
    out = {}
    for t in plan_tasks(env, site, load_taxonomy()):
        made = t.make()
        out[t.rel_path] = made if isinstance(made, bytes) else b"".join(made)
    return env.globals, out


DEMO_SITE = _site(REPO)


class _Balance(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


text = st.lists(st.one_of(
    st.sampled_from(["<script>", "&amp;", '"', "'", "$x^2$", "\\emph{a}", "--", "{{ x }}", "\u202e", "\n",
                     "$\\frac{a}{b}$", "**b**", "é", "\U0001f9ea", " ", ":", "</li>", "]]>"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=6)), max_size=6).map("".join)
maybe = st.one_of(st.none(), text.filter(bool))


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(title=text.filter(bool), abstract=st.one_of(text, st.just("x" * 1499), st.just("y" * 1500)),
       year=st.one_of(st.none(), st.integers(0, 2100)), source=text.filter(bool),
       arxiv=st.sampled_from([None, "2401.01234", "hep-th/9901001"]), version=st.one_of(st.none(), st.integers(0, 9)),
       authors=st.lists(text.filter(bool), max_size=3), published=st.sampled_from([None, "2024-01-02T00:00:00Z"]),
       subjects=st.lists(st.sampled_from(["cs.LG", "cs.CL", "math.AG", "zz.XX"]), max_size=3, unique=True),
       doi=st.sampled_from([None, "10.1000/x<y>", "10.1/abc"]), journal=maybe, comment=maybe,
       url=st.sampled_from([None, "https://example.org/a?b=1&c=<2>"]), linked=st.booleans())
def test_hostile_records_render_well_formed_and_escaped(title, abstract, year, source, arxiv, version, authors,
                                                        published, subjects, doi, journal, comment, url,
                                                        linked) -> None:
    site = DEMO_SITE
    r = Record(key=f"arxiv:{arxiv}" if arxiv else f"title:{title}", title=title, year=year, source=source,
               arxiv_id=arxiv, version=version, authors=tuple(Person(n, ()) for n in authors), abstract=abstract,
               published=published, primary_subject=subjects[0] if subjects else None, subjects=tuple(subjects),
               doi=doi, journal_ref=journal, comment=comment, url=url)
    if linked:   # listed by both profiled authors, one of whom is also a co-author
        site = dataclasses.replace(site, record_authors={**site.record_authors,
                                                         r.key: tuple(a.slug for a in site.authors)})
        r = dataclasses.replace(r, authors=(*r.authors, Person(site.authors[0].name, ())))
    env = make_environment(REPO, "default")
    plan_tasks(env, site, load_taxonomy())
    for name, extra in (("record_html", (site.authors[0].slug, linked, {})), ("record_brief", ())):
        html = str(env.globals[name](r, *extra))   # the full entry: on an author's page, pinned or not
        findings, _ = scan_html(html)
        assert findings == [], (name, findings)
        balance = _Balance()
        balance.feed(html)
        assert balance.errors == [] and balance.stack == [], (name, balance.errors, balance.stack)
        label = [b] if (b := badge(site.venue_names, r)) else []   # the venue and year, arXiv, a label (issue 45)
        for value in (*label, *authors, *([comment] if comment and name == "record_html" else [])):
            assert str(escape(value)) in html, (name, value)
    entry = ET.fromstring(f'<feed xmlns="http://www.w3.org/2005/Atom">{env.globals["feed_entry"](r)}</feed>')
    ns = {"a": "http://www.w3.org/2005/Atom"}
    assert entry.findtext("a:entry/a:title", namespaces=ns) == tex_to_text(title)
    assert [e.text for e in entry.findall("a:entry/a:author/a:name", ns)] == [p.name for p in r.authors]


SUBJECTS = ("cs.CL", "cs.LG", "cs.CV")


def _shared_site(tmp_path: Path, authors: int = 3, records: int = 8) -> Path:
    """Authors whose records carry several subjects; the second author also lists the first's."""
    root = tmp_path / "site"
    (root / "content/authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Shared\nbase_url: https://example.org/lab/\npaginate: 5\n")
    for i in range(authors):
        (root / f"content/authors/a{i}.yaml").write_text(
            f"name: Author{i} Person\nsources:\n  - arxiv: {{query: 'au:\"Author{i} Person\"'}}\n")
    config = load_site(root)
    made = []
    for i, a in enumerate(config.authors):
        recs = [Record(key=f"arxiv:2401.{i:02d}{j:03d}", title=f"Paper $x_{j}$ of {i}", year=2024,
                       arxiv_id=f"2401.{i:02d}{j:03d}", authors=(Person(a.name),), abstract=f"About {i} {j}.",
                       published=f"2024-01-{j + 1:02d}T00:00:00Z", primary_subject=SUBJECTS[j % 3],
                       subjects=(SUBJECTS[j % 3], SUBJECTS[(j + 1) % 3])) for j in range(records)]
        if i == 1:
            recs += made[0][:3]
        made.append(recs)
        path = cache_file(config.cache_path, a.slug, a.sources[0])
        write_entry(path, CacheEntry({"type": "arxiv", "query": a.sources[0].query}, "2026-01-01T00:00:00Z",
                                     tuple(recs)))
    return root


def test_overridden_partials_are_used_and_rendered_once_per_record(tmp_path: Path) -> None:
    root = _shared_site(tmp_path)
    (root / "templates/partials").mkdir(parents=True)
    (root / "templates/partials/record_brief.html").write_text('<li class="mine-brief">{{ r.title }}</li>\n')
    (root / "templates/partials/record.html").write_text('<li class="mine-full">{{ r.title }}</li>\n')
    site = _site(root)
    helpers, files = _render_all(root, site)
    author_pages = [files[routes.author(a.slug).path].decode() for a in site.authors]
    assert sum(p.count('class="mine-full"') for p in author_pages) == sum(len(a.records) for a in site.authors)
    assert all('class="record"' not in p for p in author_pages)
    subject_pages = [v.decode() for k, v in files.items() if k.startswith(routes.subjects().url) and k != "subjects/index.html"]
    assert sum(p.count('class="mine-brief"') for p in subject_pages) == sum(len(s.records) for s in site.subjects)
    distinct = {id(r) for s in site.subjects for r in s.records}
    assert len(distinct) < sum(len(s.records) for s in site.subjects)   # records are listed on several pages
    assert helpers["record_brief"].renders == len(distinct)
    shared = {r for r in site.authors[0].records if len(site.record_authors[r.key]) > 1}
    assert shared, "the second author lists some of the first's records"
    # a full entry shows on its authors' pages only, each author holding its own record object:
    # rendered once per author page, never kept
    # ... and once more on the lab's list (/publications/), each work once
    listed = files[routes.publications().path].decode().count('class="mine-full"')
    assert listed == len({r.key for a in site.authors for r in a.records})
    assert helpers["record_html"].renders == sum(len(a.records) for a in site.authors) + listed


def test_feeds_hold_the_newest_feed_size_records(tmp_path: Path) -> None:
    root = _shared_site(tmp_path)
    with (root / "site.yaml").open("a") as f:
        f.write("feed_size: 4\n")
    site = _site(root)
    assert site.feed_size == 4
    _, files = _render_all(root, site)
    ns = {"a": "http://www.w3.org/2005/Atom"}

    def ids(route: routes.Route) -> list[str]:
        return [e.findtext("a:id", namespaces=ns) for e in ET.fromstring(files[route.path]).findall("a:entry", ns)]

    for a in site.authors:
        assert ids(routes.author_feed(a.slug)) == [r.abs_url for r in a.records[:4]]
    for s in site.subjects:
        assert ids(routes.subject_feed(s.code)) == [r.abs_url for r in s.records[:4]]
    newest = sorted({r for a in site.authors for r in a.records}, key=lambda r: r.published or "", reverse=True)
    assert len(ids(routes.site_feed())) == 4
    assert set(ids(routes.site_feed())) <= {r.abs_url for r in newest}


OUTPUT_LITERALS = re.compile(r"^(authors|subjects|pages|search)/|(^|/)(feed\.xml|publications\.(bib|json)"
                             r"|data\.json|sitemap\.xml)$")
TEMPLATES = REPO / "themes/default/templates"
THEME_FILES = {p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*") if p.is_file()}


def _python_strings(path: Path) -> list[tuple[int, str]]:
    """String constants of a module, docstrings and template names (theme files) left out."""
    tree = ast.parse(path.read_text("utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs and n.value not in THEME_FILES]


def test_no_output_path_outside_routes() -> None:
    """Python string constants (an f-string's parts too) and template text: output paths only in routes."""
    found = []
    for path in sorted((REPO / "generator").rglob("*.py")):
        if path.name != "routes.py":
            found += [f"{path.name}:{n}: {v!r}" for n, v in _python_strings(path) if OUTPUT_LITERALS.search(v)]
    quoted = re.compile(r"""['"]((authors|subjects|pages|search)/[^'"]*|[^'"]*(feed\.xml|publications\."""
                        r"""(bib|json)|data\.json|sitemap\.xml))['"]""")
    for path in sorted(TEMPLATES.rglob("*")):
        if path.is_file():
            found += [f"{path.name}:{n}: {line.strip()}" for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
                      if quoted.search(line)]
    assert found == [], "\n".join(found)
