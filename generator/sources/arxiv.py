"""The arXiv API source: query paging, strict acceptance, and entries -> ``Record``.

Parsing: each page is parsed once, by ``accept.parse_xml`` (the body checks, then a
defusedxml ElementTree that refuses DTDs and entities inside the parser too), and the
acceptance checks that need structure run on that same tree: the root must be Atom
1.0's ``<feed>``, ``opensearch:totalResults`` an integer, and no entry an arXiv error
entry. feedparser is not used for arXiv (it stays for generic feeds): it collapses the
``arxiv:affiliation`` of all authors of an entry into one value (the last), it
silently shifts impossible dates (2025-02-30 -> 2025-03-02) where we want them
missing, and as a mere gate it cost a second parse of every page, slower than all
the rest of ``parse_page`` (see the commit that removed it for the timings). A
namespace-aware tree reads both of arXiv's response layouts (legacy and 2025+) the
same way.

Links are never taken from the feed: the model rebuilds the abstract, PDF and DOI
links from the validated id and DOI. Entries whose id is not an arXiv id are
skipped with a warning; an error entry (``…/api/errors#…``, with HTTP 400 or 200) is
arXiv telling us the query is wrong: ``QueryRefused``, reported with arXiv's own message
and the author file, instead of becoming a paper called "Error" or an "outage".

Paging follows arXiv's advice: sorted by last update (newest first), ``start`` and
``max_results``, stop at ``totalResults``. The first page's total governs the whole
query: a later page that is empty, short, or reports another total, and a total
smaller than what the cache already holds for the query, are suspicious and retried
(known transient failures of the API; one answers start=10 with an empty feed saying
totalResults 0, which would otherwise end the query silently). With a cache, paging stops at
the first page whose records are all cached at the same version, so an update with
nothing new costs one request, unless the cache holds fewer records than the query
should have given it (``min(total, max_results)``): then it goes on, jumping to where an
earlier fetch stopped (the cache file's ``incomplete`` mark, or its ``max_results`` when
that was raised since). Offsets only move down between fetches (new and updated papers
come on top), so resuming at an old offset can see a record twice, never miss one.
When a later page stays bad after the retries, the pages before it are kept
(``PartialFetch``) and the next fetch resumes at that page.

``ids:`` sources ask for their papers by ``id_list`` in batches of 100, with the same
acceptance and the same politeness (the one shared client).
"""

from __future__ import annotations

import functools
import logging
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence
from urllib.parse import urlencode, urlsplit, urlunsplit

from generator.core import ids
from generator.config import FetchPolicy
from generator.config.kinds.arxiv import ArxivSource
from generator.core.errors import SiteError
from generator.core.model import ET_AL, Incomplete, Person, Record
from generator.sources.accept import parse_xml
from generator.sources.http import (FetchError, HttpClient, PermanentError, QueryRefused, Response, TransientError,
                                    check_polite, is_arxiv_host)
from generator.sources.outcome import Fetched, PartialFetch
from generator.sources.text import (ABSTRACT_CAP, FIELD_CAP, MAX_AUTHORS, NAME_CAP, TITLE_CAP, clean_text,
                                    optional_text, split_terms, utc_iso, year_of)
from generator.core.taxonomy import Taxonomy, load_taxonomy

if TYPE_CHECKING:
    from generator.sources.registry import FetchContext

log = logging.getLogger(__name__)

ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ARXIV = "{http://arxiv.org/schemas/atom}"
ENV_ENDPOINT = "ARXIV_API_URL"
ID_BATCH = 100                   # ids per id_list request (arXiv pages id_list like a query)
_ABS_PREFIXES = ("http://arxiv.org/abs/", "https://arxiv.org/abs/")   # entry ids: always http, both accepted


