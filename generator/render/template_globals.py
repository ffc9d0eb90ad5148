"""The values and functions templates see as globals, for one site.

``template_globals`` returns them as a dict for ``env.globals`` (and ``template_filters`` the few of them records use as filters): the site, URLs of routes
(``url_for``, generator.core.routes), the record partials rendered once per process
(generator.render.partials), the small partials every record uses (a subject chip, a person's
name), TeX helpers and the schema.org JSON-LD of an author. Everything here is a plain
function of the site, bound with ``functools.partial``: no markup is written in Python.
"""

from __future__ import annotations

import functools
from operator import attrgetter
from typing import Any, Iterable, Mapping, Sequence

import jinja2
from markupsafe import Markup

from generator.assemble import byline, venue_badge
from generator.render import paper_meta
from generator.render.chart import year_chart
from generator.render.coauthors import Graph, coauthor_graph
from generator.render import apa
from generator.render.exports import csl_item, paper_bibtex, with_authors
from generator.render.lab import Entry, Lab, filter_id
from generator.render.i18n import Formats, SiteLanguage
from generator.core.latex import tex_to_html, tex_to_text
from generator.core.model import Author, Record, SiteModel, entry_updated
from generator.assemble.papers import key_of
from generator.render.partials import Partial
from generator.index.lazy import Lazy, Listed
from generator.core.routes import Urls
from generator.render.record_filters import MEMBERS, AuthorUrls, Bylines, Chips, ListedPages, PaperUrls, person_slug
from generator.core.taxonomy import Taxonomy


_UPDATED = attrgetter("updated")


def newest_update(records: Sequence[Record], default: str = "1970-01-01T00:00:00Z") -> str:
    """The latest ``entry_updated`` of ``records`` (a feed's date): in C when every record has its
    update (arXiv's always do), as 1,000 authors' and 43 subjects' feeds are planned each build;
    asked of the index for its records (generator.index.lazy), none loaded."""
    if isinstance(records, Lazy):
        return records.newest_update(default)
    updates = list(map(_UPDATED, records))
    if all(updates):
        return max(updates, default=default)
    return max(map(entry_updated, records), default=default)


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


def listed_by(record_authors: Mapping[str, tuple[str, ...]], r: Record) -> tuple[str, ...]:
    """The profiled authors who list ``r`` (their slugs, site order)."""
    return record_authors.get(r.key, ())


_KEPT_INDEXED = 8192   # records whose brief entry a process keeps, when they come from the index


def _in_several_subjects(r: Record) -> bool:
    return len(r.subjects) > 1


def record_partials(env: jinja2.Environment, site: SiteModel) -> dict[str, Partial]:
    """The partials of a record, each rendered once per process and value (generator.render.partials).

    A record's full entry shows only on its authors' pages, each author holding its own record
    object: it is rendered for each and not kept (keeping every one would cost 250 MB a process
    at 1,000 x 100, for no reuse). A brief entry shows on the pages of each of the record's
    subjects: kept when it has more than one. A feed entry is mostly shown once, in its
    author's feed (a subject's and the site's feeds show the newest 50 of each, 2,250 entries
    at 1,000 x 100, against 50,000 in author feeds): not kept, which saved 100 MB over the
    two processes for 60 ms of renders. Chips and names repeat on thousands of records."""
    return {
        "record_brief": Partial(env, "partials/record_brief.html", keep=_in_several_subjects,
                                most=_KEPT_INDEXED if isinstance(site.record_authors, Listed) else None),
        "feed_entry": Partial(env, "partials/feed_entry.xml", ("r", "ids"), keep=False),
        "chip": Partial(env, "partials/chip.html", ("code", "primary")),
        "record_html": Partial(env, "partials/record.html", ("r", "own", "pinned", "keys", "lab"), keep=False),
        "person": Partial(env, "partials/person.html", ("name", "marks", "position", "own")),
    }


