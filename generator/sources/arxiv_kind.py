"""The ``arxiv:`` source kind: one arXiv API query per source, cached as ``arxiv-<sha1(query)>.json``,
or a list of ids (``arxiv: {ids: [...]}``), cached as ``arxiv-ids-<sha1(ids)>.json``.

The kind is what the pipeline knows about an arXiv query (see ``registry``); the
paging, acceptance and parsing live in ``sources.arxiv``, imported only when a
fetch actually runs, so that a build does not import the HTTP client. Both forms give
records keyed ``arxiv:<id>``, so a paper found by a query and named by id is one record.
A query source's cache entry tells its fetch where to resume: an ``incomplete`` mark,
or a ``max_results`` below today's setting (backfill).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator.config import ArxivSource
from generator.sources.kindbase import KindBase

if TYPE_CHECKING:
    from generator.cache import CacheEntry
    from generator.config import FetchPolicy
    from generator.model import Record
    from generator.sources.outcome import Fetched
    from generator.sources.registry import FetchContext


class ArxivKind(KindBase):
    key: str = "arxiv"
    config_type: type = ArxivSource

    def cache_key(self, source: ArxivSource) -> str:
        if source.ids:
            return "arxiv-ids-" + hashlib.sha1(",".join(source.ids).encode()).hexdigest()[:10]
        return "arxiv-" + hashlib.sha1(source.query.encode()).hexdigest()[:10]

    def label(self, source: ArxivSource) -> str:
        return f"arXiv ids {_ids_text(source.ids)}" if source.ids else f"arXiv {source.query!r}"

    def description(self, source: ArxivSource) -> dict[str, Any]:
        if source.ids:
            return {"type": "arxiv", "ids": list(source.ids)}
        return {"type": "arxiv", "query": source.query}

    def review_text(self, source: ArxivSource) -> str:
        return f"arXiv ids {_ids_text(source.ids)}" if source.ids else f"arXiv query {source.query!r}"

    def match(self, source: ArxivSource) -> str:
        """Why its records are on the author's page (generator.matching)."""
        return "identifier:arxiv-ids" if source.ids else "name:arxiv-query"

    def categories(self, source: ArxivSource) -> tuple[str, ...]:
        return source.categories

    def check(self, source: ArxivSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
        from generator.sources.arxiv import endpoint_url
        from generator.sources.http import check_polite

        check_polite(endpoint_url(policy, environ), policy.delay_seconds)

    def fetch(self, source: ArxivSource, context: FetchContext, cached: Sequence[Record]) -> Fetched:
        from generator.sources.arxiv import endpoint_url, fetch_ids, fetch_query
        from generator.sources.outcome import Fetched

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

    def records(self, source: ArxivSource, entry: CacheEntry | None) -> tuple[Record, ...]:
        return entry.records if entry else ()


def _ids_text(arxiv_ids: Sequence[str]) -> str:
    shown = ", ".join(arxiv_ids[:3])
    return shown + (f" and {len(arxiv_ids) - 3} more" if len(arxiv_ids) > 3 else "")
