"""Any Atom or RSS feed (``feed:`` source): the same client and acceptance rules as arXiv.

The body must pass ``accept.decode_xml`` (non-empty, strict UTF-8, no DOCTYPE or
ENTITY) and feedparser must read it with ``bozo`` 0 as some version of RSS or Atom.
feedparser is the parser here (feeds come in a dozen dialects) but its output is not
trusted as HTML: HTML-typed titles and summaries are reduced to plain text, dates are
re-read strictly from the raw strings (feedparser shifts impossible dates), and a
link is kept only if ``ids.safe_url`` accepts it and the entry has no arXiv id (for
arXiv records the model rebuilds the links from the id).

arXiv ids are recognised in entry ids and links (``oai:arXiv.org:2401.01234v2``,
``https://arxiv.org/abs/…``), DOIs in ``arxiv:DOI``/``prism:doi``/``dc:identifier``
and in doi.org links, so the records merge with the arXiv source's copies.
arXiv's own RSS puts all authors into one ``dc:creator`` separated by commas; that
string is split only when the entry is an arXiv record (elsewhere "Doe, Jane" is
one person).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import urlsplit

from generator.core import ids
from generator.config.kinds.feed import FeedSource
from generator.core.model import ET_AL, Person, Record, record_key
from generator.sources.accept import decode_xml, parse_checked
from generator.sources.http import HttpClient, PermanentError, Response, TransientError, check_polite
from generator.sources.text import (
    ABSTRACT_CAP,
    MAX_AUTHORS,
    split_terms,
    NAME_CAP,
    TITLE_CAP,
    clean_text,
    optional_text,
    utc_iso,
    year_of,
)
from generator.core.taxonomy import Taxonomy, load_taxonomy

if TYPE_CHECKING:
    from generator.config import FetchPolicy
    from generator.sources.registry import FetchContext

log = logging.getLogger(__name__)

FEED_VERSIONS = ("rss090", "rss091n", "rss091u", "rss092", "rss093", "rss094", "rss20", "rss10", "rss",
                 "atom01", "atom02", "atom03", "atom10", "atom")
_OAI_PREFIX = "oai:arxiv.org:"


@dataclass(frozen=True, slots=True)
class FeedPage:
    entries: int
    records: tuple[Record, ...]
    warnings: tuple[str, ...] = ()


def check(source: FeedSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
    """The kind's check before the first request (config.kinds.feed): not an arXiv host faster than it allows."""
    check_polite(source.url, policy.delay_seconds, where=where)


def fetch(source: FeedSource, context: FetchContext, cached: Sequence[Record]) -> tuple[Record, ...]:
    """The kind's fetch (config.kinds.feed): the feed's records."""
    return fetch_feed(context.client, source, cached).records


def fetch_feed(client: HttpClient, source: FeedSource, cached: Sequence[Record] = ()) -> FeedPage:
    """One request; an empty feed where records are cached is suspicious and retried."""
    page = client.get(source.url, lambda r: accept_feed(r, label=source.label, cached=len(cached)))
    for w in page.warnings:
        log.warning("%s: %s", source.url, w)
    return page


def accept_feed(response: Response, *, label: str, cached: int = 0) -> FeedPage:
    if response.status != 200:
        raise PermanentError(f"HTTP {response.status}")
    page = parse_feed(response.body, label=label)
    if page.entries == 0 and cached:
        raise TransientError(f"the feed has no entries but {cached} records are cached for it")
    return page


def parse_feed(body: bytes, *, label: str, taxonomy: Taxonomy | None = None) -> FeedPage:
    """Accept or refuse a feed body, then normalise its entries. Pure: bytes in, page out."""
    decode_xml(body)
    d = parse_checked(body, FEED_VERSIONS)
    tax = taxonomy or load_taxonomy()
    records: dict[str, Record] = {}
    warnings: list[str] = []
    for i, e in enumerate(d.entries):
        rec = normalize_item(e, label=label, tax=tax, order=i)
        if rec is None:
            warnings.append(f"skipped entry {i + 1}: no title and no arXiv id")
            continue
        records.setdefault(rec.key, rec)
    return FeedPage(entries=len(d.entries), records=tuple(records.values()), warnings=tuple(warnings))


