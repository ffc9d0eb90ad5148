"""The values and functions templates see as globals, for one site.

``template_globals`` returns them as a dict for ``env.globals`` (and ``template_filters`` the few of them records use as filters): the site, URLs of routes
(``url_for``, generator.routes), the record partials rendered once per process
(generator.partials), the small partials every record uses (a subject chip, a person's
name), TeX helpers and the schema.org JSON-LD of an author. Everything here is a plain
function of the site, bound with ``functools.partial``: no markup is written in Python.
"""

from __future__ import annotations

import functools
from operator import attrgetter
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

import jinja2
from markupsafe import Markup

from generator import byline, paper_meta, routes
from generator.chart import year_chart
from generator.coauthors import Graph, coauthor_graph
from generator.exports import bibtex_keys, paper_bibtex
from generator.filters import normalize_name
from generator.lab import Entry, Lab, filter_id
from generator.i18n import Formats, SiteLanguage
from generator.latex import tex_to_html, tex_to_text
from generator.matching import not_mine_url
from generator.model import Author, Person, Record, SiteModel
from generator.papers import key_of
from generator.partials import Partial
from generator.routes import Urls
from generator.taxonomy import Taxonomy


def entry_updated(r: Record) -> str:
    """When a record last changed, for feeds: its update, else its first version, else 1 January
    of its year (a feed entry must carry a date; the build's clock would break reproducibility)."""
    return r.updated or r.published or f"{r.year or 1970}-01-01T00:00:00Z"


_UPDATED = attrgetter("updated")


def newest_update(records: Sequence[Record], default: str = "1970-01-01T00:00:00Z") -> str:
    """The latest ``entry_updated`` of ``records`` (a feed's date): in C when every record has its
    update (arXiv's always do), as 1,000 authors' and 43 subjects' feeds are planned each build."""
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


def person_slug(people: Mapping[str, str], name: str) -> str | None:
    """The slug of the profiled author a byline name stands for, if any."""
    return people.get(normalize_name(name))


def listed_by(record_authors: Mapping[str, tuple[str, ...]], r: Record) -> tuple[str, ...]:
    """The profiled authors who list ``r`` (their slugs, site order)."""
    return record_authors.get(r.key, ())


def _in_several_subjects(r: Record) -> bool:
    return len(r.subjects) > 1


def record_partials(env: jinja2.Environment, site: SiteModel) -> dict[str, Partial]:
    """The partials of a record, each rendered once per process and value (generator.partials).

    A record's full entry shows only on its authors' pages, each author holding its own record
    object: it is rendered for each and not kept (keeping every one would cost 250 MB a process
    at 1,000 x 100, for no reuse). A brief entry shows on the pages of each of the record's
    subjects: kept when it has more than one. A feed entry is mostly shown once, in its
    author's feed (a subject's and the site's feeds show the newest 50 of each, 2,250 entries
    at 1,000 x 100, against 50,000 in author feeds): not kept, which saved 100 MB over the
    two processes for 60 ms of renders. Chips and names repeat on thousands of records."""
    return {
        "record_brief": Partial(env, "partials/record_brief.html", keep=_in_several_subjects),
        "feed_entry": Partial(env, "partials/feed_entry.xml", ("r", "ids"), keep=False),
        "chip": Partial(env, "partials/chip.html", ("code", "primary")),
        "record_html": Partial(env, "partials/record.html", ("r", "own", "pinned", "keys", "lab"), keep=False),
        "person": Partial(env, "partials/person.html", ("name", "marks", "position", "own")),
    }


