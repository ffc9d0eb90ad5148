"""The DBLP source: one person's XML record (``<base>/pid/<pid>.xml``) -> ``Record``s.

The record is one document, not paged: ``<dblpperson name= pid= n=>`` holds ``<person>``
(names, affiliation notes, urls), an optional ``<homonyms>`` block, one ``<r>`` per
publication wrapping ``<article>``, ``<inproceedings>``, ``<proceedings>``, ``<book>``,
``<incollection>``, ``<phdthesis>`` or ``<informal>``, and ``<coauthors>``. It is parsed once
by ``accept.parse_xml`` (body checks, then defusedxml: no DTD, no entity), as arXiv pages
are. Believed only if the root is ``dblpperson`` for the pid asked for (another person's
record is refused and retried) and it holds the ``n`` publications it announces (a cut
document is retried). An empty record where records are cached is retried too.

An element this module does not know, where it reads (under the root, in ``<r>``, in a
publication or its title), is named in a warning and ignored, so a change of DBLP's
format shows up in the fetch log instead of as silently missing data.

``publtype="informal"`` (or an ``<informal>`` element) marks a CoRR copy of an arXiv
preprint: its arXiv id is read from its ``ee`` links (``arxiv.org/abs/ID``, the DataCite
DOI ``10.48550/arXiv.ID``) or its ``abs/ID`` volume, so it merges with the arXiv
source's record; it has no venue. Titles lose their ``<i>``, ``<sub>``, ``<sup>`` markup
(the text is kept: H<sub>2</sub>O -> H2O) and DBLP's closing period. Homonym numbers
("Di Xu 0001") are DBLP's, not part of the name, and are dropped.
"""

from __future__ import annotations

import functools
import logging
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import quote

from generator.core import ids
from generator.core.model import ET_AL, Person, Record, record_key
from generator.sources.accept import parse_xml
from generator.sources.http import HttpClient, PermanentError, Response, TransientError
from generator.sources.text import FIELD_CAP, MAX_AUTHORS, NAME_CAP, TITLE_CAP, clean_text
from generator.sources.works import arxiv_from_link, doi_from_link, endpoint, split_doi

if TYPE_CHECKING:
    from generator.config import FetchPolicy
    from generator.sources.registry import FetchContext

log = logging.getLogger(__name__)

ENV_ENDPOINT = "DBLP_URL"
DEFAULT_ENDPOINT = "https://dblp.org"
LABEL = "DBLP"

TOP = frozenset({"person", "homonyms", "r", "coauthors"})
PUBLICATIONS = frozenset({"article", "inproceedings", "proceedings", "book", "incollection", "phdthesis",
                          "mastersthesis", "informal", "data"})
FIELDS = frozenset({"author", "editor", "title", "booktitle", "pages", "year", "address", "journal", "volume",
                    "number", "month", "url", "ee", "cdrom", "cite", "publisher", "note", "crossref", "isbn",
                    "series", "school", "chapter", "publnr", "stream", "rel"})
TITLE_MARKUP = frozenset({"i", "sub", "sup", "tt", "b", "ref"})
_HOMONYM = re.compile(r"\s+[0-9]{4}$")
_CORR_VOLUME = re.compile(r"^abs/(.+)$")


@dataclass(frozen=True, slots=True)
class DblpRecord:
    """One accepted person record."""

    name: str
    announced: int | None            # the root's n attribute
    entries: int                     # <r> elements present
    records: tuple[Record, ...]
    warnings: tuple[str, ...] = ()


def person_url(base: str, pid: str) -> str:
    return f"{base}/pid/{quote(pid, safe='/-_')}.xml"


