"""Plan the pages of a site and render each one. Pure given a Jinja environment.

``plan_pages`` turns the site model into a list of ``PagePlan`` (output path,
template, context); ``plan_tasks`` turns those and the exports into ``Task`` values
(generator.tasks), each making the bytes of one file: pages are rendered whole in
memory (a template error half-way must not leave a truncated page), data.json is
written in pieces. The brief and feed entries of a record are rendered once per
process and reused on every page that lists them (``_Fragment``).
"""

from __future__ import annotations

import functools
import math
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit

import jinja2
from markupsafe import Markup

from generator.assemble import sort_newest_first
from generator.errors import SiteError
from generator import fragments
from generator.exports import site_json, to_bibtex, to_csl_json
from generator.filters import normalize_name
from generator.latex import tex_to_html, tex_to_text
from generator.search import plan_shards
from generator.model import Author, Record, SiteModel, Subject
from generator.taxonomy import Taxonomy
from generator.tasks import Task


@dataclass(frozen=True, slots=True)
class PagePlan:
    rel_path: str            # posix path under the output root
    template: str
    context: dict[str, Any]
    url_path: str = ""       # the page's address relative to the base ('' for the home page)
    in_sitemap: bool = True
    group: str = "site"      # plans of one group share record fragments: render them in one process
    weight: int = 1          # rough cost (records listed), for balancing processes


def plan_pages(site: SiteModel, taxonomy: Taxonomy) -> list[PagePlan]:
    plans = [PagePlan("index.html", "index.html", {"page_kind": "home"}, "")]
    for a in site.authors:
        path = f"authors/{a.slug}/"
        group, weight = f"author:{a.slug}", len(a.records) + 1
        plans.append(PagePlan(path + "index.html", a.template, {"page_kind": "author", "author": a}, path,
                              group=group, weight=weight))
        plans.append(_feed(path, f"{a.name} · {site.title}",
                           f"Publications and source records attributed to {a.name}.", a.records, group))
    plans.append(PagePlan("subjects/index.html", "subjects.html",
                          {"page_kind": "subjects", "groups": _group_subjects(site.subjects, taxonomy)},
                          "subjects/"))
    for s in site.subjects:
        plans.extend(_subject_pages(s, site.paginate))
        plans.append(_feed(f"subjects/{s.code}/", f"{s.name} ({s.code}) · {site.title}",
                           f"Records in {s.name} by the profiled authors.", s.records[:FEED_SIZE],
                           f"subject:{s.code}"))
    newest = sort_newest_first({r.key: r for a in site.authors for r in a.records}.values())
    plans.append(_feed("", site.title, "New records of the profiled authors.", tuple(newest[:FEED_SIZE])))
    bundles = [f"{shard.subdir}/" for shard in plan_shards([a.slug for a in site.authors],
                                                          [p.name for p in site.pages])]
    plans.append(PagePlan("search/index.html", "search.html", {"page_kind": "search", "bundles": bundles},
                          "search/"))
    for p in site.pages:
        path = f"pages/{p.name}/"
        plans.append(PagePlan(path + "index.html", "page.html", {"page_kind": "page", "page": p}, path))
    plans.append(PagePlan("404.html", "404.html", {"page_kind": "404"}, "404.html", False))
    return plans


def _subject_pages(s: Subject, per_page: int) -> list[PagePlan]:
    count = max(1, math.ceil(len(s.records) / per_page))
    base = f"subjects/{s.code}/"
    out = []
    for n in range(1, count + 1):
        path = base if n == 1 else f"{base}page/{n}/"
        pager = {
            "number": n, "count": count,
            "prev": None if n == 1 else (base if n == 2 else f"{base}page/{n - 1}/"),
            "next": None if n == count else f"{base}page/{n + 1}/",
            "first_index": (n - 1) * per_page + 1,
        }
        records = s.records[(n - 1) * per_page: n * per_page]
        out.append(PagePlan(path + "index.html", "subject.html",
                            {"page_kind": "subject", "subject": s, "records": records, "pager": pager}, path,
                            group=f"subject:{s.code}", weight=len(records) + 1))
    return out


