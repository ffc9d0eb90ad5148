"""The OpenAlex source: an author's works (``<base>/works?filter=author.id:<id>``) -> ``Record``s.

Cursor paging: ``per-page=200&cursor=*``, then each page's ``meta.next_cursor`` until it is
null or a page is empty. ``meta.count`` of the first page governs the run: an empty page
before that many works were read is retried. A server that hands out cursors for ever (a
cursor seen before, or more than ``MAX_PAGES`` pages) is stopped with a warning.

The API key (free, wanted since 2026-02-13) comes from the environment variable
``OPENALEX_API_KEY`` only. It travels as the ``api_key`` query parameter, but as the HTTP
client's *secret query* (``http.Extra``): the transport adds it to the request line and
nowhere else, so no URL that is logged, raised or stored ever holds it. Without a key a
warning says so (a site then gets OpenAlex's tiny daily allowance).

Statuses, as OpenAlex documents them: 403 means "slow down" (retried with back-off,
honouring Retry-After); 429 means the day's allowance is spent: the source stops at once
(retrying cannot help before tomorrow), and so does every other OpenAlex source of the same
run without a request (the allowance is the key's, not the author's: the HTTP client keeps
it spent for the run, ``http.Extra.allowance``); each cache is kept.

A page is someone else's if none of its works lists the author: refused and retried.
Single works without the author are kept: OpenAlex truncates long author lists in list
answers, and merged author ids may show the other id.

Abstracts come as ``abstract_inverted_index`` (word -> positions) and are rebuilt; a
hostile index (a position of 10**9) costs nothing, as positions are sorted, not allocated.
``cited_by_count`` is kept as ``Record.citations`` with ``citations_date``, the day it was
fetched; the date of a cached count that has not changed is kept, so a fetch with nothing
new rewrites nothing.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import quote

from generator.core import ids
from generator.core.model import ET_AL, Person, Record, record_key
from generator.sources.http import Extra, HttpClient, PermanentError, Response, TransientError, parse_retry_after
from generator.sources.text import (ABSTRACT_CAP, FIELD_CAP, MAX_AUTHORS, NAME_CAP, TITLE_CAP, clean_text,
                                    utc_iso)
from generator.sources.works import arxiv_from_link, doi_from_link, endpoint, parse_json, split_doi

if TYPE_CHECKING:
    from generator.config import FetchPolicy
    from generator.sources.registry import FetchContext

log = logging.getLogger(__name__)

ENV_ENDPOINT = "OPENALEX_API_URL"
ENV_KEY = "OPENALEX_API_KEY"
DEFAULT_ENDPOINT = "https://api.openalex.org"
LABEL = "OpenAlex"
ALLOWANCE = "openalex"           # the daily allowance every OpenAlex source of a run draws on (http.Extra)
PER_PAGE = 200
MAX_PAGES = 100                  # 20,000 works: far beyond any one author
MAX_WORDS = 20_000
NO_KEY = (f"{ENV_KEY} is not set: OpenAlex answers requests without an API key only up to a tiny daily "
          f"allowance; get a free key at openalex.org and put it in the environment (a repository secret "
          f"in the publish workflow), never in a file")


@dataclass(frozen=True, slots=True)
class WorksPage:
    count: int                       # meta.count
    entries: int                     # results present
    next_cursor: str | None
    records: tuple[Record, ...]


def works_url(base: str, author: str, cursor: str) -> str:
    return f"{base}/works?filter=author.id:{author}&per-page={PER_PAGE}&cursor={quote(cursor, safe='*')}"


def request_extra(environ: Mapping[str, str]) -> Extra:
    """429 judged by ``accept`` (stop, do not retry) and the API key as a secret query part."""
    key = environ.get(ENV_KEY, "").strip()
    return Extra(own_statuses=frozenset({429}), secret_query="api_key=" + quote(key, safe="") if key else "",
                 allowance=ALLOWANCE)


def check(source: Any, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:  # noqa: ANN401
    """The kind's check before the first request (config.kinds.openalex): the address is an http(s) URL."""
    endpoint(environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)


def fetch(source: Any, context: FetchContext, cached: Sequence[Record]) -> tuple[Record, ...]:  # noqa: ANN401
    """The kind's fetch (config.kinds.openalex): the author's works, their citation counts dated by the
    HTTP client's wall clock (the fetch day)."""
    base = endpoint(context.environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)
    today = context.client.clock.wall().strftime("%Y-%m-%d")
    return fetch_works(context.client, base, source.author, context.environ, today, cached)


