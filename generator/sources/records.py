"""The ``records:`` source kind: publications typed into the author's YAML file.

Nothing is fetched or cached: the records come from the configuration
(``config.RecordsSource``) and are always kept (the user wrote them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from generator.config import RecordsSource
from generator.sources.kindbase import KindBase

if TYPE_CHECKING:
    from generator.cache import CacheEntry
    from generator.config import FetchPolicy
    from generator.model import Record
    from generator.sources.registry import FetchContext

TYPED_IN = "typed in"


class RecordsKind(KindBase):
    key: str = "records"
    config_type: type = RecordsSource

    def cache_key(self, source: RecordsSource) -> None:
        return None

    def label(self, source: RecordsSource) -> str:
        return TYPED_IN

    def description(self, source: RecordsSource) -> dict[str, Any]:
        return {"type": "records"}

    def review_text(self, source: RecordsSource) -> str:
        return TYPED_IN

    def match(self, source: RecordsSource) -> str:
        """Why its records are on the author's page (generator.matching)."""
        return "identifier:typed-in"

    def categories(self, source: RecordsSource) -> tuple[str, ...]:
        return ()

    def check(self, source: RecordsSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
        return None

    def fetch(self, source: RecordsSource, context: FetchContext, cached: Sequence[Record]) -> None:
        return None

    def records(self, source: RecordsSource, entry: CacheEntry | None) -> tuple[Record, ...]:
        return source.records
