"""The ``openalex:`` source kind: an author's works in OpenAlex, cached as ``openalex-<id>.json``.

The kind is what the pipeline knows about the source (see ``registry``); paging,
acceptance, the API key and parsing live in ``sources.openalex``, imported only when a
fetch runs. The citation counts are dated by the HTTP client's wall clock (the fetch day).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator.config.sources import OpenAlexSource
from generator.sources.kindbase import KindBase

if TYPE_CHECKING:
    from generator.cache import CacheEntry
    from generator.config import FetchPolicy
    from generator.model import Record
    from generator.sources.registry import FetchContext


class OpenAlexKind(KindBase):
    key: str = "openalex"
    config_type: type = OpenAlexSource

    def cache_key(self, source: OpenAlexSource) -> str:
        return f"openalex-{source.author}"

    def label(self, source: OpenAlexSource) -> str:
        return f"OpenAlex {source.author}"

    def description(self, source: OpenAlexSource) -> dict[str, Any]:
        return {"type": "openalex", "author": source.author}

    def review_text(self, source: OpenAlexSource) -> str:
        return f"OpenAlex author {source.author}"

    def match(self, source: OpenAlexSource) -> str:
        """Why its records are on the author's page (generator.matching)."""
        return "identifier:openalex"

    def categories(self, source: OpenAlexSource) -> tuple[str, ...]:
        return ()

    def check(self, source: OpenAlexSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
        from generator.sources.openalex import DEFAULT_ENDPOINT, ENV_ENDPOINT
        from generator.sources.works import endpoint

        endpoint(environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)

    def fetch(self, source: OpenAlexSource, context: FetchContext, cached: Sequence[Record]) -> Sequence[Record]:
        from generator.sources.openalex import DEFAULT_ENDPOINT, ENV_ENDPOINT, fetch_works
        from generator.sources.works import endpoint

        base = endpoint(context.environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)
        today = context.client.clock.wall().strftime("%Y-%m-%d")
        return fetch_works(context.client, base, source.author, context.environ, today, cached)

    def records(self, source: OpenAlexSource, entry: CacheEntry | None) -> tuple[Record, ...]:
        return entry.records if entry else ()