def fetch_works(client: HttpClient, base: str, author: str, environ: Mapping[str, str], today: str,
                cached: Sequence[Record] = ()) -> tuple[Record, ...]:
    """Every work of the author, page by page; ``today`` (YYYY-MM-DD) dates the citation counts."""
    extra = request_extra(environ)
    if not extra.secret_query:
        log.warning("%s", NO_KEY)
    found: dict[str, Record] = {}
    cursor: str | None = "*"
    count: int | None = None
    read = pages = 0
    seen: set[str] = set()
    while cursor is not None:
        url = works_url(base, author, cursor)
        page = client.get(url, functools.partial(accept_page, author=author, today=today, read=read,
                                                 count=count, cached=len(cached)), request=extra)
        count = page.count if count is None else count
        pages += 1
        read += page.entries
        for rec in page.records:
            found.setdefault(rec.key, replace(rec, order=len(found)))
        seen.add(cursor)
        cursor = page.next_cursor if page.entries else None
        if cursor is not None and (cursor in seen or pages >= MAX_PAGES):
            log.warning("%s: stopped after %d pages (%d works read, meta.count is %d): the server keeps "
                        "handing out cursors", url, pages, read, count)
            break
    return _keep_citation_dates(tuple(found.values()), cached)


def accept_page(response: Response, *, author: str, today: str, read: int = 0, count: int | None = None,
                cached: int = 0) -> WorksPage:
    """One answer -> a page; 403 slows down, 429 stops the source, other checks as in the module doc."""
    if response.status == 429:
        wait = _retry_after(response)
        when = f" (Retry-After: {wait:.0f} s)" if wait is not None else ""
        raise PermanentError(f"HTTP 429: OpenAlex's daily allowance for this key is spent{when}; every OpenAlex "
                             f"source is skipped for the rest of this run and its cache kept (set {ENV_KEY} to a "
                             f"key of your own)", spent=True)
    if response.status == 403:
        raise TransientError("HTTP 403: OpenAlex asks to slow down (rate limit)", throttled=True,
                             retry_after=_retry_after(response))
    if response.status != 200:
        raise PermanentError(f"HTTP {response.status}" + (" (no such author, or OPENALEX_API_URL is wrong)"
                                                          if response.status == 404 else ""))
    page = parse_page(response.body, author, today)
    total = page.count if count is None else count
    if page.entries == 0 and read < total:
        raise TransientError(f"empty page after {read} of {total} works")
    if page.entries == 0 and read == 0 and cached:
        raise TransientError(f"OpenAlex lists no works but {cached} records are cached for this author")
    return page


def parse_page(body: bytes, author: str, today: str) -> WorksPage:
    """Accept or refuse one works page, then normalise its works. Pure: bytes in, page out."""
    doc = parse_json(body)
    meta = doc.get("meta") if isinstance(doc, dict) else None
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(meta, dict) or not isinstance(results, list):
        raise TransientError("not an OpenAlex list: no 'meta' and 'results'")
    count, cursor = meta.get("count"), meta.get("next_cursor")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise TransientError(f"meta.count is not a count ({str(count)[:40]!r})")
    if cursor is not None and not isinstance(cursor, str):
        raise TransientError("meta.next_cursor is neither text nor null")
    works = [w for w in results if isinstance(w, dict)]
    full_id = f"https://openalex.org/{author}"
    if works and not any(full_id in _author_ids(w) for w in works):
        raise TransientError(f"none of the {len(works)} works on the page lists the author {author} "
                             f"(another author's works); refused")
    records = tuple(r for r in (normalize_work(w, today, i) for i, w in enumerate(works)) if r is not None)
    return WorksPage(count=count, entries=len(results), next_cursor=cursor or None, records=records)


