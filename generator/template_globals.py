"""The values and functions templates see as globals, for one site.

``template_globals`` returns them as a dict for ``env.globals`` (and ``template_filters`` the few of them records use as filters): the site, URLs of routes
(``url_for``, generator.routes), the record partials rendered once per process
(generator.partials), the small partials every record uses (a subject chip, a person's
name), TeX helpers and the schema.org JSON-LD of an author. Everything here is a plain
function of the site, bound with ``functools.partial``: no markup is written in Python.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import jinja2
from markupsafe import Markup

from generator import byline
from generator.filters import normalize_name
from generator.latex import tex_to_html, tex_to_text
from generator.model import Author, Record, SiteModel
from generator.partials import Partial
from generator.routes import Urls
from generator.taxonomy import Taxonomy


def entry_updated(r: Record) -> str:
    """When a record last changed, for feeds: its update, else its first version, else 1 January
    of its year (a feed entry must carry a date; the build's clock would break reproducibility)."""
    return r.updated or r.published or f"{r.year or 1970}-01-01T00:00:00Z"


def by_year(records: Iterable[Record]) -> list[tuple[int | None, list[Record]]]:
    """Consecutive records grouped by year, order kept (records come newest first)."""
    groups: list[tuple[int | None, list[Record]]] = []
    for r in records:
        if groups and groups[-1][0] == r.year:
            groups[-1][1].append(r)
        else:
            groups.append((r.year, [r]))
    return groups


def subject_name(names: Mapping[str, str], taxonomy: Taxonomy, code: str) -> str:
    """A subject's name: the site's subject, else arXiv's taxonomy, else the code itself."""
    name = names.get(code)
    if name is not None:
        return name
    cat = taxonomy.get(code)
    return cat.name if cat else code


def person_slug(people: Mapping[str, str], name: str) -> str | None:
    """The slug of the profiled author a byline name stands for, if any."""
    return people.get(normalize_name(name))


def listed_by(record_authors: Mapping[str, tuple[str, ...]], r: Record) -> tuple[str, ...]:
    """The profiled authors who list ``r`` (their slugs, site order)."""
    return record_authors.get(r.key, ())


def _never(r: Record) -> bool:
    return False


def record_partials(env: jinja2.Environment, site: SiteModel) -> dict[str, Partial]:
    """The partials of a record, each rendered once per process and value (generator.partials).

    A record's full entry shows only on its authors' pages, each author holding its own record
    object: it is rendered for each and not kept (keeping every one would cost 250 MB a process
    at 1,000 x 100, for no reuse). Brief entries (one per subject page) and feed entries
    (author, subject and site feeds) are kept. Chips and names repeat on thousands of records."""
    return {
        "record_html": Partial(env, "partials/record.html", keep=_never),
        "record_brief": Partial(env, "partials/record_brief.html"),
        "feed_entry": Partial(env, "partials/feed_entry.xml"),
        "chip": Partial(env, "partials/chip.html", ("code", "primary")),
        "person": Partial(env, "partials/person.html", ("name", "marks", "position")),
    }


def author_jsonld(urls: Urls, names: Mapping[str, str], taxonomy: Taxonomy, a: Author,
                  shown: tuple[int, Mapping[str, str]] = (10, {})) -> dict[str, Any]:
    """schema.org Person with sameAs links, and a ScholarlyArticle per record, naming the authors
    the page shows (``shown``: the site's bound and profiled people, see generator.byline)."""
    person: dict[str, Any] = {"@type": "Person", "@id": urls.abs_url_for("author", a.slug) + "#person",
                              "name": a.name, "url": urls.abs_url_for("author", a.slug)}
    if a.affiliation:
        person["affiliation"] = {"@type": "Organization", "name": a.affiliation}
    same = [link.url for link in a.links if link.kind != "email"]
    if same:
        person["sameAs"] = same
    works = [_work_jsonld(r, person["@id"], names, taxonomy, shown) for r in a.records]
    return {"@context": "https://schema.org", "@graph": [person, *works]}


def _work_jsonld(r: Record, person_id: str, names: Mapping[str, str], taxonomy: Taxonomy,
                 shown: tuple[int, Mapping[str, str]]) -> dict[str, Any]:
    w: dict[str, Any] = {"@type": "ScholarlyArticle", "name": tex_to_text(r.title)}
    if r.link:
        w["url"] = r.link
    if r.published or r.year:
        w["datePublished"] = r.published[:10] if r.published else str(r.year)
    if r.authors:
        w["author"] = [{"@type": "Person", "name": n} for n in byline.shown_names(r.authors, *shown)]
    else:
        w["author"] = {"@id": person_id}
    if r.doi_url:
        w["sameAs"] = r.doi_url
    if r.arxiv_id:
        w["identifier"] = f"arXiv:{r.arxiv_id}"
    if r.subjects:
        w["about"] = [subject_name(names, taxonomy, c) for c in r.subjects]
    return w


def _chip(chip: Partial, code: str, primary: bool = False) -> Markup:
    return chip.small(code, primary)


def _person(person: Partial, name: str) -> Markup:
    return person.small(name, "", "")


@dataclass(frozen=True, slots=True)
class Byline:
    """What a record's partial shows of its authors (generator.byline): the names, each through
    partials/person.html and separated by a comma ("…" where names were left out), the
    affiliations they cite, numbered from 1, and how many names are not shown ("" if none)."""

    names: Markup
    affiliations: tuple[str, ...]
    more: str


def _byline(person: Partial, limit: int, people: Mapping[str, str], r: Record, affiliations: bool = True) -> Byline:
    """A record's bounded byline: one filter call per record instead of a template loop per name
    (the largest cost of a record's partial); each name's partial is kept by value."""
    small, authors = person.small, r.authors
    if len(authors) <= limit and not (affiliations and any(p.affiliations for p in authors)):
        return Byline(Markup(", ".join([small(p.name, "", "") for p in authors])), (), "")   # the usual case
    shown, affs = byline.shown_authors(authors, limit, people, affiliations)
    names = ", ".join([("… " if s.gap and s.index else "") + small(s.person.name, s.marks, s.position) for s in shown])
    rest = len(authors) - len(shown)
    return Byline(Markup(names), affs, f"{rest:,}" if rest else "")


def _chips(chip: Partial, r: Record) -> Markup:
    """A record's subject chips through partials/chip.html, primary first, each followed by a space."""
    if not r.subjects:
        return Markup("")
    small = chip.small
    return Markup(" ".join([small(code, i == 0) for i, code in enumerate(r.subjects)]) + " ")


def template_filters(env_globals: Mapping[str, Any]) -> dict[str, Any]:
    """The helpers a record's partials call on every record, also as filters (``r.title|tex``,
    ``p.name|person``, ``code|chip(true)``): Jinja calls a filter directly, a global function
    through ``Context.call``, which was a tenth of the cost of rendering a record."""
    names = ("tex", "tex_text", "subject_name", "listed_by", "entry_updated", "byline")
    chip, person = env_globals["chip"], env_globals["person"]
    return {**{n: env_globals[n] for n in names}, "chip": functools.partial(_chip, chip),
            "person": functools.partial(_person, person), "chips": functools.partial(_chips, chip),
            "class_terms": byline.class_terms, "comment_parts": byline.comment_parts}


def template_globals(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy) -> dict[str, Any]:
    """Every global the templates use, for ``site``."""
    urls = Urls(site.base_url)
    names = {s.code: s.name for s in site.subjects}
    partials = record_partials(env, site)
    return {
        "site": site, "url": urls.url, "absurl": urls.absurl, "url_for": urls.url_for,
        "abs_url_for": urls.abs_url_for,
        "person_slug": functools.partial(person_slug, site.people),
        "subject_name": functools.partial(subject_name, names, taxonomy),
        "listed_by": functools.partial(listed_by, site.record_authors),
        **partials,
        "byline": functools.partial(_byline, partials["person"], site.authors_shown, site.people),
        "records_html": partials["record_html"].many, "records_brief": partials["record_brief"].many,
        "feed_entries": partials["feed_entry"].many,
        "author_jsonld": functools.partial(author_jsonld, urls, names, taxonomy,
                                           shown=(site.authors_shown, site.people)),
        "authors_by_slug": site.author_by_slug, "tex": tex_to_html, "tex_text": tex_to_text,
        "entry_updated": entry_updated, "nav_pages": [p for p in site.pages if p.in_nav], "by_year": by_year,
    }