def author_jsonld(urls: Urls, names: Mapping[str, str], taxonomy: Taxonomy, a: Author,
                  shown: tuple[int, Mapping[str, str]] = (10, {}),
                  papers: Mapping[str, str] | None = None) -> dict[str, Any]:
    """schema.org Person with sameAs links, and a ScholarlyArticle per record, naming the authors
    the page shows (``shown``: the site's bound and profiled people, see generator.byline). On a
    site with paper pages (``papers``: its key collisions, generator.papers) each work is its name
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


class Byline(NamedTuple):
    """What a record's partial shows of its authors (generator.byline): the names, each through
    partials/person.html and separated by a comma ("…" where names were left out), the
    affiliations they cite, numbered from 1, and how many names are not shown ("" if none, else in the
    locale's digits).
    A named tuple: made for every record shown, and one costs half a frozen dataclass."""

    names: Markup
    affiliations: tuple[str, ...]
    more: str
    rest: int = 0   # how many, as a number (for ngettext: "and 1 more", "and 2 more")


def _cites(authors: tuple[Person, ...]) -> bool:
    for p in authors:
        if p.affiliations:
            return True
    return False


MEMBERS = "*"   # ``own`` on the lab's list: every profiled author of the site is emphasised


class _Bylines:
    """``r|byline`` (``r|byline(false)`` without affiliations; ``r|byline(true, slug)`` on the page of
    the profiled author ``slug``, whose name is then bold and no link; ``r|byline(true, "*")`` on the
    lab's list, where every profiled author is bold and a link): a record's bounded byline, one
    filter call per record instead of a template loop per name (the largest cost of a record's
    partial). The usual record (no more names than shown, none citing an affiliation) reads each
    name's partial from a dict keyed by the name: a site names a few thousand people on a hundred
    thousand records."""

    __slots__ = ("_person", "_limit", "_people", "_plain", "_slugs", "_formats")

    def __init__(self, person: Partial, limit: int, people: Mapping[str, str], formats: Formats) -> None:
        self._person, self._limit, self._people, self._formats = person, limit, people, formats
        self._plain: dict[str, Markup] = {}   # name -> its partial, no marks, no position
        self._slugs: dict[str, str | None] = {}   # name -> the profiled author it names, if any

    def _is(self, name: str, own: str) -> bool | str:
        """How partials/person.html shows ``name``: True as the page's own author, "member" as a
        member on the lab's list (``own`` is ``MEMBERS``), else False."""
        slug = self._slugs.get(name, "")
        if slug == "":
            slug = self._slugs[name] = person_slug(self._people, name)
        if own == MEMBERS:
            return "member" if slug else False
        return slug == own

    def __call__(self, r: Record, affiliations: bool = True, own: str = "") -> Byline:
        authors = r.authors
        if len(authors) > self._limit or (affiliations and _cites(authors)):
            return self._bounded(authors, affiliations, own)
        plain = self._plain
        try:
            names = [plain[p.name] for p in authors]
        except KeyError:
            for p in authors:
                if p.name not in plain:
                    plain[p.name] = self._person.small(p.name, "", "", False)
            names = [plain[p.name] for p in authors]
        if own:   # the page's own author: its own partial (bold, no link), kept as the others are
            small, mine = self._person.small, self._is
            names = [small(p.name, "", "", is_) if (is_ := mine(p.name, own)) else n for p, n in zip(authors, names)]
        return Byline(Markup(", ".join(names)), (), "")

    def _bounded(self, authors: tuple[Person, ...], affiliations: bool, own: str) -> Byline:
        small = self._person.small
        shown, affs = byline.shown_authors(authors, self._limit, self._people, affiliations)
        place, total = self._formats.place, len(authors)
        names = ", ".join([("… " if s.gap and s.index else "")
                           + small(s.person.name, s.marks, place(s.index + 1, total) if s.position else "",
                                   bool(own) and self._is(s.person.name, own))
                           for s in shown])
        rest = len(authors) - len(shown)
        return Byline(Markup(names), affs, self._formats.number(rest) if rest else "", rest)


class _Chips:
    """``r|chips``: a record's subject chips through partials/chip.html, primary first, each
    followed by a space. Each code's chip is read from a dict (primary or not); joined per
    record, not kept per list of subjects: the lists are too many (50,000 at 1,000 x 100)."""

    __slots__ = ("_chip", "_primary", "_other")

    def __init__(self, chip: Partial) -> None:
        self._chip = chip
        self._primary: dict[str, Markup] = {}
        self._other: dict[str, Markup] = {}

    def __call__(self, r: Record) -> Markup:
        subjects = r.subjects
        if not subjects:
            return Markup("")
        try:
            other = self._other
            return Markup(" ".join([self._primary[subjects[0]], *[other[c] for c in subjects[1:]]]) + " ")
        except KeyError:
            small = self._chip.small
            for i, code in enumerate(subjects):
                (self._other if i else self._primary).setdefault(code, small(code, i == 0))
            return self(r)


class _ListedPages:
    """``r|listed_pages``: the (page URL, name) of each profiled author who lists ``r``, site
    order, kept per list of authors: a brief entry links to each, and a ``url_for`` call per
    link (a Route made, through Jinja's Context.call) cost a tenth of the entry."""

    __slots__ = ("_listed", "_urls", "_names", "_kept")

    def __init__(self, urls: Urls, site: SiteModel) -> None:
        self._listed, self._urls = site.record_authors, urls
        self._names = {a.slug: a.name for a in site.authors}
        self._kept: dict[tuple[str, ...], tuple[tuple[str, str], ...]] = {}

    def __call__(self, r: Record) -> tuple[tuple[str, str], ...]:
        slugs = self._listed.get(r.key, ())
        pages = self._kept.get(slugs)
        if pages is None:
            pages = self._kept[slugs] = tuple((self._urls.url_for("author", s), self._names[s]) for s in slugs)
        return pages


def _not_mine_url(urls: Urls, repository: str, slug: str, r: Record) -> str:
    """The "Not mine?" link of a record on the page of author ``slug`` (generator.matching)."""
    return not_mine_url(repository, slug, r, f"{urls.abs_url_for('author', slug)}#{r.anchor}")


class _PaperUrls:
    """``r|paper_url``: the address of the record's own page (generator.papers), or None on a site
    without paper pages."""

    __slots__ = ("_urls", "_keys", "_on")

    def __init__(self, urls: Urls, site: SiteModel) -> None:
        self._urls, self._keys, self._on = urls, site.paper_keys, site.papers

    def __call__(self, r: Record) -> str | None:
        return self._urls.url(routes.paper(key_of(self._keys, r.key)).url) if self._on else None


def _paper_bibtex(listed: Mapping[str, tuple[str, ...]], by_slug: Mapping[str, Author], r: Record) -> str:
    """The paper's BibTeX entry, as its first profiled author's export writes it (generator.exports)."""
    slug = paper_meta.first_listed(listed, r)
    return paper_bibtex(r, by_slug[slug]) if slug else ""


def lab_records(record_html: Partial, entries: Iterable[Entry]) -> Markup:
    """The entries of the lab's list through the record partial (its members emphasised), each
    with its kind and members for the filters (``lab``)."""
    return Markup("".join([record_html(e.record, MEMBERS, False, None, (e.kind, " ".join(e.members)))
                           for e in entries]))


def lab_graph(lab: Lab) -> Graph:
    """Who works with whom on the lab's page (generator.coauthors)."""
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


def bibtex_keys_by_record(author: Author) -> dict[str, str]:
    """Each record's key in the author's BibTeX export (generator.exports), by the record's key:
    what a record's "BibTeX" link copies."""
    return {r.key: k for r, k in zip(author.records, bibtex_keys(author))}


def template_filters(env_globals: Mapping[str, Any]) -> dict[str, Any]:
    """The helpers a record's partials call on every record, also as filters (``r.title|tex``,
    ``p.name|person``, ``code|chip(true)``): Jinja calls a filter directly, a global function
    through ``Context.call``, which was a tenth of the cost of rendering a record."""
    names = ("tex", "tex_text", "subject_name", "listed_by", "listed_pages", "entry_updated", "byline", "paper_url",
             "date", "number")
    chip, person = env_globals["chip"], env_globals["person"]
    return {**{n: env_globals[n] for n in names}, "chip": functools.partial(_chip, chip),
            "person": functools.partial(_person, person), "chips": _Chips(chip),
            "class_terms": byline.class_terms, "comment_parts": byline.comment_parts,
            "badge": byline.badge, "meta_parts": byline.meta_parts}


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
        "listed_by": functools.partial(listed_by, site.record_authors), "listed_pages": _ListedPages(urls, site),
        **partials,
        "byline": _Bylines(partials["person"], site.authors_shown, site.people, formats),
        "text_direction": lang.direction, "translated": lang.translated,
        "plural_forms": formats.plural_forms, "date": formats.date, "number": formats.number,
        "records_html": partials["record_html"].many, "records_brief": partials["record_brief"].many,
        "bibtex_keys": bibtex_keys_by_record,
        "feed_entries": partials["feed_entry"].many,
        "author_jsonld": functools.partial(author_jsonld, urls, names, taxonomy,
                                           shown=(site.authors_shown, site.people),
                                           papers=site.paper_keys if site.papers else None),
        "authors_by_slug": by_slug, "tex": tex_to_html, "tex_text": tex_to_text,
        "not_mine_url": functools.partial(_not_mine_url, urls, site.repository),
        "paper_url": _PaperUrls(urls, site), "citation_tags": paper_meta.citation_tags,
        "paper_jsonld": paper_meta.paper_jsonld,
        "paper_description": paper_meta.description, "paper_bibtex": functools.partial(_paper_bibtex, site.record_authors, by_slug),
        "lab_records": functools.partial(lab_records, partials["record_html"]), "lab_graph": lab_graph,
        "filter_id": filter_id, "entries_by_year": entries_by_year,
        "entry_updated": entry_updated, "year_chart": year_chart, "nav_pages": [p for p in site.pages if p.in_nav], "by_year": by_year,
    }