def normalize_work(work: Mapping[str, Any], today: str, order: int = 0) -> Record | None:
    """One work -> a ``Record`` (None without a title)."""
    title = clean_text(_str(work.get("display_name")) or _str(work.get("title")), TITLE_CAP)
    if not title:
        return None
    doi, arxiv_id = split_doi(doi_from_link(_str(work.get("doi"))))
    locations = [x for x in _list(work.get("locations")) if isinstance(x, dict)]
    arxiv_id = arxiv_id or next((a for a in (arxiv_from_link(_str(x.get("landing_page_url")))
                                            for x in locations) if a), None)
    year = work.get("publication_year")
    year = year if isinstance(year, int) and not isinstance(year, bool) and 1000 <= year <= 9999 else None
    work_id = _str(work.get("id")).rsplit("/", 1)[-1]
    work_id = work_id if re.fullmatch(r"W[0-9]{1,15}", work_id) else ""
    primary = work.get("primary_location") if isinstance(work.get("primary_location"), dict) else {}
    url = None
    if not (arxiv_id or doi):
        url = ids.safe_url(_str(primary.get("landing_page_url"))) or (
            f"https://openalex.org/{work_id}" if work_id else None)
    cites = work.get("cited_by_count")
    cites = cites if isinstance(cites, int) and not isinstance(cites, bool) and cites >= 0 else None
    return Record(
        key=record_key(arxiv_id, doi, title, year), title=title, year=year, source=LABEL, arxiv_id=arxiv_id,
        authors=_authors(work), abstract=rebuild_abstract(work.get("abstract_inverted_index")),
        published=utc_iso(_str(work.get("publication_date"))), doi=doi, url=url, order=order,
        venue=_venue(primary), source_ids=(("openalex", work_id),) if work_id else (),
        origins=(LABEL,), citations=cites, citations_date=today if cites is not None else None,
    )


def rebuild_abstract(index: Any) -> str:  # noqa: ANN401
    """The text of an ``abstract_inverted_index`` (word -> positions); '' if there is none."""
    if not isinstance(index, dict):
        return ""
    placed: list[tuple[int, str]] = []
    for word, positions in index.items():
        if isinstance(word, str) and isinstance(positions, list):
            placed.extend((p, word) for p in positions if isinstance(p, int) and not isinstance(p, bool))
        if len(placed) > MAX_WORDS:
            break
    return clean_text(" ".join(word for _, word in sorted(placed)[:MAX_WORDS]), ABSTRACT_CAP)


def _author_ids(work: Mapping[str, Any]) -> set[str]:
    return {_str(a["author"].get("id")) for a in _list(work.get("authorships"))
            if isinstance(a, dict) and isinstance(a.get("author"), dict)}


def _authors(work: Mapping[str, Any]) -> tuple[Person, ...]:
    ships = [a for a in _list(work.get("authorships")) if isinstance(a, dict) and isinstance(a.get("author"), dict)]
    people = []
    for a in ships[:MAX_AUTHORS]:
        name = clean_text(_str(a["author"].get("display_name")) or _str(a.get("raw_author_name")), NAME_CAP)
        places = (clean_text(_str(i.get("display_name")), NAME_CAP) for i in _list(a.get("institutions"))
                  if isinstance(i, dict))
        if name:
            people.append(Person(name, tuple(dict.fromkeys(p for p in places if p))))
    if len(ships) > MAX_AUTHORS or work.get("is_authors_truncated") is True:
        people.append(Person(ET_AL))
    return tuple(people)


def _venue(primary: Mapping[str, Any]) -> str | None:
    """The journal or proceedings of the primary location; none for a repository (arXiv)."""
    source = primary.get("source") if isinstance(primary.get("source"), dict) else None
    if source is not None:
        if source.get("type") == "repository":
            return None
        return clean_text(_str(source.get("display_name")), FIELD_CAP) or None
    return clean_text(_str(primary.get("raw_source_name")), FIELD_CAP) or None


def _keep_citation_dates(records: tuple[Record, ...], cached: Sequence[Record]) -> tuple[Record, ...]:
    """A count that has not changed keeps the date it was first seen, so nothing is rewritten."""
    old = {r.key: r for r in cached}
    return tuple(replace(r, citations_date=old[r.key].citations_date)
                 if r.key in old and old[r.key].citations == r.citations and old[r.key].citations_date else r
                 for r in records)


def _retry_after(response: Response) -> float | None:
    return parse_retry_after(response.headers.get("retry-after"), datetime.now(timezone.utc))


def _str(value: Any) -> str:  # noqa: ANN401
    return value if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:  # noqa: ANN401
    return value if isinstance(value, list) else []