def _group_subjects(subjects: Iterable[Subject], taxonomy: Taxonomy) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for s in subjects:
        g = groups.setdefault(s.group, {"code": s.group, "name": s.group_name, "subjects": []})
        g["subjects"].append(s)
    return sorted(groups.values(), key=lambda g: (taxonomy.group_rank(g["code"]), g["name"]))


FEED_SIZE = 100


def _feed(path: str, title: str, subtitle: str, records: tuple[Record, ...], group: str = "site") -> PagePlan:
    """An Atom feed at ``path``feed.xml for the page at ``path``; updated = newest record, not the clock."""
    updated = max((_entry_updated(r) for r in records), default="1970-01-01T00:00:00Z")
    ctx = {"page_kind": "feed", "feed_title": title, "feed_subtitle": subtitle, "alternate": path,
           "records": records, "updated": updated}
    return PagePlan(path + "feed.xml", "feed.xml", ctx, path + "feed.xml", False, group, len(records) + 1)


def _entry_updated(r: Record) -> str:
    return r.updated or r.published or f"{r.year or 1970}-01-01T00:00:00Z"


def plan_tasks(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy) -> list[Task]:
    """Every file of the site as a task: pages, feeds, exports, sitemap, robots.txt."""
    helpers = _helpers(env, site, taxonomy)
    env.globals.update(helpers)
    plans = plan_pages(site, taxonomy)
    tasks = [Task(p.rel_path, functools.partial(_render_bytes, env, p), p.group, p.weight,
                  (*p.context.values(), *((site.authors,) if p.rel_path == "index.html" else ()))) for p in plans]
    for a in site.authors:
        group, weight = f"author:{a.slug}", len(a.records) // 2 + 1
        tasks.append(Task(f"authors/{a.slug}/publications.bib", functools.partial(to_bibtex, a), group, weight, (a,)))
        tasks.append(Task(f"authors/{a.slug}/publications.json", functools.partial(to_csl_json, a), group, weight,
                          (a,)))
    records = sum(len(a.records) for a in site.authors)
    # measured at 1,000 x 100: data.json costs about as much per record as two thirds of an author page
    tasks.append(Task("data.json", functools.partial(site_json, site), "data", records * 2 // 3 + 1,
                      (site.authors,)))
    sitemap = PagePlan("sitemap.xml", "sitemap.xml", {"urls": [p.url_path for p in plans if p.in_sitemap]})
    tasks.append(Task("sitemap.xml", functools.partial(_render_bytes, env, sitemap), reads=(sitemap.context["urls"],)))
    robots = f"User-agent: *\nAllow: /\nSitemap: {helpers['absurl']('sitemap.xml')}\n".encode("utf-8")
    tasks.append(Task("robots.txt", functools.partial(bytes, robots)))
    tasks.append(Task(".nojekyll", bytes))
    if site.cname:
        tasks.append(Task("CNAME", functools.partial(bytes, (site.cname + "\n").encode("ascii"))))
    return tasks


def _render_bytes(env: jinja2.Environment, plan: PagePlan) -> bytes:
    return _render(env, plan).encode("utf-8")


def _render(env: jinja2.Environment, plan: PagePlan) -> str:
    try:
        template = env.get_template(plan.template)
        return template.render(plan.context, page_path=plan.url_path)
    except jinja2.TemplateSyntaxError as exc:
        raise SiteError(f"template syntax error: {exc.message}", path=exc.filename or exc.name,
                        line=exc.lineno) from exc
    except jinja2.TemplateNotFound as exc:
        raise SiteError(f"template '{exc.name}' not found while rendering {plan.rel_path}",
                        hint="templates are looked up in templates/, themes/<theme>/templates/, "
                        "then the built-in theme") from exc
    except (jinja2.TemplateError, TypeError, ValueError, AttributeError, KeyError) as exc:
        where, line = _template_frame(exc)
        raise SiteError(f"while rendering {plan.rel_path} from {plan.template}: {exc}", path=where,
                        line=line) from exc