def check(source: Any, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:  # noqa: ANN401
    """The kind's check before the first request (config.kinds.dblp): the address is an http(s) URL."""
    endpoint(environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)


def fetch(source: Any, context: FetchContext, cached: Sequence[Record]) -> tuple[Record, ...]:  # noqa: ANN401
    """The kind's fetch (config.kinds.dblp): the person's records."""
    return fetch_person(context.client, endpoint(context.environ, ENV_ENDPOINT, DEFAULT_ENDPOINT), source.pid, cached)


def fetch_person(client: HttpClient, base: str, pid: str, cached: Sequence[Record] = ()) -> tuple[Record, ...]:
    """Every publication of the person record."""
    url = person_url(base, pid)
    page = client.get(url, functools.partial(accept_person, pid=pid, cached=len(cached)))
    for w in page.warnings:
        log.warning("%s: %s", url, w)
    return page.records


def accept_person(response: Response, *, pid: str, cached: int = 0) -> DblpRecord:
    if response.status != 200:
        hint = " (no such DBLP pid, or DBLP_URL is wrong)" if response.status in (404, 410) else ""
        raise PermanentError(f"HTTP {response.status}{hint}")
    page = parse_person(response.body, pid)
    if page.announced is not None and page.entries < page.announced:
        raise TransientError(f"the record announces {page.announced} publications (n=) but holds "
                             f"{page.entries}; a cut answer")
    if page.entries == 0 and cached:
        raise TransientError(f"the DBLP record lists no publications but {cached} records are cached for it")
    return page


def parse_person(body: bytes, pid: str) -> DblpRecord:
    """Accept or refuse a person record, then normalise its publications. Pure: bytes in, records out."""
    root = parse_xml(body)
    if root.tag != "dblpperson":
        raise TransientError(f"not a DBLP person record: the root element is <{root.tag[:60]}>, not <dblpperson>")
    if root.get("pid") != pid:
        raise TransientError(f"the answer is the record of pid {str(root.get('pid'))[:60]!r}, not {pid!r} "
                             f"(another person's record); refused")
    unknown: Counter[str] = Counter()
    records: dict[str, Record] = {}
    entries = 0
    for child in root:
        if child.tag not in TOP:
            unknown[f"<{child.tag}> in <dblpperson>"] += 1
        if child.tag != "r":
            continue
        entries += 1
        rec = _publication(child, len(records), unknown)
        if rec is not None and (rec.key not in records or records[rec.key].venue is None):
            records[rec.key] = rec   # a published copy wins over a CoRR copy of the same key
    n = (root.get("n") or "").strip()
    warnings = tuple(f"unknown element {what} ignored ({count} time{'s' if count != 1 else ''})"
                     for what, count in sorted(unknown.items()))
    return DblpRecord(name=clean_text(root.get("name"), NAME_CAP), announced=int(n) if n.isdigit() else None,
                      entries=entries, records=tuple(records.values()), warnings=warnings)


def _publication(r: ET.Element, order: int, unknown: Counter[str]) -> Record | None:
    pubs = [e for e in r if e.tag in PUBLICATIONS]
    for e in r:
        if e.tag not in PUBLICATIONS:
            unknown[f"<{e.tag}> in <r>"] += 1
    if not pubs:
        return None
    pub = pubs[0]
    for e in pub:
        if e.tag not in FIELDS:
            unknown[f"<{e.tag}> in <{pub.tag}>"] += 1
    title_el = pub.find("title")
    if title_el is not None:
        unknown.update(f"<{e.tag}> in <title>" for e in title_el.iter() if e is not title_el
                       and e.tag not in TITLE_MARKUP)
    return normalize_publication(pub, order)


def normalize_publication(pub: ET.Element, order: int = 0) -> Record | None:
    """One publication element -> a ``Record`` (None without a title)."""
    key = clean_text(pub.get("key"), 300)
    title = _title(pub.find("title"))
    if not title:
        return None
    informal = pub.tag == "informal" or "informal" in (pub.get("publtype") or "").split()
    year_text = clean_text(pub.findtext("year"), 10)
    year = int(year_text) if year_text.isdigit() and len(year_text) == 4 else None
    links = [u for u in (ids.safe_url(clean_text(e.text, FIELD_CAP)) for e in pub.findall("ee")) if u]
    doi, arxiv_id = _ids(pub, links)
    url = None
    if not (arxiv_id or doi):
        url = links[0] if links else ids.safe_url(f"https://dblp.org/rec/{quote(key, safe='/-_.')}") if key else None
    return Record(
        key=record_key(arxiv_id, doi, title, year), title=title, year=year, source=LABEL, arxiv_id=arxiv_id,
        authors=_authors(pub), doi=doi, url=url, order=order,
        venue=None if informal else _venue(pub, year), source_ids=(("dblp", key),) if key else (),
        origins=(LABEL,),
    )


def _ids(pub: ET.Element, links: list[str]) -> tuple[str | None, str | None]:
    """(DOI, arXiv id) from the ee links (and a CoRR entry's ``abs/ID`` volume)."""
    arxiv = next((a for a in (arxiv_from_link(u) for u in links) if a), None)
    if arxiv is None and clean_text(pub.findtext("journal")) == "CoRR":
        m = _CORR_VOLUME.match(clean_text(pub.findtext("volume")))
        parsed = ids.parse_arxiv_id(m.group(1)) if m else None
        arxiv = parsed[0] if parsed else None
    dois = (split_doi(doi_from_link(u))[0] for u in links)
    return next((d for d in dois if d), None), arxiv


def _title(el: ET.Element | None) -> str:
    if el is None:
        return ""
    title = clean_text("".join(el.itertext()), TITLE_CAP)
    return title[:-1] if title.endswith(".") and not title.endswith("..") else title


def _authors(pub: ET.Element) -> tuple[Person, ...]:
    elements = pub.findall("author") or pub.findall("editor")
    people = [Person(_HOMONYM.sub("", clean_text(e.text, NAME_CAP))) for e in elements[:MAX_AUTHORS]]
    if len(elements) > MAX_AUTHORS:
        people.append(Person(ET_AL))
    return tuple(p for p in people if p.name)


def _venue(pub: ET.Element, year: int | None) -> str | None:
    """A journal's name; a conference's name and year ("VLDB 2025"); a thesis' school."""
    if pub.tag == "article":
        return clean_text(pub.findtext("journal"), FIELD_CAP) or None
    if pub.tag in ("inproceedings", "incollection", "proceedings"):
        name = clean_text(pub.findtext("booktitle"), FIELD_CAP)
        return (f"{name} {year}" if year and str(year) not in name else name) or None
    if pub.tag in ("phdthesis", "mastersthesis"):
        return clean_text(pub.findtext("school"), FIELD_CAP) or None
    return None
