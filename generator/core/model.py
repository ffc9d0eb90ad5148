"""The data that flows through the pipeline: frozen values, tuples for sequences.

Dates are kept as ISO 8601 UTC strings (``2026-01-31T12:00:00Z``): they sort
correctly as text, serialise to the cache and to JSON unchanged, and never carry a
local timezone into a page. Links are derived from validated ids (see ``ids``), so
a record never stores a URL copied from a feed except ``url``, which was checked
by ``ids.safe_url`` when the record was made.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from generator.core import ids

_NOT_ASCII_ALNUM = re.compile(r"[^A-Za-z0-9]")


def title_digest(title: str, year: int | None) -> str:
    """A short digest of a title (case, punctuation and spacing ignored) and its year."""
    norm = re.sub(r"[^0-9a-z]+", " ", title.casefold()).strip()
    return hashlib.sha1(f"{norm}|{year}".encode()).hexdigest()[:12]


def record_key(arxiv_id: str | None, doi: str | None, title: str, year: int | None) -> str:
    """Identity of a record, the same for every source: arXiv id, else DOI, else title + year."""
    if arxiv_id:
        return f"arxiv:{arxiv_id}"
    if doi:
        return f"doi:{doi.lower()}"
    return f"title:{title_digest(title, year)}"


@dataclass(frozen=True, slots=True)
class Person:
    name: str
    affiliations: tuple[str, ...] = ()


# The name of the last Person of an author list that a source cut short: no author, the mark that
# more follow. The sources put it there (generator.sources); the exports and the lab list read it.
ET_AL = "et al."


# A Record field's metadata: how its JSON form (cache files, exports) keeps it. Every other field
# is always written; its JSON kind comes from its type (``JSON_KINDS``).
WHEN_SET = MappingProxyType({"json": "when set"})   # written only when it has a value
NOT_IN_JSON = MappingProxyType({"json": "never"})   # not written (``order``: the position in its source)
DERIVED = MappingProxyType({"json": "derived"})   # not written nor read: set when the site is assembled


@dataclass(frozen=True, slots=True)
class Record:
    """One publication, from any source, normalised."""

    key: str                      # identity for de-duplication and anchors
    title: str
    year: int | None
    source: str = "arXiv"         # badge label: arXiv, DBLP, a feed's label ...
    arxiv_id: str | None = None   # without version
    version: int | None = None
    authors: tuple[Person, ...] = ()
    abstract: str = ""
    published: str | None = None  # ISO 8601 UTC, first version
    updated: str | None = None    # ISO 8601 UTC, this version
    primary_subject: str | None = None
    subjects: tuple[str, ...] = ()      # canonical arXiv codes, primary first
    other_terms: tuple[str, ...] = ()   # non-arXiv classification terms (MSC, ACM)
    doi: str | None = None
    journal_ref: str | None = None
    comment: str | None = None
    url: str | None = None        # validated http(s) link for records without arXiv id
    order: int = field(default=0, metadata=NOT_IN_JSON)  # position in its source (keeps typed-in order stable)
    # Written to the cache only when set (older caches stay byte-identical):
    venue: str | None = field(default=None, metadata=WHEN_SET)  # published venue, e.g. "VLDB 2025" (DBLP, OpenAlex, ORCID)
    # (scheme, id): ("dblp", key), ("openalex", "W..."), ("orcid", put-code)
    source_ids: tuple[tuple[str, str], ...] = field(default=(), metadata=WHEN_SET)
    origins: tuple[str, ...] = field(default=(), metadata=WHEN_SET)  # labels of every source that gave this record
    links: tuple[tuple[str, str], ...] = field(default=(), metadata=WHEN_SET)  # (kind, URL): code, slides, video ...
    citations: int | None = field(default=None, metadata=WHEN_SET)  # cited_by_count (OpenAlex)
    citations_date: str | None = field(default=None, metadata=WHEN_SET)  # ISO 8601 date the count was fetched
    # Why the record is on its author's page, "BASIS:HOW" (generator.assemble.matching): made at assemble time
    # from the source that gave it, never cached (the same cache file serves an ids list and a query).
    match: str = field(default="", metadata=DERIVED)

    @property
    def abs_url(self) -> str | None:
        return ids.abs_url(self.arxiv_id) if self.arxiv_id else None

    @property
    def pdf_url(self) -> str | None:
        return ids.pdf_url(self.arxiv_id) if self.arxiv_id else None

    @property
    def doi_url(self) -> str | None:
        return ids.doi_url(self.doi) if self.doi else None

    @property
    def source_links(self) -> tuple[tuple[str, str], ...]:
        """(label, URL) of each original source: arXiv, DOI, DBLP, OpenAlex, ORCID (``ids.source_links``)."""
        return ids.source_links(self.arxiv_id, self.doi, self.source_ids)

    @property
    def link(self) -> str | None:
        """The original source: the arXiv abstract page, else the record's URL, else its DOI. A
        typed-in record labelled arXiv but given no id (the demo's, copied from profile pages) links
        to arXiv's search for its title, where it is; any other record that gives none of them has
        no link, rather than a guess (issue 13: a 'Manual' record is not searched on arXiv).
        (Each URL is made once: every record partial and export reads this.)"""
        if self.arxiv_id:
            return ids.abs_url(self.arxiv_id)
        if self.url:
            return self.url
        if self.doi:
            return ids.doi_url(self.doi)
        return ids.title_search_url(self.title) if self.source == "arXiv" else None

    @property
    def anchor(self) -> str:
        """A fragment id that is safe in HTML and stable across builds."""
        rest = self.key.split(":", 1)[-1][:80]
        if rest.isascii():  # the usual case, same result as below
            return "r-" + _NOT_ASCII_ALNUM.sub("-", rest)
        return "r-" + "".join(c if c.isalnum() else "-" for c in rest)


def entry_updated(r: Record) -> str:
    """When a record last changed, for feeds: its update, else its first version, else 1 January
    of its year (a feed entry must carry a date; the build's clock would break reproducibility)."""
    return r.updated or r.published or f"{r.year or 1970}-01-01T00:00:00Z"


@dataclass(frozen=True, slots=True)
class Incomplete:
    """Where a paged fetch stopped: the next fetch resumes at ``next_start`` (of ``total``)."""

    next_start: int
    total: int


@dataclass(frozen=True, slots=True)
class Link:
    label: str
    url: str
    kind: str  # homepage, orcid, arxiv, dblp, scholar, github, email


@dataclass(frozen=True, slots=True)
class Photo:
    """An author's photo: the image file under content/ (``source``, relative to the site root,
    so the jobs' digests are the same on every machine),
    its content digest (what the copy job reads), its file suffix and its pixel size, written
    into the page so the layout does not move while it loads."""

    source: str
    digest: str
    suffix: str        # '.png', '.jpg', '.webp', '.gif' or '.svg'
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Author:
    slug: str
    name: str
    affiliation: str | None
    bio_html: str                       # sanitised HTML from Markdown
    links: tuple[Link, ...]
    records: tuple[Record, ...]         # newest first
    subjects: tuple[tuple[str, int], ...]  # (code, count), most used first
    years: tuple[tuple[int, int], ...]  # (year, count), newest first
    template: str = "author.html"
    photo: Photo | None = None
    role: str | None = None             # "PhD student", "Professor" ...
    group: str | None = None            # "current", "alumni" ... (ordered by site.yaml's groups)
    pinned: tuple[Record, ...] = ()     # "Selected publications", in the order the file gives
    name_native: str | None = None      # the name in its own script (崔斌), beside the Latin one
    name_native_lang: str | None = None  # its language tag, when the author file gives it
    member: tuple[int | None, int | None] | None = None   # (from, until): years in the lab (author file)
    matched: bytes = b""                # assemble.matching.summary_digest of the records: what data.json reads

    def member_in(self, year: int | None) -> bool:
        """Whether a record of ``year`` counts for the lab: always without ``member`` years, and
        an undated record always (it cannot be placed); else when it falls within them."""
        if self.member is None or year is None:
            return True
        start, end = self.member
        return (start is None or year >= start) and (end is None or year <= end)


@dataclass(frozen=True, slots=True)
class SubjectNames:
    """What names an arXiv subject: its code and name, its archive's, its group's."""

    code: str
    name: str
    archive: str
    archive_name: str
    group: str
    group_name: str


@dataclass(frozen=True, slots=True)
class Subject(SubjectNames):
    records: tuple[Record, ...]                  # newest first, each once
    authors: tuple[tuple[str, int], ...]         # (author slug, record count)


@dataclass(frozen=True, slots=True)
class SubjectHeading(SubjectNames):
    """A subject as each of its pages shows it above that page's own records: names, the count
    of records and who works there, without the records. A subject page reads this and its slice
    (generator.render.pages), so a changed record re-renders the page that lists it, not all of them."""

    count: int                                   # len(Subject.records)
    authors: tuple[tuple[str, int], ...]         # (author slug, record count)

    @classmethod
    def of(cls, s: Subject) -> SubjectHeading:
        return cls(s.code, s.name, s.archive, s.archive_name, s.group, s.group_name, len(s.records), s.authors)


@dataclass(frozen=True, slots=True)
class Page:
    """A free Markdown page (content/pages/NAME.md)."""

    name: str
    title: str
    body_html: str
    description: str = ""
    weight: int = 0
    in_nav: bool = True


@dataclass(frozen=True, slots=True)
class SiteModel:
    """Everything render needs, assembled once."""

    title: str
    description: str
    base_url: str              # absolute, ends with '/'; '/' for a root-relative local site
    language: str
    authors: tuple[Author, ...]
    subjects: tuple[Subject, ...]
    pages: tuple[Page, ...]
    record_authors: Mapping[str, tuple[str, ...]]  # record key -> profiled author slugs
    paginate: int
    cname: str | None
    extra: Mapping[str, Any] = field(default_factory=dict)
    people: Mapping[str, str] = field(default_factory=dict)  # normalised name -> profiled author slug
    feed_size: int = 50        # entries of each Atom feed (author, subject, site): the newest
    authors_shown: int = 10    # names of a record's byline on the pages (generator.assemble.byline)
    venues: bool = False       # the per-venue index is built (site.yaml venues: true; generator.assemble.venues)
    groups: tuple[str, ...] = ()  # the order of the authors' groups on the home page (site.yaml)
    accent: tuple[str, str] | None = None  # site.yaml's accent and its dark-scheme variant (config.accent)
    repository: str = ""       # the site's GitHub repository (site.yaml): "Not mine?" links (generator.assemble.matching)
    papers: bool = True        # a page per paper (site.yaml papers; generator.assemble.papers)
    # The works whose paper key another work has, with the key each takes (papers.collisions):
    # empty on every site seen; a site value, so every job's digest holds it (generator.render.reads).
    paper_keys: Mapping[str, str] = field(default_factory=dict)
    venue_names: Mapping[str, str] = field(default_factory=dict)  # site.yaml's short venue names (assemble.venue_badge)
    publications: bool = True  # the lab's list at /publications/ (site.yaml publications; generator.render.lab)
    search_abstracts: bool = False  # the search index holds the abstracts too (site.yaml search.abstracts; a lab's by default)
    # The site feed's records: the newest feed_size of every author's, each once (assemble.newest;
    # None: made when planned). Site-wide, so the preview keeps it while no author's records change.
    newest: tuple[Record, ...] | None = None
    # The feeds' entry ids that differ from their records' own, and the "published" announcements
    # (generator.assemble.feed_ids.FeedIds; None: every id is the record's own, nothing announced).
    feeds: Any = None

    @property
    def author_by_slug(self) -> dict[str, Author]:
        return {a.slug: a for a in self.authors}