def _template_frame(exc: BaseException) -> tuple[str | None, int | None]:
    """The innermost template file and line in a render traceback (Jinja rewrites frames)."""
    found: tuple[str | None, int | None] = (None, None)
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.endswith((".html", ".xml", ".txt")):
            found = (frame.filename, frame.lineno)
    return found


def _helpers(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy,
             fast_fragments: bool = True) -> dict[str, Any]:
    base_path = urlsplit(site.base_url).path or "/"
    absolute = site.base_url if urlsplit(site.base_url).scheme else None
    subjects = {s.code: s for s in site.subjects}
    authors = site.author_by_slug

    def url(path: str = "") -> str:
        return base_path + path.lstrip("/")

    def absurl(path: str = "") -> str:
        return (absolute or base_path) + path.lstrip("/")

    def person_slug(name: str) -> str | None:
        return site.people.get(normalize_name(name))

    # Fragments of records listed on several pages are kept (subject pages list a record
    # once per subject, feeds list recent ones again); a record's full entry shows only on
    # its authors' pages, so keeping it would cost memory (250 MB a process at 1,000 x 100)
    # for few reuses.
    def fast(make: Callable[[Record], str]) -> Callable[[Record], str] | None:
        return make if fast_fragments else None

    record_html = _Fragment(env, "partials/record.html", fast(lambda r: fragments.record_html(
        r, tex_to_html, authors_html, subject_chips)), keep=False)
    record_brief = _Fragment(env, "partials/record_brief.html", fast(lambda r: fragments.record_brief(
        r, tex_to_html, authors_html, subject_chips, profile_links)))
    feed_entry = _Fragment(env, "partials/feed_entry.xml", fast(lambda r: fragments.feed_entry(
        r, tex_to_text, subject_name)))
    author_names = {a.slug: a.name for a in site.authors}

    def profile_links(record: Record) -> str:
        return fragments.profile_links(record, site.record_authors, author_names, url)

    def subject_name(code: str) -> str:
        s = subjects.get(code)
        if s is not None:
            return s.name
        cat = taxonomy.get(code)
        return cat.name if cat else code

    # Two pieces of every record's markup are built here rather than in the templates: a
    # Jinja call per author name and per subject chip was the largest cost of rendering
    # 100,000 records (profiled in the benchmark). Both are the same on every page.
    chip_cache: dict[tuple[str, bool], str] = {}

    def _chip(code: str, primary: bool) -> str:
        html = chip_cache.get((code, primary))
        if html is None:
            html = chip_cache[(code, primary)] = str(Markup(
                '<a class="chip{}" href="{}" title="{}">{}</a> ').format(
                    " primary" if primary else "", url(f"subjects/{code}/"), subject_name(code), code))
        return html

    def subject_chips(record: Record) -> Markup:
        """The record's subject chips, primary first, each linking to its subject page."""
        return Markup("".join(_chip(code, i == 0) for i, code in enumerate(record.subjects)))

    person_cache: dict[str, str] = {}

    def _person(name: str) -> str:
        html = person_cache.get(name)
        if html is None:
            slug = person_slug(name)
            html = person_cache[name] = str(
                Markup('<a href="{}" dir="auto">{}</a>').format(url(f"authors/{slug}/"), name) if slug
                else Markup('<span dir="auto">{}</span>').format(name))
        return html

    authors_cache: dict[int, Markup] = {}

    def authors_html(record: Record) -> Markup:
        """The byline; profiled co-authors link to their pages."""
        html = authors_cache.get(id(record))
        if html is None:
            html = authors_cache[id(record)] = Markup(", ".join(_person(p.name) for p in record.authors))
        return html

    def author_jsonld(a: Author) -> dict[str, Any]:
        """schema.org Person with sameAs links, and a ScholarlyArticle per record."""
        person: dict[str, Any] = {"@type": "Person", "@id": absurl(f"authors/{a.slug}/#person"), "name": a.name,
                                  "url": absurl(f"authors/{a.slug}/")}
        if a.affiliation:
            person["affiliation"] = {"@type": "Organization", "name": a.affiliation}
        same = [link.url for link in a.links if link.kind != "email"]
        if same:
            person["sameAs"] = same
        works = []
        for r in a.records:
            w: dict[str, Any] = {"@type": "ScholarlyArticle", "name": tex_to_text(r.title), "url": r.link}
            if r.published or r.year:
                w["datePublished"] = r.published[:10] if r.published else str(r.year)
            if r.authors:
                w["author"] = [{"@type": "Person", "name": p.name} for p in r.authors]
            else:
                w["author"] = {"@id": person["@id"]}
            if r.doi_url:
                w["sameAs"] = r.doi_url
            if r.arxiv_id:
                w["identifier"] = f"arXiv:{r.arxiv_id}"
            if r.subjects:
                w["about"] = [subject_name(c) for c in r.subjects]
            works.append(w)
        return {"@context": "https://schema.org", "@graph": [person, *works]}

    helpers: dict[str, Callable[..., Any] | Any] = {
        "site": site, "url": url, "absurl": absurl, "person_slug": person_slug, "subject_name": subject_name,
        "record_html": record_html, "record_brief": record_brief, "feed_entry": feed_entry,
        "records_html": record_html.many, "records_brief": record_brief.many, "feed_entries": feed_entry.many,
        "author_jsonld": author_jsonld, "subject_chips": subject_chips, "authors_html": authors_html,
        "authors_by_slug": authors, "tex": tex_to_html, "tex_text": tex_to_text,
        "nav_pages": [p for p in site.pages if p.in_nav], "by_year": by_year,
    }
    return helpers


