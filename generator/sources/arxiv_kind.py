"""The ``arxiv:`` source kind: one arXiv API query per source, cached as ``arxiv-<sha1(query)>.json``.

The kind is what the pipeline knows about an arXiv query (see ``registry``); the
paging, acceptance and parsing live in ``sources.arxiv``, imported only when a
fetch actually runs, so that a build does not import the HTTP client.
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
    from generator.sources.registry import FetchContext


class ArxivKind(KindBase):
    key: str = "arxiv"
    config_type: type = ArxivSource

    def cache_key(self, source: ArxivSource) -> str:
        return "arxiv-" + hashlib.sha1(source.query.encode()).hexdigest()[:10]

    def label(self, source: ArxivSource) -> str:
        return f"arXiv {source.query!r}"

    def description(self, source: ArxivSource) -> dict[str, Any]:
        return {"type": "arxiv", "query": source.query}

    def review_text(self, source: ArxivSource) -> str:
        return f"arXiv query {source.query!r}"

    def categories(self, source: ArxivSource) -> tuple[str, ...]:
        return source.categories

    def check(self, source: ArxivSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
        from generator.sources.arxiv import endpoint_url
        from generator.sources.http import check_polite

        check_polite(endpoint_url(policy, environ), policy.delay_seconds)

    def fetch(self, source: ArxivSource, context: FetchContext, cached: Sequence[Record]) -> Sequence[Record]:
        from generator.sources.arxiv import endpoint_url, fetch_query

        endpoint = endpoint_url(context.policy, context.environ)
        return fetch_query(context.client, endpoint, source, context.policy, cached).records

    def records(self, source: ArxivSource, entry: CacheEntry | None) -> tuple[Record, ...]:
        return entry.records if entry else ()
