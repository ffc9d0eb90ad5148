"""The ``dblp:`` source kind: a DBLP person record, cached as ``dblp-<sha1(pid)>.json``.

The kind is what the pipeline knows about the source (see ``registry``); the request,
acceptance and parsing live in ``sources.dblp``, imported only when a fetch runs. The
cache file is named by a digest because a pid holds a slash (``12/3456``).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator.config.sources import DblpSource
from generator.sources.kindbase import KindBase

if TYPE_CHECKING:
    from generator.cache import CacheEntry
    from generator.config import FetchPolicy
    from generator.model import Record
    from generator.sources.registry import FetchContext


class DblpKind(KindBase):
    key: str = "dblp"
    config_type: type = DblpSource

    def cache_key(self, source: DblpSource) -> str:
        return "dblp-" + hashlib.sha1(source.pid.encode()).hexdigest()[:10]

    def label(self, source: DblpSource) -> str:
        return f"DBLP {source.pid}"

    def description(self, source: DblpSource) -> dict[str, Any]:
        return {"type": "dblp", "pid": source.pid}

    def review_text(self, source: DblpSource) -> str:
        return f"DBLP person {source.pid}"

    def match(self, source: DblpSource) -> str:
        """Why its records are on the author's page (generator.matching)."""
        return "identifier:dblp"

    def categories(self, source: DblpSource) -> tuple[str, ...]:
        return ()

    def check(self, source: DblpSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
        from generator.sources.dblp import DEFAULT_ENDPOINT, ENV_ENDPOINT
        from generator.sources.works import endpoint

        endpoint(environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)

    def fetch(self, source: DblpSource, context: FetchContext, cached: Sequence[Record]) -> Sequence[Record]:
        from generator.sources.dblp import DEFAULT_ENDPOINT, ENV_ENDPOINT, fetch_person
        from generator.sources.works import endpoint

        base = endpoint(context.environ, ENV_ENDPOINT, DEFAULT_ENDPOINT)
        return fetch_person(context.client, base, source.pid, cached)

    def records(self, source: DblpSource, entry: CacheEntry | None) -> tuple[Record, ...]:
        return entry.records if entry else ()
