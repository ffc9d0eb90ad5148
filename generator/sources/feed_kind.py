"""The ``feed:`` source kind: any Atom or RSS feed, cached as ``feed-<sha1(url)>.json``.

The kind is what the pipeline knows about a feed (see ``registry``); acceptance and
parsing live in ``sources.feed``, imported only when a fetch actually runs, so that
a build does not import the HTTP client or feedparser.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator.config import FeedSource
from generator.sources.kindbase import KindBase

if TYPE_CHECKING:
    from generator.cache import CacheEntry
    from generator.config import FetchPolicy
    from generator.model import Record
    from generator.sources.registry import FetchContext


class FeedKind(KindBase):
    key: str = "feed"
    config_type: type = FeedSource

    def cache_key(self, source: FeedSource) -> str:
        return "feed-" + hashlib.sha1(source.url.encode()).hexdigest()[:10]

    def label(self, source: FeedSource) -> str:
        return f"feed {source.url}"

    def description(self, source: FeedSource) -> dict[str, Any]:
        return {"type": "feed", "url": source.url, "label": source.label}

    def review_text(self, source: FeedSource) -> str:
        return f"feed {source.url}"

    def match(self, source: FeedSource) -> str:
        """Why its records are on the author's page (generator.matching)."""
        return "identifier:feed"

    def categories(self, source: FeedSource) -> tuple[str, ...]:
        return ()

    def check(self, source: FeedSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
        from generator.sources.http import check_polite

        check_polite(source.url, policy.delay_seconds, where=where)

    def fetch(self, source: FeedSource, context: FetchContext, cached: Sequence[Record]) -> Sequence[Record]:
        from generator.sources.feed import fetch_feed

        return fetch_feed(context.client, source, cached).records

    def records(self, source: FeedSource, entry: CacheEntry | None) -> tuple[Record, ...]:
        """The cached records under the feed's current label (it may have changed since the fetch)."""
        if entry is None:
            return ()
        label = source.label
        return tuple(dataclasses.replace(r, source=label) if label and r.source != label else r
                     for r in entry.records)