@dataclass(frozen=True, slots=True)
class ArxivPage:
    """One accepted page of results."""

    total: int                       # opensearch:totalResults
    entries: int                     # entries present, including skipped ones (for paging)
    records: tuple[Record, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class QueryResult:
    records: tuple[Record, ...]      # newest first, one per arXiv id
    total: int
    pages: int
    complete: bool                   # False when stopped early at known records (incremental)


# ----------------------------------------------------------------------------- requests

def endpoint_url(policy: FetchPolicy, environ: Mapping[str, str] = os.environ) -> str:
    """``ARXIV_API_URL`` if set (a mirror or a test server), else ``fetch.arxiv_api`` from site.yaml."""
    raw = environ.get(ENV_ENDPOINT, "").strip()
    where = f"environment variable {ENV_ENDPOINT}" if raw else "site.yaml fetch.arxiv_api"
    url = ids.safe_url(raw or policy.arxiv_api)
    if url is None:
        raise SiteError(f"{where} must be an http(s) URL, found {raw or policy.arxiv_api!r}",
                        hint="e.g. https://export.arxiv.org/api/query")
    parts = urlsplit(url)
    if parts.scheme == "http" and is_arxiv_host(url):
        url = urlunsplit(("https", parts.netloc, parts.path, parts.query, ""))   # arXiv answers http with a 301
    return url


def check(source: ArxivSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
    """The kind's check before the first request (config.kinds.arxiv): arXiv's rate limit is kept."""
    check_polite(endpoint_url(policy, environ), policy.delay_seconds)


def fetch(source: ArxivSource, context: FetchContext, cached: Sequence[Record]) -> Fetched:
    """The kind's fetch (config.kinds.arxiv). A query resumes where its cache entry says: at an
    ``incomplete`` mark, or at a ``max_results`` below today's setting (backfill)."""
    endpoint = endpoint_url(context.policy, context.environ)
    if source.ids:
        return Fetched(fetch_ids(context.client, endpoint, source.ids))
    entry, limit = context.entry, context.policy.max_results
    asked = entry.max_results if entry else None
    resume_at = (entry.incomplete.next_start if entry and entry.incomplete
                 else asked if asked is not None and asked < limit else None)
    result = fetch_query(context.client, endpoint, source, context.policy, cached, resume_at)
    if result.total <= limit:
        return Fetched(result.records)
    # The query matched more than were asked for: remember how many were (the larger of
    # now and before, when this fetch stopped at records an earlier, larger one cached).
    return Fetched(result.records, max(limit, asked or 0) if not result.complete else limit)


def query_url(endpoint: str, query: str, start: int, max_results: int) -> str:
    params = urlencode({"search_query": query, "start": start, "max_results": max_results,
                        "sortBy": "lastUpdatedDate", "sortOrder": "descending"})
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{params}"


def fetch_query(client: HttpClient, endpoint: str, source: ArxivSource, policy: FetchPolicy,
                cached: Sequence[Record] = (), resume_at: int | None = None) -> QueryResult:
    """Every record of the query (up to ``max_results``), or, with a cache, the new and updated ones.

    ``resume_at`` is where an earlier fetch stopped (or the earlier ``max_results``, to
    backfill): on reaching known records, paging jumps there instead of stopping. A page
    still bad after the retries ends the fetch with ``PartialFetch`` holding the records of
    the pages before it, unless it was the first page (then nothing is kept: ``FetchError``).
    """
    known = {r.key: r.version for r in cached}
    limit = policy.max_results
    found: dict[str, Record] = {}
    start, pages = 0, 0
    total: int | None = None         # the first page's totalResults governs the whole query
    complete = True
    while True:
        size = min(policy.page_size, limit - start)
        url = query_url(endpoint, source.query, start, size)
        try:
            page = client.get(url, functools.partial(accept_page, start=start, size=size, cached=len(known),
                                                     total=total))
        except FetchError as exc:
            if total is None or exc.refused:
                raise
            raise PartialFetch(exc, tuple(found.values()), Incomplete(start, total)) from None
        pages += 1
        total = page.total if total is None else total
        for w in page.warnings:
            log.warning("%s: %s", url, w)
        for rec in page.records:
            found.setdefault(rec.key, rec)
        start += page.entries
        if start >= min(total, limit) or page.entries == 0:
            break
        if known and all(r.key in known and known[r.key] == r.version for r in page.records):
            missing = min(total, limit) - len(known.keys() | found.keys())
            if missing <= 0:
                complete = False     # everything after this page is cached already
                break
            if resume_at is not None and resume_at > start:
                log.info("arXiv query %r: resuming at %d of %d (%d not cached yet)", source.query,
                         resume_at, total, missing)
                start, resume_at = resume_at, None
                if start >= min(total, limit):
                    break
    assert total is not None         # set by the first page
    if total > limit and complete:
        log.warning("arXiv query %r matches %d records; only the newest %d are kept (fetch.max_results); "
                    "narrow the query or raise max_results", source.query, total, limit)
    return QueryResult(records=tuple(found.values()), total=total, pages=pages, complete=complete)


def id_list_url(endpoint: str, arxiv_ids: Sequence[str]) -> str:
    params = urlencode({"id_list": ",".join(arxiv_ids), "max_results": len(arxiv_ids)})
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{params}"


def fetch_ids(client: HttpClient, endpoint: str, arxiv_ids: Sequence[str]) -> tuple[Record, ...]:
    """The records of the given ids, asked for in batches of ``ID_BATCH`` (arXiv's ``id_list``).

    Every id is asked for on every fetch (a list is short, and this picks up new versions);
    a batch still bad after the retries ends the fetch with ``PartialFetch`` holding the
    batches before it. An id arXiv does not know is a warning, not a failure.
    """
    found: dict[str, Record] = {}
    for start in range(0, len(arxiv_ids), ID_BATCH):
        batch = tuple(arxiv_ids[start:start + ID_BATCH])
        url = id_list_url(endpoint, batch)
        try:
            page = client.get(url, functools.partial(accept_ids_page, asked=batch))
        except FetchError as exc:
            if start == 0 or exc.refused:
                raise
            raise PartialFetch(exc, tuple(found.values()), Incomplete(start, len(arxiv_ids))) from None
        for w in page.warnings:
            log.warning("%s: %s", url, w)
        for rec in page.records:
            if rec.arxiv_id in batch:
                found.setdefault(rec.key, rec)
        for missing in sorted(set(batch) - {r.arxiv_id for r in page.records}):
            log.warning("arXiv has no paper %s (listed under ids:); check the id", missing)
    return tuple(found.values())


def accept_ids_page(response: Response, *, asked: Sequence[str]) -> ArxivPage:
    """``parse_page``; an answer with no entry at all for the ids asked is arXiv's transient glitch."""
    page = parse_page(response.body, status=response.status)
    if page.entries == 0 and asked:
        raise TransientError(f"no entry at all for {len(asked)} id(s) asked by id_list (totalResults "
                             f"{page.total}); a known transient failure of arXiv's API")
    return page


def accept_page(response: Response, *, start: int, size: int, cached: int = 0,
                total: int | None = None) -> ArxivPage:
    """``parse_page`` plus the paging checks: empty, short, smaller than the cache -> retry.

    ``total`` is the first page's totalResults, given for every later page: it governs
    the whole query, so a later page that reports another total (arXiv's glitch answers
    a valid offset with an empty feed saying 0) is retried rather than ending the query
    early and silently.
    """
    page = parse_page(response.body, status=response.status)
    if total is not None and page.total != total:
        raise TransientError(f"page at start={start} reports totalResults {page.total} where the first page "
                             f"reported {total} (a known transient failure of arXiv's API)")
    if page.total < cached:
        raise TransientError(f"arXiv reports {page.total} results but the cache holds {cached} for this "
                             f"query (a known transient failure; if it is real, delete the cache file)")
    expected = max(0, min(size, page.total - start))
    if page.entries == 0 and expected > 0:
        raise TransientError(f"empty page at start={start} although totalResults is {page.total}")
    if page.entries < expected:
        raise TransientError(f"short page at start={start}: {page.entries} entries where {expected} were "
                             f"expected (totalResults {page.total})")
    return page


# ----------------------------------------------------------------------------- parsing (pure)

def parse_page(body: bytes, *, status: int = 200, taxonomy: Taxonomy | None = None) -> ArxivPage:
    """Accept or refuse one API response, then normalise its entries. Pure: bytes in, page out."""
    if status != 200:
        raise _refusal(body, status)
    total, entries = _accepted_feed(parse_xml(body))
    tax = taxonomy or load_taxonomy()
    records: list[Record] = []
    warnings: list[str] = []
    for i, entry in enumerate(entries):
        rec, notes = normalize_entry(entry, tax, order=i)
        warnings.extend(notes)
        if rec is not None:
            records.append(rec)
    return ArxivPage(total=total, entries=len(entries), records=tuple(records), warnings=tuple(warnings))


def _accepted_feed(root: ET.Element) -> tuple[int, list[ET.Element]]:
    """(totalResults, entries) of a parsed page that is an arXiv answer; else why it is not."""
    if root.tag != f"{ATOM}feed":
        raise TransientError(f"not an atom10 feed: the root element is {root.tag[:120]!r}, where arXiv "
                             f"answers with Atom 1.0's {ATOM}feed")
    total_text = (root.findtext(f"{OPENSEARCH}totalResults") or "").strip()
    if not total_text.isdigit():
        raise TransientError(f"no integer opensearch:totalResults (found {total_text[:40]!r})")
    entries = root.findall(f"{ATOM}entry")
    error = _error_entry(entries)
    if error is not None:
        raise QueryRefused(f"arXiv reported an error: {error}")
    return int(total_text), entries


def normalize_entry(entry: ET.Element, tax: Taxonomy, order: int = 0) -> tuple[Record | None, list[str]]:
    """One ``<entry>`` -> a ``Record`` (or None when its id is not an arXiv id), with warnings."""
    notes: list[str] = []
    raw_id = clean_text(entry.findtext(f"{ATOM}id"), 300)
    parsed = ids.parse_arxiv_id(raw_id) if raw_id.startswith(_ABS_PREFIXES) else None
    if parsed is None:
        return None, [f"skipped an entry whose id is not an arXiv id: {raw_id[:100]!r}"]
    arxiv_id, version = parsed
    title = clean_text(entry.findtext(f"{ATOM}title"), TITLE_CAP)
    if not title:
        notes.append(f"{arxiv_id}: no title; showing the id instead")
        title = f"arXiv:{arxiv_id}"
    published = _date(entry, "published", arxiv_id, notes)
    updated = _date(entry, "updated", arxiv_id, notes)
    primary, subjects, others = _categories(entry, tax)
    doi = _doi(entry.findtext(f"{ARXIV}doi"))
    return Record(
        key=f"arxiv:{arxiv_id}", title=title, year=year_of(published or updated), source="arXiv",
        arxiv_id=arxiv_id, version=version, authors=_authors(entry),
        abstract=clean_text(entry.findtext(f"{ATOM}summary"), ABSTRACT_CAP),
        published=published, updated=updated, primary_subject=primary, subjects=subjects, other_terms=others,
        doi=doi, journal_ref=optional_text(entry.findtext(f"{ARXIV}journal_ref")),
        comment=optional_text(entry.findtext(f"{ARXIV}comment")), order=order,
    ), notes


def _authors(entry: ET.Element) -> tuple[Person, ...]:
    people = []
    elements = entry.findall(f"{ATOM}author")
    for a in elements[:MAX_AUTHORS]:
        name = clean_text(a.findtext(f"{ATOM}name"), NAME_CAP)
        if not name:
            continue
        affs = tuple(dict.fromkeys(
            t for t in (clean_text(x.text, NAME_CAP) for x in a.findall(f"{ARXIV}affiliation")) if t))
        people.append(Person(name, affs))
    if len(elements) > MAX_AUTHORS:
        people.append(Person(ET_AL))
    return tuple(people)


def _categories(entry: ET.Element, tax: Taxonomy) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """(primary, canonical subjects primary first, non-arXiv terms such as MSC/ACM codes)."""
    pe = entry.find(f"{ARXIV}primary_category")
    terms = [clean_text(pe.get("term"), 100)] if pe is not None else []
    terms += [clean_text(c.get("term"), 100) for c in entry.findall(f"{ATOM}category")]
    codes, others = split_terms(terms, tax)
    primary_term = tax.canonical(terms[0]) if terms and terms[0] else None
    return primary_term or (codes[0] if codes else None), codes, others


def _doi(text: str | None) -> str | None:
    """The first valid DOI of the element (arXiv sometimes lists several, space-separated)."""
    for token in clean_text(text, FIELD_CAP).split():
        doi = ids.normalize_doi(token.rstrip(",;"))
        if doi:
            return doi
    return None


def _date(entry: ET.Element, name: str, arxiv_id: str, notes: list[str]) -> str | None:
    raw = clean_text(entry.findtext(f"{ATOM}{name}"), 100)
    value = utc_iso(raw)
    if raw and value is None:
        notes.append(f"{arxiv_id}: impossible or unreadable <{name}> {raw[:40]!r}, treated as missing")
    return value


def _error_entry(entries: list[ET.Element]) -> str | None:
    """arXiv's message if the feed is an error feed (one entry, id …/api/errors#…, title Error)."""
    for e in entries:
        eid = (e.findtext(f"{ATOM}id") or "").strip()
        title = (e.findtext(f"{ATOM}title") or "").strip()
        if "arxiv.org/api/errors" in eid or (title == "Error" and not eid.startswith(_ABS_PREFIXES)):
            return clean_text(e.findtext(f"{ATOM}summary"), 300) or "no message"
    return None


def _refusal(body: bytes, status: int) -> PermanentError:
    """What a non-200 answer says: arXiv's error entry (the query is wrong) if the body is a safe
    Atom error feed, else just the status."""
    try:
        message = _error_entry(parse_xml(body).findall(f"{ATOM}entry"))
    except (TransientError, PermanentError):
        message = None
    if message:
        return QueryRefused(f"arXiv reported an error (HTTP {status}): {message}")
    hint = " (is fetch.arxiv_api / ARXIV_API_URL right?)" if status == 404 else ""
    return PermanentError(f"HTTP {status}{hint}")
