"""Plan the pages of a site and render each one. Pure given a Jinja environment.

``plan_pages`` turns the site model into a list of ``PagePlan`` (output path,
template, context); ``render_site`` renders them to ``RenderedFile`` values in
memory (never streaming into a file: a template error half-way must not leave a
truncated page). A record's HTML is rendered once and reused on every page that
lists it (its authors' pages and its subjects' pages).
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit

import jinja2
from markupsafe import Markup

from generator.assemble import sort_newest_first
from generator.errors import SiteError
from generator.exports import site_json, to_bibtex, to_csl_json
from generator.filters import normalize_name
from generator.latex import tex_to_html, tex_to_text
from generator.model import Author, Record, RenderedFile, SiteModel, Subject
from generator.taxonomy import Taxonomy


@dataclass(frozen=True, slots=True)
class PagePlan:
    rel_path: str            # posix path under the output root
    template: str
    context: dict[str, Any]
    url_path: str = ""       # the page's address relative to the base ('' for the home page)
    in_sitemap: bool = True


def plan_pages(site: SiteModel, taxonomy: Taxonomy) -> list[PagePlan]:
    plans = [PagePlan("index.html", "index.html", {"page_kind": "home"}, "")]
    for a in site.authors:
        path = f"authors/{a.slug}/"
        plans.append(PagePlan(path + "index.html", a.template, {"page_kind": "author", "author": a}, path))
        plans.append(_feed(path, f"{a.name} · {site.title}",
                           f"Publications and source records attributed to {a.name}.", a.records))
    plans.append(PagePlan("subjects/index.html", "subjects.html",
                          {"page_kind": "subjects", "groups": _group_subjects(site.subjects, taxonomy)},
                          "subjects/"))
    for s in site.subjects:
        plans.extend(_subject_pages(s, site.paginate))
        plans.append(_feed(f"subjects/{s.code}/", f"{s.name} ({s.code}) · {site.title}",
                           f"Records in {s.name} by the profiled authors.", s.records[:FEED_SIZE]))
    newest = sort_newest_first({r.key: r for a in site.authors for r in a.records}.values())
    plans.append(_feed("", site.title, "New records of the profiled authors.", tuple(newest[:FEED_SIZE])))
    plans.append(PagePlan("search/index.html", "search.html", {"page_kind": "search"}, "search/"))
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
                            {"page_kind": "subject", "subject": s, "records": records, "pager": pager}, path))
    return out


def _group_subjects(subjects: Iterable[Subject], taxonomy: Taxonomy) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for s in subjects:
        g = groups.setdefault(s.group, {"code": s.group, "name": s.group_name, "subjects": []})
        g["subjects"].append(s)
    return sorted(groups.values(), key=lambda g: (taxonomy.group_rank(g["code"]), g["name"]))


FEED_SIZE = 100


def _feed(path: str, title: str, subtitle: str, records: tuple[Record, ...]) -> PagePlan:
    """An Atom feed at ``path``feed.xml for the page at ``path``; updated = newest record, not the clock."""
    updated = max((_entry_updated(r) for r in records), default="1970-01-01T00:00:00Z")
    ctx = {"page_kind": "feed", "feed_title": title, "feed_subtitle": subtitle, "alternate": path,
           "records": records, "updated": updated}
    return PagePlan(path + "feed.xml", "feed.xml", ctx, path + "feed.xml", False)


def _entry_updated(r: Record) -> str:
    return r.updated or r.published or f"{r.year or 1970}-01-01T00:00:00Z"


def render_site(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy) -> list[RenderedFile]:
    """Render every planned page, plus sitemap.xml and robots.txt."""
    helpers = _helpers(env, site, taxonomy)
    env.globals.update(helpers)
    plans = plan_pages(site, taxonomy)
    files = [RenderedFile(p.rel_path, _render(env, p).encode("utf-8")) for p in plans]
    for a in site.authors:
        files.append(RenderedFile(f"authors/{a.slug}/publications.bib", to_bibtex(a)))
        files.append(RenderedFile(f"authors/{a.slug}/publications.json", to_csl_json(a)))
    files.append(RenderedFile("data.json", site_json(site)))
    files.append(RenderedFile("sitemap.xml", _render(env, PagePlan(
        "sitemap.xml", "sitemap.xml", {"urls": [p.url_path for p in plans if p.in_sitemap]})).encode("utf-8")))
    files.append(RenderedFile("robots.txt", (
        f"User-agent: *\nAllow: /\nSitemap: {helpers['absurl']('sitemap.xml')}\n").encode("utf-8")))
    files.append(RenderedFile(".nojekyll", b""))
    if site.cname:
        files.append(RenderedFile("CNAME", (site.cname + "\n").encode("ascii")))
    return files


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


def _helpers(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy) -> dict[str, Any]:
    base_path = urlsplit(site.base_url).path or "/"
    absolute = site.base_url if urlsplit(site.base_url).scheme else None
    fragments: dict[int, Markup] = {}
    subjects = {s.code: s for s in site.subjects}
    authors = site.author_by_slug

    def url(path: str = "") -> str:
        return base_path + path.lstrip("/")

    def absurl(path: str = "") -> str:
        return (absolute or base_path) + path.lstrip("/")

    def person_slug(name: str) -> str | None:
        return site.people.get(normalize_name(name))

    record_template = env.get_template("partials/record.html")
    entry_template = env.get_template("partials/feed_entry.xml")
    brief_template = env.get_template("partials/record_brief.html")
    entries: dict[int, Markup] = {}
    briefs: dict[int, Markup] = {}

    def record_brief(record: Record) -> Markup:
        """The short form subject pages list: the full record lives on its authors' pages."""
        html = briefs.get(id(record))
        if html is None:
            html = briefs[id(record)] = Markup(brief_template.render(r=record))
        return html

    def record_html(record: Record) -> Markup:
        html = fragments.get(id(record))
        if html is None:
            html = fragments[id(record)] = Markup(record_template.render(r=record))
        return html

    def feed_entry(record: Record) -> Markup:
        xml = entries.get(id(record))
        if xml is None:
            xml = entries[id(record)] = Markup(entry_template.render(r=record))
        return xml

    def subject_name(code: str) -> str:
        s = subjects.get(code)
        if s is not None:
            return s.name
        cat = taxonomy.get(code)
        return cat.name if cat else code

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
        "author_jsonld": author_jsonld, "feed_entry": feed_entry, "record_brief": record_brief,
        "site": site, "url": url, "absurl": absurl, "person_slug": person_slug, "record_html": record_html,
        "subject_name": subject_name, "subject_exists": lambda code: code in subjects,
        "authors_by_slug": authors, "tex": tex_to_html, "tex_text": tex_to_text,
        "nav_pages": [p for p in site.pages if p.in_nav], "by_year": by_year,
    }
    return helpers


def by_year(records: Iterable[Record]) -> list[tuple[int | None, list[Record]]]:
    """Consecutive records grouped by year, order kept (records come newest first)."""
    groups: list[tuple[int | None, list[Record]]] = []
    for r in records:
        if groups and groups[-1][0] == r.year:
            groups[-1][1].append(r)
        else:
            groups.append((r.year, [r]))
    return groups
