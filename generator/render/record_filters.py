"""The helpers a record's partials call on every record of a page, as filters (generator.render.template_globals
sets them): its byline, subject chips, the pages that list it, and the author's and paper's URLs. Each
keeps what repeats (a name's partial, a chip, an author's URL) so a record costs a few dict lookups."""

from __future__ import annotations

from itertools import compress, repeat
from operator import attrgetter
from typing import Mapping, NamedTuple

from markupsafe import Markup

from generator.assemble import byline
from generator.core import routes
from generator.assemble.filters import normalize_name
from generator.render.i18n import Formats
from generator.assemble.matching import not_mine_url
from generator.core.model import Person, Record, SiteModel
from generator.assemble.papers import key_of
from generator.render.partials import Partial
from generator.core.routes import Urls


def person_slug(people: Mapping[str, str], name: str) -> str | None:
    """The slug of the profiled author a byline name stands for, if any."""
    return people.get(normalize_name(name))


class Byline(NamedTuple):
    """What a record's partial shows of its authors (generator.assemble.byline): the names, each through
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


_NAME = attrgetter("name")
MEMBERS = "*"   # ``own`` on the lab's list: every profiled author of the site is emphasised


class Bylines:
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

    def _slug(self, name: str) -> str | None:
        """The profiled author ``name`` stands for, if any (kept by name)."""
        slug = self._slugs.get(name, "")
        if slug == "":
            slug = self._slugs[name] = person_slug(self._people, name)
        return slug

    def _is(self, name: str, own: str) -> bool | str:
        """How partials/person.html shows ``name``: True as the page's own author, "member" as a
        member on the lab's list (``own`` is ``MEMBERS``), else False."""
        slug = self._slug(name)
        if own == MEMBERS:
            return "member" if slug else False
        return slug == own

    def __call__(self, r: Record, affiliations: bool = True, own: str = "") -> Byline:
        authors = r.authors
        if len(authors) > self._limit or (affiliations and _cites(authors)):
            return self._bounded(authors, affiliations, own)
        plain, text = self._plain, list(map(_NAME, authors))   # (in C, as the lookups below)
        try:
            names = list(map(plain.__getitem__, text))
        except KeyError:
            for name in text:
                if name not in plain:
                    plain[name] = self._person.small(name, "", "", False)
            names = list(map(plain.__getitem__, text))
        if own:   # the page's own author: its own partial (bold, no link), kept as the others are
            names = self._marked(text, names, own)
        return Byline(Markup(", ".join(names)), (), "")

    def _marked(self, text: list[str], names: list[Markup], own: str) -> list[Markup]:
        """``names`` (the partials of the names ``text``) with the page's own author (or, on the
        lab's list, each member) marked: each name's slug looked up in C, and ``_is`` only for a
        name that stands for a profiled author (a method call per name was a tenth of a byline)."""
        slugs = list(map(self._slugs.get, text, repeat("")))
        if "" in slugs:   # a name not looked up yet
            slugs = [self._slug(name) if slug == "" else slug for name, slug in zip(text, slugs)]
        small = self._person.small
        for i in compress(range(len(slugs)), slugs):
            is_ = self._is(text[i], own)
            if is_:
                names[i] = small(text[i], "", "", is_)
        return names

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


class Chips:
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


class ListedPages:
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


class AuthorUrls:
    """``r|not_mine(slug)`` (the "Not mine?" link) and ``slug|bibtex_url``, the author's URLs kept
    by slug: a record's partial asks for them on every record of an author page, and a
    ``url_for`` call (a Route made, through Jinja's Context.call) cost a tenth of the record."""

    __slots__ = ("_urls", "_repository", "_pages", "_bibtex")

    def __init__(self, urls: Urls, repository: str) -> None:
        self._urls, self._repository = urls, repository
        self._pages: dict[str, str] = {}
        self._bibtex: dict[str, str] = {}

    def not_mine(self, r: Record, slug: str) -> str:
        page = self._pages.get(slug)
        if page is None:
            page = self._pages[slug] = self._urls.abs_url_for("author", slug)
        return not_mine_url(self._repository, slug, r, f"{page}#{r.anchor}")

    def bibtex_url(self, slug: str) -> str:
        url = self._bibtex.get(slug)
        if url is None:
            url = self._bibtex[slug] = self._urls.url_for("author_bibtex", slug)
        return url


class PaperUrls:
    """``r|paper_url``: the address of the record's own page (generator.assemble.papers), or None on a site
    without paper pages."""

    __slots__ = ("_urls", "_keys", "_on")

    def __init__(self, urls: Urls, site: SiteModel) -> None:
        self._urls, self._keys, self._on = urls, site.paper_keys, site.papers

    def __call__(self, r: Record) -> str | None:
        return self._urls.url(routes.paper(key_of(self._keys, r.key)).url) if self._on else None