def normalize_item(e: Any, *, label: str, tax: Taxonomy, order: int = 0) -> Record | None:  # noqa: ANN401
    """One feedparser entry -> a ``Record``; None when it has neither a title nor an arXiv id."""
    links = [str(x.get("href") or "") for x in e.get("links") or ()] + [str(e.get("link") or "")]
    arxiv = _arxiv_id(str(e.get("id") or ""), links)
    arxiv_id, version = arxiv if arxiv else (None, None)
    title = _text(e, "title", TITLE_CAP)
    if not title:
        if arxiv_id is None:
            return None
        title = f"arXiv:{arxiv_id}"
    # dict.get: feedparser's own get() answers "published" with "updated" (and warns) when it is absent.
    published = utc_iso(str(dict.get(e, "published") or dict.get(e, "created") or ""))
    updated = utc_iso(str(dict.get(e, "updated") or ""))
    subjects, others = _terms(e, tax)
    doi = _doi(e, links)
    year = year_of(published or updated)
    url = None
    if arxiv_id is None:
        url = next((u for u in (ids.safe_url(x) for x in links if x) if u), None)
    return Record(
        key=record_key(arxiv_id, doi, title, year), title=title, year=year, source=label,
        arxiv_id=arxiv_id, version=version, authors=_authors(e, split=arxiv_id is not None),
        abstract=_abstract(e), published=published, updated=updated,
        primary_subject=subjects[0] if subjects else None, subjects=subjects, other_terms=others, doi=doi,
        journal_ref=optional_text(e.get("arxiv_journal_reference") or e.get("arxiv_journal_ref")),
        comment=optional_text(e.get("arxiv_comment")), url=url, order=order,
    )


def _arxiv_id(entry_id: str, links: list[str]) -> tuple[str, int | None] | None:
    for cand in (entry_id, *links):
        c = cand.strip()
        if c.lower().startswith(_OAI_PREFIX):
            c = c[len(_OAI_PREFIX):]
        elif not c.lower().startswith(("http://arxiv.org/abs/", "https://arxiv.org/abs/", "arxiv:")):
            continue
        parsed = ids.parse_arxiv_id(c)
        if parsed:
            return parsed
    return None


def _doi(e: Any, links: list[str]) -> str | None:  # noqa: ANN401
    cands = [str(e.get(k) or "") for k in ("arxiv_doi", "prism_doi", "dc_identifier")]
    cands += [u for u in links if (urlsplit(u).hostname or "").lower() in ("doi.org", "dx.doi.org")]
    for c in cands:
        for token in c.split():
            doi = ids.normalize_doi(token.rstrip(",;"))
            if doi:
                return doi
    return None


def _authors(e: Any, *, split: bool) -> tuple[Person, ...]:  # noqa: ANN401
    names = [str(a.get("name") or "") for a in e.get("authors") or () if isinstance(a, dict)]
    if not any(names) and e.get("author"):
        names = [str(e.get("author"))]
    if split and len(names) == 1 and "," in names[0]:
        names = names[0].split(",")
    people = [Person(n) for n in (clean_text(x, NAME_CAP) for x in names[:MAX_AUTHORS]) if n]
    if len(names) > MAX_AUTHORS:
        people.append(Person(ET_AL))
    return tuple(people)


def _terms(e: Any, tax: Taxonomy) -> tuple[tuple[str, ...], tuple[str, ...]]:  # noqa: ANN401
    return split_terms((clean_text(str(tag.get("term") or ""), 100) for tag in e.get("tags") or ()), tax)


def _text(e: Any, key: str, cap: int) -> str:  # noqa: ANN401
    value = str(e.get(key) or "")
    detail = e.get(f"{key}_detail") or {}
    if "html" in str(detail.get("type") or ""):
        value = html_to_text(value)
    return clean_text(value, cap)


def _abstract(e: Any) -> str:  # noqa: ANN401
    text = _text(e, "summary", ABSTRACT_CAP)
    # arXiv's listings prefix the abstract: "arXiv:2401.01234v1 Announce Type: new Abstract: ..."
    marker = " Abstract: "
    if text.startswith("arXiv:") and marker in text[:200]:
        text = text.split(marker, 1)[1]
    return text


class _TextOnly(HTMLParser):
    """Collects the text of an HTML fragment; drops script and style content."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in ("p", "br", "div", "li"):
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_to_text(fragment: str) -> str:
    parser = _TextOnly()
    parser.feed(fragment)
    parser.close()
    return clean_text("".join(parser.parts), len(fragment) + 1)