class _Fragment:
    """One record partial as a template helper: ``f(record)`` for one record, ``f.many(records)``
    for a list in one template call (a Jinja call per record cost more than its HTML).

    The template is looked up on first use, inside a page's render, so its errors name that
    page; while it is the built-in one, ``fast`` (generator.fragments) makes the same bytes.
    With ``keep``, each record's fragment is rendered once per process and kept as UTF-8
    bytes: one non-ASCII character (the theme's arrow) makes a Python string take two
    bytes per character."""

    def __init__(self, env: jinja2.Environment, name: str, fast: Callable[[Record], str] | None,
                 keep: bool = True) -> None:
        self._env, self._name, self._fast = env, name, fast
        self._render: Callable[[Record], str] | None = None
        self._kept: dict[int, bytes] | None = {} if keep else None

    def _renderer(self) -> Callable[[Record], str]:
        if self._render is None:
            env, name, fast = self._env, self._name, self._fast
            loader = env.loader
            assert loader is not None
            if fast is not None and fragments.source_digest(loader.get_source(env, name)[0]) \
                    == fragments.BUILTIN_DIGESTS[name]:
                self._render = fast
            else:
                template = env.get_template(name)
                self._render = lambda record: template.render(r=record)
        return self._render

    def _bytes(self, record: Record) -> bytes:
        kept = self._kept
        assert kept is not None
        html = kept.get(id(record))
        if html is None:
            html = kept[id(record)] = self._renderer()(record).encode("utf-8")
        return html

    def __call__(self, record: Record) -> Markup:
        if self._kept is None:
            return Markup(self._renderer()(record))
        return Markup(self._bytes(record).decode("utf-8"))

    def many(self, records: Iterable[Record]) -> Markup:
        if self._kept is None:
            render = self._renderer()
            return Markup("".join([render(r) for r in records]))
        return Markup(b"".join([self._bytes(r) for r in records]).decode("utf-8"))


def by_year(records: Iterable[Record]) -> list[tuple[int | None, list[Record]]]:
    """Consecutive records grouped by year, order kept (records come newest first)."""
    groups: list[tuple[int | None, list[Record]]] = []
    for r in records:
        if groups and groups[-1][0] == r.year:
            groups[-1][1].append(r)
        else:
            groups.append((r.year, [r]))
    return groups
