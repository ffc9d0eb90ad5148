"""The ``orcid:`` source kind: one ORCID iD's public works, cached as ``orcid-<iD>.json``.

The kind is what the pipeline knows about the source (see ``registry``); the request,
acceptance and parsing live in ``sources.orcid``, imported only when a fetch runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator.config.sources import OrcidSource
from generator.sources.kindbase import KindBase

if TYPE_CHECKING:
    from generator.cache import CacheEntry
    from generator.config import FetchPolicy
    from generator.model import Record
    from generator.sources.registry import FetchContext


class OrcidKind(KindBase):
    key: str = "orcid"
    config_type: type = OrcidSource

    def cache_key(self, source: OrcidSource) -> str:
        return f"orcid-{source.id}"

    def label(self, source: OrcidSource) -> str:
        return f"ORCID {source.id}"

    def description(self, source: OrcidSource) -> dict[str, Any]:
        return {"type": "orcid", "id": source.id}

    def review_text(self, source: OrcidSource) -> str:
        return f"ORCID iD {source.id}"

    def match(self, source: OrcidSource) -> str:
        """Why its records are on the author's page (generator.matching)."""
        return "identifier:orcid"

    def categories(self, source: OrcidSource) -> tuple[str, ...]:
        return ()

    def check(self, source: OrcidSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
        from generator.sources.orcid import DEFAULT_ENDPOINT, ENV_ENDPOINT
        from generator.sources.works import endpoint

        endpoint(environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)

    def fetch(self, source: OrcidSource, context: FetchContext, cached: Sequence[Record]) -> Sequence[Record]:
        from generator.sources.orcid import DEFAULT_ENDPOINT, ENV_ENDPOINT, fetch_works
        from generator.sources.works import endpoint

        base = endpoint(context.environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)
        return fetch_works(context.client, base, source.id, cached)

    def records(self, source: OrcidSource, entry: CacheEntry | None) -> tuple[Record, ...]:
        return entry.records if entry else ()