def author_jsonld(urls: Urls, names: Mapping[str, str], taxonomy: Taxonomy, a: Author,
                  shown: tuple[int, Mapping[str, str]] = (10, {}),
                  papers: Mapping[str, str] | None = None) -> dict[str, Any]:
    """schema.org Person with sameAs links, and a ScholarlyArticle per record, naming the authors
    the page shows (``shown``: the site's bound and profiled people, see generator.assemble.byline). On a
    site with paper pages (``papers``: its key collisions, generator.assemble.papers) each work is its name
    and the ``@id`` of the paper's page, which describes it in full (60 KB less on an author page
    of 100 records: 45 MB at 1,000 x 100)."""
    person: dict[str, Any] = {"@type": "Person", "@id": urls.abs_url_for("author", a.slug) + "#person",
                              "name": a.name, "url": urls.abs_url_for("author", a.slug)}
    if a.name_native:
        person["alternateName"] = a.name_native
    if a.affiliation:
        person["affiliation"] = {"@type": "Organization", "name": a.affiliation}
    same = [link.url for link in a.links if link.kind != "email"]
    if same:
        person["sameAs"] = same
    if papers is not None:
        works = [_work_ref(urls, papers, r, person["@id"]) for r in a.records]
    else:
        works = [_work_jsonld(r, person["@id"], names, taxonomy, shown) for r in a.records]
    return {"@context": "https://schema.org", "@graph": [person, *works]}


def _work_ref(urls: Urls, papers: Mapping[str, str], r: Record, person_id: str) -> dict[str, Any]:
    url = urls.abs_url_for("paper", key_of(papers, r.key))
    return {"@type": "ScholarlyArticle", "@id": url + "#work", "name": tex_to_text(r.title), "url": url,
            "author": {"@id": person_id}}


def _work_jsonld(r: Record, person_id: str, names: Mapping[str, str], taxonomy: Taxonomy,
                 shown: tuple[int, Mapping[str, str]]) -> dict[str, Any]:
    w: dict[str, Any] = {"@type": "ScholarlyArticle", "name": tex_to_text(r.title)}
    if r.link:
        w["url"] = r.link
    if r.published and (r.year is None or r.published.startswith(str(r.year))):
        w["datePublished"] = r.published[:10]
    elif r.year:   # a merged record's year is its published version's, not its preprint's date
        w["datePublished"] = str(r.year)
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
    return person.small(name, "", "", False)


def _paper_bibtex(listed: Mapping[str, tuple[str, ...]], by_slug: Mapping[str, Author], r: Record) -> str:
    """The paper's BibTeX entry, as its first profiled author's export writes it (generator.render.exports)."""
    slug = paper_meta.first_listed(listed, r)
    return paper_bibtex(r, by_slug[slug]) if slug else ""


def _listers(listed: Mapping[str, tuple[str, ...]], by_slug: Mapping[str, Author], r: Record) -> tuple[str, ...]:
    """The names of the profiled authors who list ``r``, site order."""
    return tuple(by_slug[slug].name for slug in listed.get(r.key, ()))


def _paper_apa(listed: Mapping[str, tuple[str, ...]], by_slug: Mapping[str, Author], r: Record) -> Markup:
    """The paper's APA reference as HTML (its text is ``apa.text``'s), from the CSL-JSON item its
    first profiled author's export writes (generator.render.apa, generator.render.exports)."""
    slug = paper_meta.first_listed(listed, r)
    return apa.html(apa.reference_parts(csl_item(with_authors(r, by_slug[slug]) if slug else r, reference=True)))


def lab_records(record_html: Partial, entries: Iterable[Entry]) -> Markup:
    """The entries of the lab's list through the record partial (its members emphasised), each
    with its kind and members for the filters (``lab``)."""
    return Markup("".join([record_html(e.record, MEMBERS, False, None, (e.kind, " ".join(e.members)))
                           for e in entries]))


def lab_graph(lab: Lab) -> Graph:
    """Who works with whom on the lab's page (generator.render.coauthors)."""
    return coauthor_graph([(m.slug, m.name) for m in lab.members], lab.pairs)


def entries_by_year(entries: Iterable[Entry]) -> list[tuple[int | None, list[Entry]]]:
    """Consecutive entries of the lab's list grouped by their record's year (``by_year``)."""
    groups: list[tuple[int | None, list[Entry]]] = []
    for e in entries:
        if groups and groups[-1][0] == e.record.year:
            groups[-1][1].append(e)
        else:
            groups.append((e.record.year, [e]))
    return groups


