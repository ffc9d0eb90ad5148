"""One batched arXiv request for many authors' queries: ``(q1) OR (q2) OR ...``, newest first.

Sorted by last update, descending (the same order as each author's own query): a new
paper and a new version of a known one both come first, so one request finds both.
(The brief asked for submittedDate; that order would never show a v2 of a cached paper,
and a refresh made of batches would then stop recording new versions.)

Paging stops at the *horizon*: the oldest "refreshed at" of the batch's sources, less a
margin for papers that arXiv announces days after their submission time. Everything
older than that was already asked for by each source's own query. A known record is not
enough to stop at: sources in one batch were refreshed at different times, so a known
paper of one author can sit above a paper of another author that is new to us.
A page out of order (arXiv ignored the sort for days in November 2025) would make the
horizon lie, so it is refused and retried like the other known glitches.

The URL is kept under ``MAX_URL`` characters: arXiv answered a 642-id GET with HTTP 414
(lukasschwab/arxiv.py#15), servers commonly stop near 4-8 kB for the whole request head,
and 2,000 characters is the length every proxy on the way is known to pass.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Sequence, TypeVar
from urllib.parse import quote_plus, urlencode

from generator.config import FetchPolicy
from generator.core.model import Record
from generator.sources.arxiv import ArxivPage, parse_page
from generator.sources.http import HttpClient, Response, TransientError
from generator.sources.text import utc_iso

log = logging.getLogger(__name__)

MAX_URL = 2000
SORT_BY = "lastUpdatedDate"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BatchResult:
    records: tuple[Record, ...]      # newest first, down to the horizon
    requests: int
    reached: bool                    # the horizon (or the end of the results) was reached


def batch_query(queries: Sequence[str]) -> str:
    """``(q1) OR (q2) ...``: each query grouped, so its own AND/OR keep their meaning."""
    return " OR ".join(f"({q})" for q in queries)


def batch_url(endpoint: str, query: str, start: int, size: int) -> str:
    params = urlencode({"search_query": query, "start": start, "max_results": size,
                        "sortBy": SORT_BY, "sortOrder": "descending"})
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{params}"


def pack(items: Sequence[T], query_of: Callable[[T], str], endpoint: str, size: int,
         limit: int = MAX_URL) -> list[list[T]]:
    """Consecutive groups of ``items`` whose batched URL (at the largest ``start``) fits ``limit``.
    An item too long on its own gets a group of its own. (Lengths add up: urlencode quotes each
    ``(q)`` and each `` OR `` on its own terms.)"""
    base = len(batch_url(endpoint, "", 99999, size))
    joiner = len(quote_plus(" OR "))
    groups: list[list[T]] = []
    current: list[T] = []
    length = base
    for item in items:
        piece = len(quote_plus(f"({query_of(item)})"))
        if current and length + joiner + piece > limit:
            groups.append(current)
            current, length = [], base
        length += piece + (joiner if current else 0)
        current.append(item)
    if current:
        groups.append(current)
    return groups


def fetch_batch(client: HttpClient, endpoint: str, queries: Sequence[str], horizon: datetime,
                policy: FetchPolicy, page_size: int) -> BatchResult:
    """Page the batched query newest first until a page reaches back past ``horizon``.
    Raises ``FetchError`` as ``HttpClient.get`` does (the caller keeps every cache as it was)."""
    query = batch_query(queries)
    stop = horizon.strftime("%Y-%m-%dT%H:%M:%SZ")
    found: dict[str, Record] = {}
    start = requests = 0
    total: int | None = None
    while start < policy.max_results:
        size = min(page_size, policy.max_results - start)
        page = client.get(batch_url(endpoint, query, start, size),
                          lambda r, s=start, n=size, t=total: accept_batch_page(r, start=s, size=n, total=t))
        requests += 1
        total = page.total if total is None else total
        for rec in page.records:
            found.setdefault(rec.key, rec)
        start += page.entries
        oldest = _stamp(page.records[-1]) if page.records else None
        if start >= total or page.entries == 0 or (oldest is not None and oldest < stop):
            return BatchResult(tuple(found.values()), requests, reached=True)
    log.warning("a batched arXiv query reached fetch.max_results (%d) before the last refresh; its "
                "sources are fetched one by one", policy.max_results)
    return BatchResult(tuple(found.values()), requests, reached=False)


def accept_batch_page(response: Response, *, start: int, size: int, total: int | None) -> ArxivPage:
    """``parse_page`` plus the checks paging relies on: the first page's total holds, a page is
    neither empty nor short before the end, and its entries are newest first."""
    page = parse_page(response.body, status=response.status)
    if total is not None and page.total != total:
        raise TransientError(f"page at start={start} reports totalResults {page.total} where the first page "
                             f"reported {total} (a known transient failure of arXiv's API)")
    expected = max(0, min(size, page.total - start))
    if page.entries < expected:
        raise TransientError(f"{'empty' if page.entries == 0 else 'short'} page at start={start}: "
                             f"{page.entries} entries where {expected} were expected")
    stamps = [s for s in (_stamp(r) for r in page.records) if s is not None]
    if any(a < b for a, b in zip(stamps, stamps[1:])):
        raise TransientError(f"page at start={start} is not sorted by {SORT_BY}, newest first "
                             "(arXiv ignored the sort order once, in November 2025)")
    return page


def _stamp(record: Record) -> str | None:
    """The record's last-update time as sortable UTC text."""
    return utc_iso(record.updated or record.published or "") or None