def bibtex_entries(author: Author) -> dict[str, int]:
    """Where each record's entry is in the author's BibTeX export (1 for the first: the export
    lists the author's records in their order, generator.render.exports.to_bibtex), by the
    record's key: which entry a record's "BibTeX" link copies. Its position, not its BibTeX key:
    the key needs the first author's family name, and so nameparser (60 ms to import, 0.4 ms a
    name), in every author page's render; the position needs nothing."""
    return {r.key: i for i, r in enumerate(author.records, 1)}


def template_filters(env_globals: Mapping[str, Any]) -> dict[str, Any]:
    """The helpers a record's partials call on every record, also as filters (``r.title|tex``,
    ``p.name|person``, ``code|chip(true)``): Jinja calls a filter directly, a global function
    through ``Context.call``, which was a tenth of the cost of rendering a record."""
    names = ("tex", "tex_text", "subject_name", "listed_by", "listed_pages", "entry_updated", "byline", "paper_url",
             "date", "number", "not_mine", "bibtex_url")
    chip, person = env_globals["chip"], env_globals["person"]
    return {**{n: env_globals[n] for n in names}, "chip": functools.partial(_chip, chip),
            "person": functools.partial(_person, person), "chips": Chips(chip),
            "class_terms": byline.class_terms, "comment_parts": byline.comment_parts,
            "badge": env_globals["venue_badge"], "meta_parts": byline.meta_parts}


def template_globals(env: jinja2.Environment, site: SiteModel, taxonomy: Taxonomy,
                     lang: SiteLanguage, formats: Formats) -> dict[str, Any]:
    """Every global the templates use, for ``site`` in its language (``lang``; gettext itself is
    installed by ``i18n.install``, which gave ``formats``)."""
    urls = Urls(site.base_url)
    names = {s.code: s.name for s in site.subjects}
    partials = record_partials(env, site)
    by_slug = site.author_by_slug
    return {
        "site": site, "url": urls.url, "absurl": urls.absurl, "url_for": urls.url_for,
        "abs_url_for": urls.abs_url_for,
        "person_slug": functools.partial(person_slug, site.people),
        "subject_name": functools.partial(subject_name, names, taxonomy),
        "listed_by": functools.partial(listed_by, site.record_authors), "listed_pages": ListedPages(urls, site),
        **partials,
        "byline": Bylines(partials["person"], site.authors_shown, site.people, formats),
        "text_direction": lang.direction, "translated": lang.translated,
        "plural_forms": formats.plural_forms, "date": formats.date, "number": formats.number,
        "records_html": partials["record_html"].many, "records_brief": partials["record_brief"].many,
        "bibtex_entries": bibtex_entries,
        "feed_entries": partials["feed_entry"].many,
        "author_jsonld": functools.partial(author_jsonld, urls, names, taxonomy,
                                           shown=(site.authors_shown, site.people),
                                           papers=site.paper_keys if site.papers else None),
        "authors_by_slug": by_slug, "tex": tex_to_html, "tex_text": tex_to_text,
        "not_mine": (author_urls := AuthorUrls(urls, site.repository)).not_mine, "bibtex_url": author_urls.bibtex_url,
        "venue_badge": functools.partial(venue_badge.badge, site.venue_names),
        "paper_url": PaperUrls(urls, site), "paper_listers": functools.partial(_listers, site.record_authors, by_slug),
        "citation_tags": paper_meta.citation_tags, "paper_jsonld": paper_meta.paper_jsonld,
        "paper_apa": functools.partial(_paper_apa, site.record_authors, by_slug),
        "paper_description": paper_meta.description, "paper_bibtex": functools.partial(_paper_bibtex, site.record_authors, by_slug),
        "lab_records": functools.partial(lab_records, partials["record_html"]), "lab_graph": lab_graph,
        "filter_id": filter_id, "entries_by_year": entries_by_year,
        "entry_updated": entry_updated, "year_chart": year_chart, "nav_pages": [p for p in site.pages if p.in_nav], "by_year": by_year,
    }
